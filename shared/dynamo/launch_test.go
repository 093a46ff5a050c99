package dynamo_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// editBeforeLaunchDB runs edit once, just before the first transaction
// that writes a launch record: an edit racing the launch.
type editBeforeLaunchDB struct {
	dynamo.DB
	once sync.Once
	edit func()
}

func (d *editBeforeLaunchDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put != nil && strings.HasPrefix(fmt.Sprint(it.Put.Item["SK"]), "&{LAUNCH#") {
			d.once.Do(d.edit)
		}
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// launchFixture is an org with credits, a list of n contacts and a draft
// campaign over it priced at 10 credits.
func launchFixture(t *testing.T, s *dynamo.Store, n int) (orgID string, c gifting.Campaign) {
	t.Helper()
	ctx := context.Background()
	orgID, _ = testenv.Org(t, s, "acme", 1_000)
	l, err := s.CreateContactList(ctx, orgID, "user-1", "list", "")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]gifting.ContactInput, n)
	for i := range in {
		in[i] = gifting.ContactInput{MailID: fmt.Sprintf("c%d@example.com", i), FirstName: "C"}
	}
	if _, err := s.AddContactsToList(ctx, orgID, l.ListID, in, gifting.Source{Type: "test"}); err != nil {
		t.Fatal(err)
	}
	cat, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	c, err = s.CreateCampaign(ctx, orgID, gifting.Campaign{Name: "Launch", CreatedBy: "user-1", CampaignData: gifting.CampaignData{
		ContactListID: l.ListID, ContactListIDs: []string{l.ListID}, GiftIDs: []string{cat.Gifts[0].GiftID},
		CreditsPerRecipient: 10, PriceSet: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	return orgID, c
}

func TestLaunchRacingAnEdit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := testenv.Store(t)
	db := &editBeforeLaunchDB{DB: testenv.Client(t)}
	s := dynamo.New(db, base.Table())
	orgID, c := launchFixture(t, s, 3)
	db.edit = func() {
		edited := c
		edited.Name = "Edited"
		if _, err := base.UpdateCampaign(ctx, orgID, edited, "user-2"); err != nil {
			t.Error(err)
		}
	}
	_, err := s.LaunchCampaign(ctx, orgID, c.CampaignID, "user-1")
	if gifting.ErrorCode(err) != gifting.CodeConflict || !strings.Contains(err.Error(), "edited") {
		t.Fatalf("err = %v, want CONFLICT saying the campaign was edited", err)
	}
	w, err := s.Wallet(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	if w.Balance != 1_000 || got.Status != gifting.CampaignDraft {
		t.Errorf("balance %d, status %s; want 1000 and draft: nothing changes", w.Balance, got.Status)
	}
	// Launching again prices the edited draft.
	if _, err := s.LaunchCampaign(ctx, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
}

func TestLaunchSlicesRunTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, c := launchFixture(t, s, 7)
	l, err := s.LaunchCampaign(ctx, orgID, c.CampaignID, "user-1")
	if err != nil {
		t.Fatal(err)
	}
	if l.CreditsDeducted != 70 || l.RemainingBalance != 930 {
		t.Fatalf("launch = %+v; want 70 taken, 930 left", l)
	}
	// Every slice delivered twice (SQS is at-least-once), the second copy
	// running after the first.
	cursor := ""
	for step := 0; ; step++ {
		if step > 10 {
			t.Fatal("the launch job does not finish")
		}
		next, done, err := s.LaunchSlice(ctx, orgID, c.CampaignID, cursor, "https://gifts.test")
		if err != nil {
			t.Fatal(err)
		}
		again, doneAgain, err := s.LaunchSlice(ctx, orgID, c.CampaignID, cursor, "https://gifts.test")
		if err != nil {
			t.Fatal(err)
		}
		if done {
			if !doneAgain {
				t.Errorf("a finished launch's duplicate slice continues with %q", again)
			}
			break
		}
		cursor = next
	}
	got, err := s.Campaign(ctx, orgID, c.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	w, err := s.Wallet(ctx, orgID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != gifting.CampaignLive || got.TotalRecipients != 7 || got.LiveData.CreditsSpent != 70 || w.Balance != 930 {
		t.Errorf("status %s, %d recipients, %d credits spent, balance %d; want live, 7, 70, 930",
			got.Status, got.TotalRecipients, got.LiveData.CreditsSpent, w.Balance)
	}
	table := s.Table()
	out, err := testenv.Client(t).Query(ctx, &dynamodb.QueryInput{
		TableName: &table, KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, ":p": &types.AttributeValueMemberS{Value: "RCPT#" + c.CampaignID + "#"}},
		Select:                    types.SelectCount, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 7 {
		t.Errorf("%d recipient items, want 7", out.Count)
	}
}
