package dynamo_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// updateMessages rewrites the golden files of TestChangeMessageBytes.
var updateMessages = flag.Bool("update-messages", false, "rewrite testdata/messages")

// messageCases are one message of every type the change feed and the
// webhooks send, with data that exercises the encoding: escaped HTML
// characters, a line separator, text outside ASCII, numbers, nulls, empty
// and absent optional fields. For the messages that name a recipient
// (recipient.created, recipient.status_changed) now is the recipient as
// it is when the message is read (nil: it is gone).
func messageCases() []struct {
	name string
	msg  gifting.Change
	now  *gifting.Recipient
} {
	at := time.Date(2026, 11, 23, 10, 5, 0, 120_000_000, time.UTC)
	later := at.Add(90 * time.Minute)
	c := campaign.Campaign{CampaignID: "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", OrganizationID: "acme", CreatedBy: "user-1",
		Status: campaign.Draft, CreatedAt: at, UpdatedAt: at, Name: "Spring <gifts> & \u2028 thanks — Zoë",
		Description: `"quoted"`, TotalRecipients: 3}
	c.CampaignData.GiftIDs = []string{"gift-1"}
	launched := c.Launched(at, "user-2", 3)
	live := launched.Live(later, 2)
	paused := live.Moved(campaign.Pause, later, "user-3", "holiday")
	resumed := paused.Moved(campaign.Resume, later, "user-3", "")
	completed := resumed.Moved(campaign.Complete, later, "user-3", "done")
	r := gifting.Recipient{RecipientID: "01KAQ0YB3MJ4N6P8R0T2V4X6Z8", CampaignID: c.CampaignID, OrganizationID: "acme",
		LandingPageID: "lp_1", ClaimPageID: "cp_1", Status: gifting.RecipientPending, CreatedAt: at, UpdatedAt: at,
		CampaignName: c.Name, ShipmentInfo: map[string]any{"carrier": "DHL <express>", "boxes": 2.0}, CreditsCharged: 35}
	r.ContactDetails = gifting.ContactDetails{ContactID: "ct_1", FirstName: "Zoë", LastName: "O'Brien & Co", Email: "zoe@example.com"}
	moved := r
	moved.Status, moved.UpdatedAt = gifting.RecipientInviteSent, later
	rated := moved
	rated.Feedback = gifting.Feedback{Rating: &gifting.Rating{Value: "love", SubmittedAt: later},
		Message: []gifting.FeedbackMessage{{Type: "text", SubmittedAt: later, Text: "Thanks <3 & cheers"}}}
	a := audience.Audience{ID: "01KAQ0YD0000000000000000AU", OrganizationID: "acme", CreatedBy: "user-1",
		Name: "CTOs in Zürich", Status: audience.Building, Tags: []string{"<vip>", "b&b"}, CreatedAt: at, UpdatedAt: at}
	entry := func(t wallet.EntryType, amount, after int64) wallet.Entry {
		e := wallet.Entry{EntryID: "01KAQ0YF0000000000000000LE", Type: t, Amount: amount, BalanceAfter: after, CreatedAt: at}
		if t != wallet.TopUp {
			e.CampaignID, e.RecipientID, e.Reason = c.CampaignID, r.RecipientID, "recipient added to campaign"
		}
		return e
	}
	change := gifting.NewChange
	return []struct {
		name string
		msg  gifting.Change
		now  *gifting.Recipient
	}{
		{"campaign.launched", change(gifting.ChangeCampaignLaunched, launched), nil},
		{"campaign.live", change(gifting.ChangeCampaignLive, live), nil},
		{"campaign.paused", change(gifting.ChangeCampaignPaused, paused), nil},
		{"campaign.resumed", change(gifting.ChangeCampaignResumed, resumed), nil},
		{"campaign.completed", change(gifting.ChangeCampaignCompleted, completed), nil},
		{"recipient.created", change(gifting.ChangeRecipientCreated, r), &moved},
		{"recipient.created-gone", change(gifting.ChangeRecipientCreated, r), nil},
		{"recipient.status_changed", change(gifting.ChangeRecipientStatus,
			gifting.RecipientStatusChange{Recipient: moved, PreviousStatus: gifting.RecipientPending}), &rated},
		{"recipient.status_changed-gone", change(gifting.ChangeRecipientStatus,
			gifting.RecipientStatusChange{Recipient: moved, PreviousStatus: gifting.RecipientPending}), nil},
		{"recipient.feedback", change(gifting.ChangeRecipientFeedback, rated), nil},
		{"wallet.debited", change(gifting.ChangeWalletDebited, entry(wallet.Debit, 35, 65)), nil},
		{"wallet.refunded", change(gifting.ChangeWalletRefunded, entry(wallet.Refund, 10, 75)), nil},
		{"wallet.topped_up", change(gifting.ChangeWalletToppedUp, entry(wallet.TopUp, 5000, 5075)), nil},
		{"audience.ready", change(gifting.ChangeAudienceReady, audience.Built(a, later, "")), nil},
		{"audience.failed", change(gifting.ChangeAudienceFailed, audience.Built(a, later, "no contact matches <all>")), nil},
	}
}

// TestChangeMessageBytes: each type of message, written into a change
// record as storage writes it and read back as the change feed and the
// webhooks send it (the recipient it names filled in as it is now), is
// byte for byte what testdata/messages holds, which the code before the
// webhook slice wrote (go test -run TestChangeMessageBytes
// -update-messages rewrites it). A message the record holds whole is
// stored as those bytes too.
func TestChangeMessageBytes(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 10, 6, 0, 0, time.UTC)
	for _, tt := range messageCases() {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, stored, err := dynamo.SentMessage("acme", "01KAQ0YH0000000000000000RC", at, tt.msg, tt.now)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "messages", tt.name+".json")
			if *updateMessages {
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got)+"\n" != string(want) {
				t.Errorf("sent %s\nwant %s", got, want)
			}
			// A message held whole is stored as it is sent, so code of
			// either version reads and sends what the other wrote.
			if _, byRef := tt.msg.Data.(gifting.Recipient); !byRef && tt.msg.Type != gifting.ChangeRecipientStatus && stored+"\n" != string(want) {
				t.Errorf("stored %s\nwant %s", stored, want)
			}
		})
	}
}
