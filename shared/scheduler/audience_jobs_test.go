package scheduler_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestAudienceBuildSurvivesACrashBeforeItsJob: the process that stored an
// audience (created, or rebuilt) dies before it queues the build's job, as
// a Lambda timing out or a lost message would leave it. The scheduler's
// ticks alone must build it: it becomes ready with its matches, and can
// then be deleted, instead of staying list-building for ever (a state in
// which it can be neither deleted nor rebuilt).
func TestAudienceBuildSurvivesACrashBeforeItsJob(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// start stores the audience as the use case would, minus the
		// job's message.
		start func(e *mailEnv, a audience.Audience) error
	}{
		{"created", func(*mailEnv, audience.Audience) error { return nil }},
		{"rebuilt", func(e *mailEnv, a audience.Audience) error {
			app := testenv.Audiences(e.store)
			for done := false; !done; {
				var err error
				if done, err = app.BuildSlice(context.Background(), e.orgID, a.ID, 1000); err != nil {
					return err
				}
			}
			_, err := app.Rebuild(context.Background(), e.orgID, a.ID)
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newMailEnv(t)
			ctx := context.Background()
			a := e.engineersAudience()
			if err := tt.start(e, a); err != nil {
				t.Fatal(err)
			}
			// No job message: only the ticks, a lease after the crash.
			e.clock.Advance(dynamo.DueLease)
			e.tick()
			got, err := e.svc.Audiences().Get(ctx, e.orgID, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Status != audience.Ready || got.TotalMatch != 2 || got.CreditRequired != 6 {
				t.Fatalf("audience %s with %d matches for %d credits; want ready with 2 for 6", got.Status, got.TotalMatch, got.CreditRequired)
			}
			if err := e.svc.Audiences().Delete(ctx, e.orgID, a.ID); err != nil {
				t.Errorf("delete the built audience: %v", err)
			}
			// Built and deleted: nothing of it is due any more.
			e.clock.Advance(dynamo.DueLease)
			e.tick()
			e.clock.Advance(dynamo.DueLease)
			if due, err := e.store.DueItems(ctx, e.clock.Now()); err != nil {
				t.Fatal(err)
			} else {
				for _, d := range due {
					if d.OrgID == e.orgID {
						t.Errorf("still due after the build and the purge: %+v", d)
					}
				}
			}
		})
	}
}

// engineersAudience stores, without its build's job (its message is
// lost), an audience of the org's engineers at 3 credits each, over three
// contacts of which two are engineers.
func (e *mailEnv) engineersAudience() audience.Audience {
	e.t.Helper()
	ctx := context.Background()
	l, err := e.store.CreateContactList(ctx, e.orgID, "user-1", "seed", "")
	if err != nil {
		e.t.Fatal(err)
	}
	var in []contact.Input
	for i, title := range []string{"Software Engineer", "Accountant", "Staff Engineer"} {
		in = append(in, contact.Input{MailID: e.address(fmt.Sprint("p", i)), JobTitle: title})
	}
	if _, err := contact.NewApp(e.store, nil).AddToList(ctx, e.orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil {
		e.t.Fatal(err)
	}
	app := testenv.Audiences(e.store)
	icp, err := app.CreatePersona(ctx, e.orgID, "user-1", audience.Persona{Criteria: audience.Criteria{Name: "eng", JobTitles: []string{"engineer"}}})
	if err != nil {
		e.t.Fatal(err)
	}
	price := int64(3)
	a, err := app.Create(ctx, e.orgID, "user-1", audience.Audience{Name: "eng", ICPID: icp.ID}, audience.Price{CreditsPerContact: &price})
	if err != nil {
		e.t.Fatal(err)
	}
	return a
}

// TestAudienceCopySurvivesACrashBeforeItsJob: the process that started
// copying a ready audience into a new contact list dies before it queues
// the copy's job. The scheduler's ticks alone must fill the list, and the
// audience, no longer "being copied", can then be deleted; nothing stays
// due.
func TestAudienceCopySurvivesACrashBeforeItsJob(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	ctx := context.Background()
	a := e.engineersAudience()
	app := testenv.Audiences(e.store)
	for done := false; !done; {
		var err error
		if done, err = app.BuildSlice(ctx, e.orgID, a.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	l, err := e.store.CreateContactList(ctx, e.orgID, "user-1", "engineers", "")
	if err != nil {
		t.Fatal(err)
	}
	// The copy's start as the use case records it, without its job's
	// message.
	if err := e.store.CommitCopyStart(ctx, e.orgID, a.ID, l.ListID, audience.CopyStarted()); err != nil {
		t.Fatal(err)
	}
	// No job message: only the ticks, a lease after the crash.
	e.clock.Advance(dynamo.DueLease)
	e.tick()
	got, err := app.Get(ctx, e.orgID, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	list, err := e.store.ContactList(ctx, e.orgID, l.ListID)
	if err != nil {
		t.Fatal(err)
	}
	if p := got.Meta.ContactLists[l.ListID]; p.Status != audience.ListReady || p.Added != 2 || list.ContactCount != 2 {
		t.Fatalf("copy progress %+v, list of %d contacts; want ready with 2 added to a list of 2", p, list.ContactCount)
	}
	if err := e.svc.Audiences().Delete(ctx, e.orgID, a.ID); err != nil {
		t.Errorf("delete the copied audience: %v", err)
	}
	e.clock.Advance(dynamo.DueLease)
	e.tick()
	e.clock.Advance(dynamo.DueLease)
	due, err := e.store.DueItems(ctx, e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		if d.OrgID == e.orgID {
			t.Errorf("still due after the copy and the purge: %+v", d)
		}
	}
}
