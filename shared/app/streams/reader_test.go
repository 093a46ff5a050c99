package streams_test

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/app/streams"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// seen counts the change records a reader handled, by organization.
type seen struct {
	mu    sync.Mutex
	byOrg map[string]int
}

func (s *seen) count(org string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byOrg[org]
}

// reading runs a reader of s's table that hands each change record to
// handle (counting those it accepts) until stop is called, which returns
// once the reader has stopped.
func reading(t *testing.T, s *dynamo.Store, handle func(dynamo.ChangeRecord) error) (*seen, func()) {
	t.Helper()
	got := &seen{byOrg: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	r := &streams.Reader{DB: testenv.Client(t), Streams: streams.NewClient(os.Getenv("DYNAMODB_ENDPOINT")), Table: s.Table(),
		Every: 20 * time.Millisecond, Log: testenv.Quiet,
		Handle: func(_ context.Context, cr dynamo.ChangeRecord) error {
			if err := handle(cr); err != nil {
				return err
			}
			got.mu.Lock()
			defer got.mu.Unlock()
			got.byOrg[cr.OrgID]++
			return nil
		}}
	go func() {
		defer close(done)
		if err := r.Run(ctx); err != nil {
			t.Errorf("stream reader: %v", err)
		}
	}()
	return got, func() { cancel(); <-done }
}

// waitFor waits until each of orgs had a change record handled.
func waitFor(t *testing.T, got *seen, orgs ...string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		all := true
		for _, o := range orgs {
			all = all && got.count(o) > 0
		}
		if all {
			return
		}
	}
	t.Fatalf("change records of %v not handled in time", orgs)
}

// TestReaderKeepsItsPlace: a reader started again (the local runner or a
// process of the chaos run restarted) goes on after the records the one
// before handled, rather than reading the stream from its oldest record
// again; a record whose handling had not succeeded when the reader stopped
// is handled by the next one.
func TestReaderKeepsItsPlace(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := localstack.EnableStream(context.Background(), testenv.Client(t), root, s.Table()); err != nil {
		t.Fatal(err)
	}
	org := func(name string) string {
		id, _ := testenv.Org(t, s, "reader-"+name, 100)
		// A top-up writes a change record (wallet.topped_up).
		if _, err := wallet.NewApp(s).TopUpOnce(context.Background(), wallet.TopUpRequest{OrgID: id, RequestID: "top-up-" + name, Credits: 5, Reason: "test"}); err != nil {
			t.Fatal(err)
		}
		return id
	}
	accept := func(dynamo.ChangeRecord) error { return nil }

	first := []string{org("a"), org("b"), org("c")}
	got, stop := reading(t, s, accept)
	waitFor(t, got, first...)
	stop()

	second := []string{org("d"), org("e")}
	got, stop = reading(t, s, accept)
	waitFor(t, got, second...)
	time.Sleep(300 * time.Millisecond) // time for old records to come again, if they would
	stop()
	for _, o := range first {
		if n := got.count(o); n != 0 {
			t.Errorf("the restarted reader handled %d change records of %s, which the one before had handled", n, o)
		}
	}

	// A receiver down while the reader stops: its record comes again.
	failing := org("f")
	got, stop = reading(t, s, func(cr dynamo.ChangeRecord) error {
		if cr.OrgID == failing {
			return errors.New("receiver down")
		}
		return nil
	})
	time.Sleep(300 * time.Millisecond)
	stop()
	if n := got.count(failing); n != 0 {
		t.Fatalf("%d records of %s handled by a failing handler", n, failing)
	}
	got, stop = reading(t, s, accept)
	waitFor(t, got, failing)
	stop()
	for _, o := range append(first, second...) {
		if n := got.count(o); n != 0 {
			t.Errorf("after the failed record, %s's records came again (%d)", o, n)
		}
	}
}
