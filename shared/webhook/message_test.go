package webhook_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/webhook"
)

// TestHydrate: each recipient a message names is read once, and its
// message carries it as it is now (with the status it left, for a status
// change); a recipient that is gone leaves its reference, and a message
// held whole is left as it is.
func TestHydrate(t *testing.T) {
	t.Parallel()
	created := webhook.RecipientRef{CampaignID: "c1", RecipientID: "r1"}
	moved := webhook.RecipientRef{CampaignID: "c1", RecipientID: "r1", PreviousStatus: gifting.RecipientPending}
	gone := webhook.RecipientRef{CampaignID: "c2", RecipientID: "r2"}
	whole := campaign.Campaign{CampaignID: "c1"}
	msgs := []webhook.Message{{ID: "a.00", Data: created}, {ID: "a.01", Data: moved}, {ID: "a.02", Data: gone}, {ID: "a.03", Data: whole}}

	refs := webhook.Refs(msgs)
	if len(refs) != 2 || refs[0] != created.Key() || refs[1] != gone.Key() {
		t.Errorf("refs %v; want r1 once, then r2", refs)
	}
	now := gifting.Recipient{CampaignID: "c1", RecipientID: "r1", Status: gifting.RecipientInviteSent}
	got := webhook.Hydrate(msgs, map[webhook.RecipientKey]gifting.Recipient{created.Key(): now})
	if r, ok := got[0].Data.(gifting.Recipient); !ok || r.Status != gifting.RecipientInviteSent {
		t.Errorf("created: %#v; want the recipient as it is now", got[0].Data)
	}
	if s, ok := got[1].Data.(gifting.RecipientStatusChange); !ok || s.Status != gifting.RecipientInviteSent || s.PreviousStatus != gifting.RecipientPending {
		t.Errorf("status change: %#v; want the recipient now, from pending", got[1].Data)
	}
	if got[2].Data != gone || got[3].Data.(campaign.Campaign).CampaignID != "c1" {
		t.Errorf("gone and whole: %#v, %#v; want them as they were", got[2].Data, got[3].Data)
	}
	if msgs[0].Data != created {
		t.Error("Hydrate changed the messages it was given")
	}
}
