package campaign_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// The use cases against the real storage (DynamoDB Local). The decisions
// they run are tested without it (launch_test.go, slice_test.go,
// edit_test.go, lifecycle_test.go); these tests are skipped when no
// DynamoDB Local runs outside make test, which starts one. The launch's crash and
// fault tests drive the same use cases from shared/dynamo and
// shared/scheduler.

// store is a store on the run's DynamoDB Local, with the service catalog;
// without one, a plain go test skips the test (testenv.Client).
func store(t *testing.T) *dynamo.Store {
	t.Helper()
	s := testenv.Store(t)
	if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// listOf is a contact list of orgID with n contacts.
func listOf(t *testing.T, s *dynamo.Store, orgID string, n int) gifting.ContactList {
	t.Helper()
	ctx := context.Background()
	l, err := s.CreateContactList(ctx, orgID, "user-1", "list", "")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]contact.Input, n)
	for i := range in {
		in[i] = contact.Input{MailID: fmt.Sprintf("c%d@example.com", i), FirstName: "C"}
	}
	if _, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil {
		t.Fatal(err)
	}
	l.ContactCount = int64(n)
	return l
}

// TestLaunchCostsItsRecipients: a draft created through the use case is
// priced from its gift; its launch takes the credits of every contact, a
// retry under the same key gets the first answer, and the launch job,
// its slices run by the use case, ends with the campaign live and the
// contact deleted before its slice refunded: the launch costs exactly its
// recipients, and the ledger sums to the balance.
func TestLaunchCostsItsRecipients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store(t)
	orgID, _ := testenv.Org(t, s, "acme", 1_000)
	l := listOf(t, s, orgID, 4)
	app := testenv.Campaigns(s)
	name := "Spring"
	c := campaign.Campaign{CreatedBy: "user-1"}
	if err := (campaign.Edit{Name: &name, Lists: []string{l.ListID}, ListsSent: true, GiftIDs: []string{"gift-artisan-coffee"}}).Apply(&c, true); err != nil {
		t.Fatal(err)
	}
	c, _, err := app.Create(ctx, orgID, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	price := c.CampaignData.CreditsPerRecipient
	if price <= 0 || c.Status != campaign.Draft {
		t.Fatalf("created %s priced %d; want a draft priced from its gift", c.Status, price)
	}
	idem := &gifting.Idempotent[campaign.Launch]{
		Key: gifting.IdempotencyKey{Scope: "launch", Key: "k1", Hash: "h1"}, Status: http.StatusAccepted,
		Render: func(l campaign.Launch) ([]byte, error) { return fmt.Appendf(nil, "%d", l.RemainingBalance), nil },
	}
	launched, stored, err := app.Launch(ctx, orgID, c.CampaignID, "user-1", idem)
	if err != nil || stored != nil || launched.CreditsDeducted != 4*price || launched.RemainingBalance != 1_000-4*price {
		t.Fatalf("launch: %+v, %v, %v; want %d taken", launched, stored, err, 4*price)
	}
	_, stored, err = app.Launch(ctx, orgID, c.CampaignID, "user-1", idem)
	if err != nil || stored == nil || string(stored.Body) != fmt.Sprint(1_000-4*price) {
		t.Fatalf("retry under the key: %+v, %v; want the first answer", stored, err)
	}
	ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, l.ListID)
	if err != nil {
		t.Fatal(err)
	}
	if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, ids[0]); err != nil {
		t.Fatal(err)
	}
	for cursor, step := "", 0; ; step++ {
		if step > 10 {
			t.Fatal("the launch job does not finish")
		}
		next, done, err := app.LaunchSlice(ctx, orgID, c.CampaignID, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		cursor = next
	}
	got, err := app.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Wallet(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != campaign.Live || got.TotalRecipients != 3 || got.LaunchProgress == nil || *got.LaunchProgress.Refunded != price ||
		w.Balance != 1_000-3*price {
		t.Errorf("campaign %s with %d recipients (progress %+v), balance %d; want live, 3, %d refunded, %d",
			got.Status, got.TotalRecipients, got.LaunchProgress, w.Balance, price, 1_000-3*price)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// TestLifecycleThroughTheApp: an edit of a draft, the moves of a launched
// campaign, and a delete, each with the error a user reads when it does
// not apply.
func TestLifecycleThroughTheApp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store(t)
	orgID, _ := testenv.Org(t, s, "acme", 1_000)
	app := testenv.Campaigns(s)
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "Spring", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{"gift-artisan-coffee"}, CreditsPerRecipient: 10}})
	if err != nil {
		t.Fatal(err)
	}
	renamed := "Autumn"
	if c, err = app.Update(ctx, orgID, c.CampaignID, "user-2", campaign.Edit{Name: &renamed}); err != nil || c.Name != renamed {
		t.Fatalf("update: %+v, %v", c, err)
	}
	if _, err := app.Move(ctx, orgID, c.CampaignID, campaign.Pause, "user-2", ""); gifting.ErrorCode(err) != gifting.CodeConflict {
		t.Errorf("pausing a draft: %v, want CONFLICT", err)
	}
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	if _, err := app.Update(ctx, orgID, c.CampaignID, "user-2", campaign.Edit{Name: &renamed}); gifting.ErrorCode(err) != gifting.CodeConflict {
		t.Errorf("editing a live campaign: %v, want CONFLICT", err)
	}
	for _, act := range []campaign.Action{campaign.Pause, campaign.Resume, campaign.Complete} {
		moved, err := app.Move(ctx, orgID, c.CampaignID, act, "user-2", "why")
		if err != nil || moved.Status != act.To || moved.Reason != "why" {
			t.Fatalf("%s: %+v, %v", act.Name, moved, err)
		}
	}
	if _, err := app.Delete(ctx, orgID, c.CampaignID, "user-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Campaign(ctx, orgID, c.CampaignID); gifting.ErrorCode(err) != gifting.CodeNotFound {
		t.Errorf("a deleted campaign: %v, want NOT_FOUND", err)
	}
	if _, err := app.Delete(ctx, orgID, c.CampaignID, "user-2"); gifting.ErrorCode(err) != gifting.CodeNotFound {
		t.Errorf("deleting it again: %v, want NOT_FOUND", err)
	}
}
