package dynamo_test

import (
	"context"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestStatusChangeRecordedOnceWhenMovesRace lets a claim and an expiry of
// the same pending recipient race: the other move commits just before the
// one under test writes its transaction, whose version condition then
// fails. The losing move rolls back with no record, so the feed holds
// exactly one recipient.status_changed, the winner's, and the ledger sums
// to the balance.
func TestStatusChangeRecordedOnceWhenMovesRace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// winner commits first, through a store that is not raced.
		winner func(t *testing.T, s *dynamo.Store, orgID, campaignID, recipientID string)
		// loser is the move under test; it must give up cleanly.
		loser func(t *testing.T, s *dynamo.Store, orgID, campaignID, recipientID string)
		want  gifting.RecipientStatus
	}{
		{
			name: "an expiry losing to a claim",
			winner: func(t *testing.T, s *dynamo.Store, orgID, campaignID, recipientID string) {
				testenv.Claim(t, s, orgID, campaignID, recipientID)
			},
			loser: func(t *testing.T, s *dynamo.Store, orgID, campaignID, recipientID string) {
				expired, err := testenv.Recipients(s).Expire(context.Background(), orgID, campaignID, recipientID, false)
				if err != nil || expired {
					t.Errorf("expiry after a claim: expired %v, %v; want nothing done", expired, err)
				}
			},
			want: gifting.RecipientProcessing, // a claim opens its order
		},
		{
			name: "a claim losing to an expiry",
			winner: func(t *testing.T, s *dynamo.Store, orgID, campaignID, recipientID string) {
				if expired, err := testenv.Recipients(s).Expire(context.Background(), orgID, campaignID, recipientID, false); err != nil || !expired {
					t.Errorf("expiry: expired %v, %v", expired, err)
				}
			},
			loser: func(t *testing.T, s *dynamo.Store, orgID, campaignID, recipientID string) {
				_, err := testenv.Recipients(s).Claim(context.Background(), orgID, campaignID, recipientID, recipient.ClaimInput{
					GiftID: "gift-artisan-coffee",
					ShippingAddress: recipient.ShippingAddress{
						Line1: "1 Main Street", City: "Springfield", State: "IL", Zip: "62701", Country: "US"},
				})
				if err != recipient.ErrGiftExpired {
					t.Errorf("claim after an expiry: %v; want the gift expired (GONE)", err)
				}
			},
			want: gifting.RecipientExpired,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			s, base, db, clk := racingStore(t)
			orgID, _ := testenv.Org(t, s, "acme", 100)
			c := giftCampaign(t, s, orgID, 40)
			added, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
			if err != nil {
				t.Fatal(err)
			}
			id := added.Response.RecipientID
			db.do = func() { tc.winner(t, base, orgID, c.CampaignID, id) }
			tc.loser(t, s, orgID, c.CampaignID, id)

			got := recorded[recipient.StatusChange](t, s, clk, orgID, gifting.ChangeRecipientStatus)
			if len(got) != 1 || got[0].RecipientID != id || got[0].PreviousStatus != gifting.RecipientPending || got[0].Status != tc.want {
				t.Errorf("recorded status changes %+v; want exactly one, from pending to %s", got, tc.want)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}
