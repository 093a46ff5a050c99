package dynamo_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

func newCampaign(t *testing.T, s *dynamo.Store, orgID string) campaign.Campaign {
	t.Helper()
	c, err := testenv.CreateCampaign(context.Background(), s, orgID, campaign.Campaign{
		Name: "Q3 thank-you", CreatedBy: "user-1",
		CampaignData: campaign.Data{CreditsPerRecipient: 25},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func transact(t *testing.T, items ...types.TransactWriteItem) error {
	t.Helper()
	_, err := testenv.Client(t).TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: items})
	return err
}

func TestCampaignCounters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	c := newCampaign(t, s, orgID)

	t.Run("new campaign has every status at zero", func(t *testing.T) {
		got, err := s.Campaign(ctx, orgID, c.CampaignID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != campaign.Draft || len(got.LiveData.StatusCounts) != len(gifting.RecipientStatuses) {
			t.Fatalf("status %s, counts %v; want draft and every status", got.Status, got.LiveData.StatusCounts)
		}
	})
	t.Run("counter update adds to total, status and credits", func(t *testing.T) {
		// Invited recipients are counted only in a campaign that sends.
		testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
		if err := transact(t, s.CampaignCounterUpdate(orgID, c.CampaignID, gifting.RecipientInviteSent, 1, 25)); err != nil {
			t.Fatal(err)
		}
		if err := transact(t, s.CampaignCounterUpdate(orgID, c.CampaignID, gifting.RecipientInviteSent, 2, 50)); err != nil {
			t.Fatal(err)
		}
		if err := transact(t, s.CampaignStatusMove(orgID, c.CampaignID, gifting.RecipientInviteSent, gifting.RecipientAddressConfirmed)); err != nil {
			t.Fatal(err)
		}
		if err := transact(t, s.CampaignFeedbackAdd(orgID, c.CampaignID, 1)); err != nil {
			t.Fatal(err)
		}
		got, err := s.Campaign(ctx, orgID, c.CampaignID)
		if err != nil {
			t.Fatal(err)
		}
		sc := got.LiveData.StatusCounts
		if got.TotalRecipients != 3 || sc[gifting.RecipientInviteSent] != 2 || sc[gifting.RecipientAddressConfirmed] != 1 ||
			got.LiveData.CreditsSpent != 75 || got.LiveData.FeedbackCount != 1 {
			t.Fatalf("total %d, counts %v, credits %d, feedback %d; want 3, invite_sent 2 + address_confirmed 1, 75, 1",
				got.TotalRecipients, sc, got.LiveData.CreditsSpent, got.LiveData.FeedbackCount)
		}
	})
	t.Run("counter update of a missing campaign is cancelled", func(t *testing.T) {
		err := transact(t, s.CampaignCounterUpdate(orgID, "nope", gifting.RecipientInviteSent, 1, 25))
		if err == nil {
			t.Fatal("transaction succeeded on a missing campaign")
		}
	})
	t.Run("another org's campaign is not found", func(t *testing.T) {
		other, _ := testenv.Org(t, s, "globex", 0)
		if _, err := s.Campaign(ctx, other, c.CampaignID); gifting.ErrorCode(err) != gifting.CodeNotFound {
			t.Fatalf("err = %v, want NOT_FOUND", err)
		}
	})
}
