package dynamo_test

import (
	"context"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestErasureFindsLegacyRecipients: a recipient written before recipient
// ids were derived from the contact (a random id, named by its RCPTOF
// marker) is found and erased with its contact, and its page is gone.
func TestErasureFindsLegacyRecipients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, c := launchFixtureOf(t, s, "erase-legacy", 2, "tmpl-meeting-booker")
	ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	contacts, err := s.ContactsByID(ctx, orgID, ids[:1])
	if err != nil || len(contacts) != 1 {
		t.Fatalf("contact: %v %v", contacts, err)
	}
	old := writeLegacyRecipient(t, s, orgID, c, contacts[0])
	app := erasure.NewApp(s, contact.NewApp(s, nil))
	if _, err := app.Start(ctx, orgID, contacts[0].ContactID); err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		if done, err = app.RunSlice(ctx, orgID, contacts[0].ContactID); err != nil {
			t.Fatal(err)
		}
	}
	j, err := app.Receipt(ctx, orgID, contacts[0].ContactID)
	if err != nil || j.Erased[erasure.KindRecipient] != 1 {
		t.Fatalf("receipt %+v, %v: want the legacy recipient erased", j, err)
	}
	got, err := s.Recipient(ctx, orgID, c.CampaignID, old.RecipientID)
	if err != nil {
		t.Fatal(err)
	}
	if d := got.ContactDetails; d.Email != erasure.ErasedEmail || d.FirstName != erasure.Erased || d.LastName != erasure.Erased {
		t.Errorf("the legacy recipient holds %+v after the erasure", d)
	}
	if p, err := s.RecipientPage(ctx, old.LandingPageID); err != nil || !p.Erased || !p.Gone() {
		t.Errorf("its landing page: erased %v, %v; want gone", p.Erased, err)
	}
}
