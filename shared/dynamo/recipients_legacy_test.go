package dynamo_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestLegacyRecipients fills a table as the code before derived recipient
// keys and packed records did (a recipient with a random id, its record as
// attributes, its RCPTOF marker) and checks that the current code reads,
// lists and moves that recipient, and refuses a second recipient for its
// contact, by add-recipient and by a launch: no migration is needed.
func TestLegacyRecipients(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// A clock a millisecond on at each reading, so creation order is
	// never a tie.
	var (
		mu    sync.Mutex
		clock = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	)
	s := testenv.Store(t, dynamo.WithClock(func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Millisecond)
		return clock
	}))
	orgID, c := launchFixtureOf(t, s, "legacy", 3, "tmpl-meeting-booker")
	lists, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	contacts, err := s.ContactsByID(ctx, orgID, lists[:1])
	if err != nil || len(contacts) != 1 {
		t.Fatalf("contact: %v %v", contacts, err)
	}
	old := writeLegacyRecipient(t, s, orgID, c, contacts[0])

	t.Run("read", func(t *testing.T) {
		got, err := s.Recipient(ctx, orgID, c.CampaignID, old.RecipientID)
		if err != nil {
			t.Fatal(err)
		}
		if got.RecipientID != old.RecipientID || got.ContactDetails.Email != old.ContactDetails.Email ||
			got.Emails.AddressConfirmation.Subject == "" || got.Emails.AddressConfirmation.Subject != old.Emails.AddressConfirmation.Subject ||
			got.URLs != old.URLs || got.Status != gifting.RecipientPending {
			t.Errorf("legacy recipient read back as %+v, want %+v", got, old)
		}
	})
	t.Run("its legacy page ids show its pages", func(t *testing.T) {
		for id, kind := range map[string]gifting.PageKind{old.LandingPageID: gifting.LandingPage, old.ClaimPageID: gifting.ClaimPage} {
			p, err := s.RecipientPage(ctx, id)
			if err != nil || p.Kind != kind || p.Recipient.RecipientID != old.RecipientID {
				t.Errorf("page %q: kind %v, recipient %s, %v; want the legacy recipient's", id, p.Kind, p.Recipient.RecipientID, err)
			}
		}
	})
	t.Run("add-recipient refuses its contact", func(t *testing.T) {
		in := addInput(orgID, c.CampaignID, contacts[0].MailID)
		_, err := testenv.Recipients(s).Write(ctx, in)
		if gifting.ErrorCode(err) != gifting.CodeConflict {
			t.Errorf("add-recipient of the legacy recipient's contact: %v, want CONFLICT", err)
		}
	})
	t.Run("a launch skips its contact and refunds it", func(t *testing.T) {
		l, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1")
		if err != nil {
			t.Fatal(err)
		}
		if l.CreditsDeducted != 30 {
			t.Fatalf("launch took %d credits, want 30 (3 contacts)", l.CreditsDeducted)
		}
		runSlicesTwice(t, s, orgID, c.CampaignID, nil)
		got, err := s.Campaign(ctx, orgID, c.CampaignID)
		if err != nil {
			t.Fatal(err)
		}
		w, err := s.Wallet(ctx, orgID)
		if err != nil {
			t.Fatal(err)
		}
		// The legacy recipient was not paid for by the launch: 2 of its 3
		// contacts became recipients, 10 credits came back.
		if got.Status != campaign.Live || got.TotalRecipients != 3 || got.LiveData.CreditsSpent != 30 || w.Balance != 980 {
			t.Errorf("campaign %s with %d recipients, %d credits spent, balance %d; want live, 3, 30 (10 legacy + 20), 980",
				got.Status, got.TotalRecipients, got.LiveData.CreditsSpent, w.Balance)
		}
		if n := countItems(t, s, orgID, "RCPT#"+c.CampaignID+"#"); n != 3 {
			t.Errorf("%d recipient items, want 3", n)
		}
	})
	t.Run("listed with the new ones, in creation order", func(t *testing.T) {
		p, err := s.ListRecipients(ctx, orgID, c.CampaignID, recipient.Query{Page: gifting.PageRequest{Page: 1, Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 3 || len(p.Recipients) != 3 || p.Recipients[2].RecipientID != old.RecipientID {
			ids := make([]string, len(p.Recipients))
			for i, r := range p.Recipients {
				ids[i] = r.RecipientID
			}
			t.Errorf("list %v (total %d), want 3 with the legacy %s last (oldest)", ids, p.Total, old.RecipientID)
		}
	})
	t.Run("moves status", func(t *testing.T) {
		testenv.Claim(t, s, orgID, c.CampaignID, old.RecipientID)
		moved := testenv.Ship(t, s, orgID, c.CampaignID, old.RecipientID) // its order ships it (issue 31)
		got, err := s.Recipient(ctx, orgID, c.CampaignID, old.RecipientID)
		if err != nil {
			t.Fatal(err)
		}
		camp, err := s.Campaign(ctx, orgID, c.CampaignID)
		if err != nil {
			t.Fatal(err)
		}
		if moved.Status != gifting.RecipientShipped || got.Status != gifting.RecipientShipped || got.CreatedAt != old.CreatedAt ||
			camp.LiveData.StatusCounts[gifting.RecipientShipped] != 1 {
			t.Errorf("moved %s, read back %s (created %v, want %v), campaign counts %v; want shipped, counted",
				moved.Status, got.Status, got.CreatedAt, old.CreatedAt, camp.LiveData.StatusCounts)
		}
		p, err := s.ListRecipients(ctx, orgID, c.CampaignID, recipient.Query{Page: gifting.PageRequest{Page: 1, Limit: 10}})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Recipients) != 3 || p.Recipients[2].RecipientID != old.RecipientID {
			t.Errorf("after the move the list has %d recipients, the legacy one not last", len(p.Recipients))
		}
	})
}

// writeLegacyRecipient writes a recipient of c for ct as the code before
// derived keys did: its items (dynamo.LegacyRecipientItems) and the
// campaign's counters, in one transaction.
func writeLegacyRecipient(t *testing.T, s *dynamo.Store, orgID string, c campaign.Campaign, ct gifting.Contact) recipient.Recipient {
	t.Helper()
	ctx := context.Background()
	tmpl, err := s.Template(ctx, orgID, c.CampaignData.EmailTemplateID)
	if err != nil {
		t.Fatal(err)
	}
	landing, claim := dynamo.NewLegacyPageIDs()
	r := recipient.New(recipient.NewSpec{
		RecipientID: s.NewID(), OrgID: orgID, CampaignID: c.CampaignID, CampaignName: c.Name, Contact: ct,
		SourceType: "api", LandingPageID: landing, ClaimPageID: claim, PublicBaseURL: "https://gifts.test",
		Emails: tmpl.TemplateData.Emails, Credits: c.CampaignData.CreditsPerRecipient, Now: s.Now(), ClaimExpiresInDays: c.ClaimExpiry(),
	})
	rec, marker, err := s.LegacyRecipientItems(orgID, r, map[string]int{"postDelivery": 0, "postAcknowledgement": 24})
	if err != nil {
		t.Fatal(err)
	}
	table := s.Table()
	_, err = testenv.Client(t).TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: &table, Item: rec}},
		{Put: &types.Put{TableName: &table, Item: marker}},
		s.CampaignCounterUpdate(orgID, c.CampaignID, r.Status, 1, r.CreditsCharged),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRecipientPackedBeforeEmailSets: a recipient written by the code
// before email sets (its record deflated without the dictionary, its
// rendered emails and delays stored with it, its due key spelled out)
// reads back as written, is found and claimed by the tick, moves along,
// and schedules its post-delivery email from its stored delays.
func TestRecipientPackedBeforeEmailSets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, c := launchFixtureOf(t, s, "packed", 1, "tmpl-meeting-booker")
	ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, c.CampaignData.ContactListIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	contacts, err := s.ContactsByID(ctx, orgID, ids)
	if err != nil || len(contacts) != 1 {
		t.Fatalf("contact: %v %v", contacts, err)
	}
	tmpl, err := s.Template(ctx, orgID, c.CampaignData.EmailTemplateID)
	if err != nil {
		t.Fatal(err)
	}
	landing, claim := dynamo.NewLegacyPageIDs()
	old := recipient.New(recipient.NewSpec{
		RecipientID: dynamo.RecipientIDFor(c.CampaignID, contacts[0].ContactID), OrgID: orgID, CampaignID: c.CampaignID,
		CampaignName: c.Name, Contact: contacts[0], SourceType: "api", LandingPageID: landing, ClaimPageID: claim,
		PublicBaseURL: "https://gifts.test", Emails: tmpl.TemplateData.Emails, Credits: c.CampaignData.CreditsPerRecipient,
		Now: s.Now(), ClaimExpiresInDays: c.ClaimExpiry(),
	})
	it, err := s.PackedRecipientItemBeforeSets(orgID, old, map[string]int{"postDelivery": 2})
	if err != nil {
		t.Fatal(err)
	}
	table := s.Table()
	if _, err := testenv.Client(t).TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: &table, Item: it}},
		s.CampaignCounterUpdate(orgID, c.CampaignID, old.Status, 1, old.CreditsCharged),
	}}); err != nil {
		t.Fatal(err)
	}

	due, err := s.DueItems(ctx, s.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, d := range due {
		if d.Ref == gifting.RecipientRef(c.CampaignID, old.RecipientID) {
			found = true
			if claimed, err := s.ClaimDue(ctx, d, s.Now().Add(dynamo.DueLease)); err != nil || !claimed {
				t.Errorf("claim of its invitation as due: %v %v", claimed, err)
			}
		}
	}
	if !found {
		t.Errorf("its invitation is not due: %+v", due)
	}
	got, err := s.Recipient(ctx, orgID, c.CampaignID, old.RecipientID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Emails.AddressConfirmation.Subject == "" || got.Emails != old.Emails || got.URLs != old.URLs || got.ContactDetails != old.ContactDetails {
		t.Errorf("read back as %+v, want %+v", got.Emails, old.Emails)
	}
	testenv.Claim(t, s, orgID, c.CampaignID, old.RecipientID)
	testenv.Ship(t, s, orgID, c.CampaignID, old.RecipientID) // its order ships it (issue 31)
	for _, to := range []gifting.RecipientStatus{gifting.RecipientDelivered} {
		if _, err := testenv.Recipients(s).Move(ctx, orgID, c.CampaignID, old.RecipientID, to); err != nil {
			t.Fatal(err)
		}
	}
	got, err = s.Recipient(ctx, orgID, c.CampaignID, old.RecipientID)
	if err != nil {
		t.Fatal(err)
	}
	pd := got.Emails.PostDelivery
	at, perr := time.Parse(time.RFC3339, pd.ScheduledTime)
	if got.Status != gifting.RecipientDelivered || pd.Subject != old.Emails.PostDelivery.Subject || pd.Subject == "" ||
		perr != nil || at.Sub(got.UpdatedAt) != 2*time.Hour {
		t.Errorf("delivered: status %s, post-delivery %q at %q (moved %v); want it 2 h after the move, from the stored delays",
			got.Status, pd.Subject, pd.ScheduledTime, got.UpdatedAt)
	}
}
