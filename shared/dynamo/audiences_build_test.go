package dynamo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestBuildAudienceSlices runs a build in small slices, several runs of it
// at once (as duplicate queue deliveries would), and checks that every
// match is counted once and written once.
func TestBuildAudienceSlices(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	// 250 contacts, 3 in 5 of them engineers: 150 matches, more than one
	// transaction's worth in some slices.
	price := int64(3)
	aud := engineersAudience(t, s, orgID, 250, func(i int) bool { return i%5 < 3 }, &price)
	app := testenv.Audiences(s)

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for slices := 0; slices < 100; slices++ {
				done, err := app.BuildSlice(ctx, orgID, aud.ID, 120)
				if err != nil {
					errs <- err
					return
				}
				if done {
					return
				}
			}
			errs <- fmt.Errorf("the build did not finish in 100 slices")
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	got, err := app.Get(ctx, orgID, aud.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != audience.Ready || got.TotalMatch != 150 || got.CreditRequired != 450 || got.Meta.ContactsScanned != 250 {
		t.Fatalf("audience: status %s, totalMatch %d, creditRequired %d, scanned %d; want ready, 150, 450, 250",
			got.Status, got.TotalMatch, got.CreditRequired, got.Meta.ContactsScanned)
	}
	// The updatedAt order reads every Slim entry: it counts the members
	// actually written.
	_, _, n, err := app.Members(ctx, orgID, got.ID, audience.MemberQuery{SortBy: "updatedAt", Page: gifting.PageRequest{Page: 1, Limit: 1}})
	if err != nil || n != 150 {
		t.Errorf("members written = %d (%v), want 150", n, err)
	}
	t.Run("a finished build does nothing more", func(t *testing.T) {
		done, err := app.BuildSlice(ctx, orgID, aud.ID, 120)
		again, _ := app.Get(ctx, orgID, aud.ID)
		if !done || err != nil || again.TotalMatch != 150 || !again.UpdatedAt.Equal(got.UpdatedAt) {
			t.Errorf("another slice: done %v err %v totalMatch %d", done, err, again.TotalMatch)
		}
	})
}

// TestAudienceBuildPace: a build's members go to the organization's
// partition, like a launch's recipients, and take no more write units a
// second there than the pace allows (plus its burst).
func TestAudienceBuildPace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const pace = 1000 // high enough to keep the test short: each member is ~10 write units
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t), dynamo.WithLaunchWriteRate(pace))
	orgID, _ := testenv.Org(t, s, "paced-build", 0)
	aud := engineersAudience(t, s, orgID, 300, func(int) bool { return true }, nil)
	app := testenv.Audiences(s)
	u := &meter.Usage{Record: true}
	stop := m.Observe(u)
	start := time.Now()
	for done := false; !done; {
		var err error
		if done, err = app.BuildSlice(ctx, orgID, aud.ID, 500); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	stop()
	got, err := app.Get(ctx, orgID, aud.ID)
	if err != nil || got.Status != audience.Ready || got.TotalMatch != 300 {
		t.Fatalf("audience %+v, %v; want ready with 300 members", got, err)
	}
	units, peak := orgPartitionWrites(u.Calls(), orgID)
	if peak.Units > pace+64 {
		t.Errorf("peak %.0f write units in one second into the organization's partition, want at most %d", peak.Units, pace+64)
	}
	// Paced at the rate less one commit's units (4 per member, 98 a
	// commit: the member twice, its Slim and Order entries).
	if least := time.Duration((units - 64 - 4*98) / (pace - 4*98) * float64(time.Second)); took < least {
		t.Errorf("the build wrote %.0f units in %v, faster than its pace allows (%v)", units, took, least)
	}
}

// engineersAudience seeds orgID with a list of n contacts, those for which
// engineer is true with the job title "Software Engineer" and the others
// "Accountant", and returns a new audience of the persona "engineer" over
// them at price credits a contact (nil: the default), not yet built.
func engineersAudience(t *testing.T, s *dynamo.Store, orgID string, n int, engineer func(i int) bool, price *int64) audience.Audience {
	t.Helper()
	ctx := context.Background()
	l, err := s.CreateContactList(ctx, orgID, "u", "seed", "")
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < n; start += 100 {
		var in []contact.Input
		for i := start; i < min(start+100, n); i++ {
			title := "Accountant"
			if engineer(i) {
				title = "Software Engineer"
			}
			in = append(in, contact.Input{MailID: fmt.Sprintf("p%03d@example.com", i), JobTitle: title})
		}
		if res, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil || res.Created != len(in) {
			t.Fatalf("seed: %v %+v", err, res)
		}
	}
	app := testenv.Audiences(s)
	icp, err := app.CreatePersona(ctx, orgID, "u", audience.Persona{Criteria: audience.Criteria{Name: "eng", JobTitles: []string{"engineer"}}})
	if err != nil {
		t.Fatal(err)
	}
	aud, err := app.Create(ctx, orgID, "u", audience.Audience{Name: "eng", ICPID: icp.ID}, audience.Price{CreditsPerContact: price})
	if err != nil {
		t.Fatal(err)
	}
	return aud
}
