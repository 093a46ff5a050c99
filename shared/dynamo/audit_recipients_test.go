package dynamo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// AuditRecipients returns the campaign's recipients as written, with their emails, and nothing else:
// not another campaign's recipients, not a launch tombstone in the campaign's range.
func TestAuditRecipientsReadsTheTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "audit", 1000)
	a, b := giftCampaign(t, s, orgID, 10), giftCampaign(t, s, orgID, 10)
	var want []string
	for _, email := range []string{"ann@example.com", "bob@example.com", "cy@example.com"} {
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, a.CampaignID, email))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, res.Recipient.RecipientID)
	}
	if _, err := testenv.Recipients(s).Write(ctx, addInput(orgID, b.CampaignID, "ann@example.com")); err != nil {
		t.Fatal(err)
	}
	tomb := dynamo.RecipientKey(orgID, a.CampaignID, "0TOMBSTONE0000000000000000")
	tomb["gone"] = &types.AttributeValueMemberBOOL{Value: true}
	if _, err := testenv.Client(t).PutItem(ctx, &dynamodb.PutItemInput{TableName: new(s.Table()), Item: tomb}); err != nil {
		t.Fatal(err)
	}

	got, err := s.AuditRecipients(ctx, orgID, a.CampaignID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.RecipientID)
		if r.CampaignID != a.CampaignID || r.Emails.AddressConfirmation.Subject == "" {
			t.Errorf("recipient %s: campaign %s, invitation subject %q; want campaign %s with its emails rendered",
				r.RecipientID, r.CampaignID, r.Emails.AddressConfirmation.Subject, a.CampaignID)
		}
	}
	slices.Sort(ids)
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("AuditRecipients = %v, want %v", ids, want)
	}
}
