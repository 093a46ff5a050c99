package recipient_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// The decisions of add-recipient, with no storage: what the first read
// allows (Admit) and the plan of the transaction (DecideAdd).

var at = time.Date(2026, 11, 23, 9, 2, 0, 0, time.UTC)

// wantError checks err's code and message exactly: they are what the
// caller of the API reads.
func wantError(t *testing.T, err error, code gifting.Code, msg string) {
	t.Helper()
	var e *gifting.Error
	if !errors.As(err, &e) || e.Code != code || e.Message != msg {
		t.Errorf("err = %v; want %s %q", err, code, msg)
	}
}

// liveCampaign is a live campaign priced at price with one gift, as the
// campaign slice hands it to this one.
func liveCampaign(price int64) recipient.Campaign {
	return campaignOf(campaign.Campaign{CampaignID: "C1", Name: "Spring", Status: campaign.Live,
		CampaignData: campaign.Data{CreditsPerRecipient: price, GiftIDs: []string{"g1"}}})
}

func campaignOf(c campaign.Campaign) recipient.Campaign { return c.ForRecipients() }

func addIn() recipient.AddInput {
	return recipient.AddInput{OrgID: "acme", CampaignID: "C1", SourceType: "api", PublicBaseURL: "https://gifts.test",
		Contact: gifting.ContactInput{MailID: "jane@example.com", FirstName: "Jane"}}
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	ptr := func(c recipient.Campaign) *recipient.Campaign { return &c }
	deleted := campaignOf(campaign.Campaign{CampaignID: "C1", Status: campaign.Live, IsDeleted: true})
	completed := campaignOf(campaign.Campaign{CampaignID: "C1", Status: campaign.Completed})
	for _, tt := range []struct {
		name string
		b    recipient.AddBasics
		code gifting.Code
		msg  string
	}{
		{"no campaign", recipient.AddBasics{HasWallet: true, Balance: 100}, gifting.CodeNotFound, `campaign "C1" was not found`},
		{"a deleted campaign", recipient.AddBasics{Campaign: &deleted, HasWallet: true, Balance: 100}, gifting.CodeNotFound, `campaign "C1" was not found`},
		{"a completed campaign", recipient.AddBasics{Campaign: &completed, HasWallet: true, Balance: 100}, gifting.CodeConflict,
			`campaign "C1" is completed and no longer accepts recipients`},
		{"no wallet", recipient.AddBasics{Campaign: ptr(liveCampaign(40))}, gifting.CodeNotFound, `organization "acme" was not found`},
		{"a price stored out of bounds", recipient.AddBasics{Campaign: ptr(liveCampaign(-1)), HasWallet: true, Balance: 100}, gifting.CodeConflict,
			`campaign "C1" is priced at -1 credits a recipient, outside 0 to 1000000; set campaignData.creditsPerRecipient`},
		{"too few credits", recipient.AddBasics{Campaign: ptr(liveCampaign(40)), HasWallet: true, Balance: 39}, gifting.CodeInsufficientCredits,
			"adding a recipient to this campaign costs 40 credits but the wallet holds 39; top up the wallet"},
		{"accepted", recipient.AddBasics{Campaign: ptr(liveCampaign(40)), HasWallet: true, Balance: 40}, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := recipient.Admit(addIn(), tt.b)
			if tt.code == "" {
				if err != nil || c.CampaignID != "C1" || c.Price != 40 {
					t.Errorf("Admit = %+v, %v; want the campaign", c, err)
				}
				return
			}
			wantError(t, err, tt.code, tt.msg)
		})
	}
}

// addState is the state of adding jane to a live campaign priced at 40
// with one catalog gift and an invitation due at once; found, when not
// nil, is the contact that has her email.
func addState(found *contact.Contact) recipient.AddState {
	c := liveCampaign(40)
	gift := gifting.Gift{GiftID: "g1", Name: "Coffee", Price: 35, Currency: "USD", IsDelightloop: true}
	kit := recipient.NewKit(c, map[string]gifting.EmailTemplate{"addressConfirmation": {Subject: "Hi {{firstName}}", HTML: "<p>Hi</p>"}},
		&gift, "https://gifts.test/")
	kit.EmailSet = "set1"
	st := recipient.AddState{Campaign: c, Kit: kit, Holding: contact.Holding{Contact: contact.Contact{ContactID: "k-new"}},
		IDs: recipient.IDs{OrgID: "acme", RecipientID: "R1", LandingPageID: "lp", ClaimPageID: "cp"}}
	if found != nil {
		st.Slot = recipient.Slot{Holder: found.ContactID, Contact: found, Taken: true}
		st.Holding = contact.Holding{Found: true, Contact: *found}
	}
	return st
}

// decideAdd is DecideAdd settled with its debit decided on balance, as
// the App does (wallet.ApplyFrom).
func decideAdd(in recipient.AddInput, st recipient.AddState, balance int64) (recipient.AddPlan, error) {
	p, err := recipient.DecideAdd(in, st, at)
	if err != nil {
		return p, err
	}
	w, err := wallet.Decide(balance, p.Debit, "E1", at)
	if err != nil {
		return p, err
	}
	return p.Settled(w)
}

// TestDecideAdd: the plan of an add-recipient is the debit decided by
// wallet.Decide, the contact created or merged showing the campaign, the
// recipient pending (its invitation claimed when it goes out at once), its
// counters, the record of the answer with the balance after, and the
// recipient.created message.
func TestDecideAdd(t *testing.T) {
	t.Parallel()
	in := addIn()
	in.Invite = true
	in.AssignTo = recipient.AssignedUser{UserID: "u1", UserName: "u1"}
	in.Idempotency = &gifting.Idempotent[recipient.Added]{Key: gifting.IdempotencyKey{Scope: "add-recipient", Key: "k", Hash: "h"},
		Status: 200, Render: func(a recipient.Added) ([]byte, error) { return json.Marshal(a) }}

	t.Run("a new contact", func(t *testing.T) {
		p, err := decideAdd(in, addState(nil), 100)
		if err != nil {
			t.Fatal(err)
		}
		w := p.Wallet
		if w.Before != 100 || w.After != 60 || w.Entry.Type != wallet.Debit || w.Entry.Amount != 40 || w.Entry.EntryID != "E1" ||
			w.Entry.RecipientID != "R1" || w.Entry.Reason != "recipient added to campaign" {
			t.Errorf("wallet plan %+v; want 100 → 60, a debit of 40 for R1", w)
		}
		if c := p.Contact.Contact; !p.Contact.Created() || c.ContactID != "k-new" || len(c.Campaigns) != 1 || c.Campaigns[0].Status != "pending" {
			t.Errorf("contact %+v; want created as k-new, showing the campaign pending", p.Contact)
		}
		r := p.Recipient
		if r.RecipientID != "R1" || r.Version != 1 || r.EmailSet != "set1" || r.Status != gifting.RecipientPending ||
			r.CreditsCharged != 40 || r.URLs.LandingPage != "https://gifts.test/gift/lp" || !r.AssignedTo("u1") ||
			r.Emails.AddressConfirmation.ClaimedAt == nil || !p.Inviting || r.SelectedGift.GiftID != "g1" {
			t.Errorf("recipient %+v; want R1 pending, its invitation claimed, the gift selected", r)
		}
		var rec recipient.Added
		if p.Record == nil || json.Unmarshal(p.Record.Body, &rec) != nil || rec.RemainingBalance != 60 || !rec.EmailSent || rec.ContactID != "k-new" {
			t.Errorf("idempotency record %+v; want the answer with 60 left", p.Record)
		}
		if len(p.Messages) != 1 || p.Messages[0].Type != gifting.ChangeRecipientCreated || p.Result.Response != rec {
			t.Errorf("messages %v, result %+v", p.Messages, p.Result.Response)
		}
	})
	t.Run("the contact that has the email", func(t *testing.T) {
		found := &contact.Contact{ContactID: "k1", MailID: "jane@example.com", LastName: "Doe",
			ListIDs: []string{"l1"}, Stored: contact.Stored{Version: 7}}
		p, err := decideAdd(in, addState(found), 100)
		if err != nil {
			t.Fatal(err)
		}
		if c := p.Contact.Contact; p.Contact.Created() || c.Stored.Version != 7 || c.ContactID != "k1" || c.FirstName != "Jane" || c.LastName != "Doe" ||
			p.Recipient.ContactDetails.ContactID != "k1" {
			t.Errorf("contact %+v; want k1 (version 7, as read) merged with the input", p.Contact)
		}
		p.Contact.Contact.ListIDs[0] = "changed"
		if found.ListIDs[0] != "l1" {
			t.Error("the plan shares its lists with the contact read")
		}
	})

	refusals := []struct {
		name    string
		st      func() recipient.AddState
		balance int64
		check   func(t *testing.T, err error)
	}{
		{"a recipient written before derived keys", func() recipient.AddState {
			st := addState(&contact.Contact{ContactID: "k1"})
			st.LegacyRecipient = true
			return st
		}, 100, func(t *testing.T, err error) {
			wantError(t, err, gifting.CodeConflict, `contact "k1" is already a recipient of campaign "C1"`)
		}},
		{"the holder deleted between the reads", func() recipient.AddState {
			st := addState(nil)
			st.Slot.Holder = "k1"
			st.Holding = contact.Holding{Gone: true}
			return st
		}, 100, func(t *testing.T, err error) {
			if !errors.Is(err, recipient.ErrContactChanged) {
				t.Errorf("err = %v; want ErrContactChanged (read again)", err)
			}
		}},
		{"priced below its catalog gift", func() recipient.AddState {
			st := addState(nil)
			st.Campaign = campaignOf(campaign.Campaign{CampaignID: "C1", Status: campaign.Live,
				CampaignData: campaign.Data{CreditsPerRecipient: 30, PriceSet: true, GiftIDs: []string{"g1"}}})
			return st
		}, 100, func(t *testing.T, err error) {
			wantError(t, err, gifting.CodeConflict,
				`campaign "C1" is priced at 30 credits a recipient, below the catalog price of its gifts; update campaignData.creditsPerRecipient`)
		}},
		{"a balance that moved below the price", func() recipient.AddState { return addState(nil) }, 39, func(t *testing.T, err error) {
			wantError(t, err, gifting.CodeInsufficientCredits, "this needs 40 credits but the wallet holds 39")
		}},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decideAdd(in, tt.st(), tt.balance)
			tt.check(t, err)
		})
	}
}

// TestAddReplay: a request's key answers with the first response while its
// record lives and answers the same request; another request under it is
// IDEMPOTENCY_KEY_REUSED.
func TestAddReplay(t *testing.T) {
	t.Parallel()
	in := addIn()
	in.Idempotency = &gifting.Idempotent[recipient.Added]{Key: gifting.IdempotencyKey{Scope: "add-recipient", Key: "k", Hash: "h"}}
	rec := func(hash string, expires time.Time) *gifting.IdempotencyRecord {
		return &gifting.IdempotencyRecord{Hash: hash, Status: 200, Body: []byte(`{"a":1}`), ExpiresAt: expires.Unix()}
	}
	if stored, err := in.Replay(rec("h", at.Add(time.Hour)), at); err != nil || stored == nil || string(stored.Body) != `{"a":1}` {
		t.Errorf("same request: %v, %v; want the stored answer", stored, err)
	}
	if stored, err := in.Replay(rec("h", at.Add(-time.Second)), at); err != nil || stored != nil {
		t.Errorf("expired record: %v, %v; want nothing", stored, err)
	}
	_, err := in.Replay(rec("other", at.Add(time.Hour)), at)
	wantError(t, err, gifting.CodeIdempotencyMismatch,
		`the Idempotency-Key "k" was already used for a different request; use a new key for a new request`)
	in.Idempotency = nil
	if stored, err := in.Replay(rec("other", at.Add(time.Hour)), at); stored != nil || err != nil {
		t.Errorf("no key: %v, %v; want nothing", stored, err)
	}
}
