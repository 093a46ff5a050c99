package webhook_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/webhook"
)

// TestHandleRecords: the worker hands a stream batch's change records on
// one organization after another in order, organizations side by side (a
// record of one waits while another's are handled), and after a failure
// holds back that organization's later records only.
func TestHandleRecords(t *testing.T) {
	t.Parallel()
	rec := func(org, id string) webhook.Record { return webhook.Record{OrgID: org, ID: id} }
	recs := []webhook.Record{rec("slow", "s1"), rec("fast", "f1"), rec("slow", "s2"), rec("fast", "f2"), rec("broken", "b1"), rec("broken", "b2"), rec("slow", "s3")}
	fastDone := make(chan struct{})
	var mu sync.Mutex
	var handled []string
	boom := errors.New("storage failed")
	errs := webhook.HandleRecords(context.Background(), func(_ context.Context, r webhook.Record) error {
		id := r.ID
		switch id {
		case "s1":
			// The slow organization's first record waits until the fast
			// one's records are through: handled one after another, this
			// would never end.
			select {
			case <-fastDone:
			case <-time.After(5 * time.Second):
				t.Error("the fast organization's records waited for the slow one's")
			}
		case "b1":
			return boom
		}
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, id)
		if id == "f2" {
			close(fastDone)
		}
		return nil
	}, recs)
	var slow []string
	for _, id := range handled {
		if id[0] == 's' {
			slow = append(slow, id)
		}
	}
	if !slices.Equal(slow, []string{"s1", "s2", "s3"}) {
		t.Errorf("the slow organization's records were handled as %v; want in order", slow)
	}
	if slices.Contains(handled, "b2") {
		t.Error("a record after its organization's failed one was handed on")
	}
	for i, err := range errs {
		want := error(nil)
		if recs[i].OrgID == "broken" {
			want = boom
		}
		if !errors.Is(err, want) || (want == nil && err != nil) {
			t.Errorf("record %d (%s): %v; want %v", i, recs[i].OrgID, err, want)
		}
	}
}
