package dynamo_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// beforeRecipientWriteDB runs do once, just before the first transaction
// that writes a recipient: a change racing an add-recipient.
type beforeRecipientWriteDB struct {
	dynamo.DB
	once sync.Once
	do   func()
}

func (d *beforeRecipientWriteDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put == nil {
			continue
		}
		if sk, ok := it.Put.Item["SK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "RCPT#") {
			d.once.Do(d.do)
		}
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// TestPauseRacingAddRecipient pauses a live campaign between an
// add-recipient's read of it and its write: the recipient must not be
// written invited (its invitation would go out from a paused campaign),
// but pending, and counted so.
func TestPauseRacingAddRecipient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := testenv.Store(t)
	db := &beforeRecipientWriteDB{DB: testenv.Client(t)}
	s := dynamo.New(db, base.Table())
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 10)
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	paused := false
	db.do = func() {
		_, err := testenv.Campaigns(base).Move(ctx, orgID, c.CampaignID, campaign.Pause, "user-2", "")
		paused = err == nil
	}
	in := addInput(orgID, c.CampaignID, "jane@example.com")
	in.Invite = true
	res, err := s.AddRecipient(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !paused {
		t.Fatal("the pause did not run before the add's write")
	}
	if res.Invited() || res.Response.EmailSent || res.Recipient.Status != gifting.RecipientPending {
		t.Errorf("add racing a pause: invited %v, emailSent %v, status %s; want a pending recipient, nothing to send",
			res.Invited(), res.Response.EmailSent, res.Recipient.Status)
	}
	got, err := s.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	if counts := got.LiveData.StatusCounts; got.Status != campaign.InProgress ||
		counts[gifting.RecipientPending] != 1 || counts[gifting.RecipientInviteSent] != 0 || got.TotalRecipients != 1 {
		t.Errorf("campaign %s, %d recipients, counts %v; want in_progress with 1 pending", got.Status, got.TotalRecipients, counts)
	}
}
