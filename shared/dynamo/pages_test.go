package dynamo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestRecipientPageIDs: a new recipient's page ids spell its key and a
// secret, so its pages are found without the Pages index (its item has no
// index key); only the exact id shows the page, of the kind it names; and
// a recipient written with legacy page ids is still found by them.
func TestRecipientPageIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 10)
	res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recipient
	ref := gifting.PageRef{OrgID: orgID, CampaignID: c.CampaignID, RecipientID: r.RecipientID}

	t.Run("the ids name the recipient and differ in their secret", func(t *testing.T) {
		for _, id := range []string{r.LandingPageID, r.ClaimPageID} {
			got, ok := gifting.ParsePageID(id)
			if !ok || got != ref || !gifting.ValidPageID(id) {
				t.Errorf("page id %q names %+v (%v); want %+v", id, got, ok, ref)
			}
		}
		if r.LandingPageID == r.ClaimPageID {
			t.Error("the landing and claim pages share an id")
		}
	})
	t.Run("no Pages index entry", func(t *testing.T) {
		out, err := testenv.Client(t).GetItem(ctx, &dynamodb.GetItemInput{
			TableName: aws.String(s.Table()), Key: dynamo.RecipientKey(orgID, c.CampaignID, r.RecipientID),
		})
		if err != nil || out.Item == nil {
			t.Fatalf("recipient item: %v", err)
		}
		if _, ok := out.Item["pg"]; ok {
			t.Error("the recipient item carries a Pages index key")
		}
	})
	t.Run("each id shows its page", func(t *testing.T) {
		for id, kind := range map[string]gifting.PageKind{r.LandingPageID: gifting.LandingPage, r.ClaimPageID: gifting.ClaimPage} {
			p, err := s.RecipientPage(ctx, id)
			if err != nil || p.Kind != kind || p.Recipient.RecipientID != r.RecipientID || p.Campaign.CampaignID != c.CampaignID || p.Sender == "" {
				t.Errorf("page %q: kind %v, recipient %s, campaign %s, sender %q, %v", id, p.Kind, p.Recipient.RecipientID, p.Campaign.CampaignID, p.Sender, err)
			}
		}
	})
	other, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "bob@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	otherOrg, _ := testenv.Org(t, s, "globex", 100)
	secret := r.LandingPageID[strings.LastIndex(r.LandingPageID, ".")+1:]
	flip := "b"
	if secret[0] == 'b' {
		flip = "c"
	}
	for name, id := range map[string]string{
		"another secret":                  strings.TrimSuffix(r.LandingPageID, secret) + flip + secret[1:],
		"the secret on another recipient": strings.TrimSuffix(other.Recipient.LandingPageID, other.Recipient.LandingPageID[strings.LastIndex(other.Recipient.LandingPageID, ".")+1:]) + secret,
		"the secret in another org":       strings.Replace(r.LandingPageID, orgID+".", otherOrg+".", 1),
		"upper case":                      strings.ToUpper(r.LandingPageID),
		"no secret":                       strings.TrimSuffix(r.LandingPageID, "."+secret),
		"a legacy id nobody has":          strings.Repeat("a", gifting.LegacyPageIDLength),
	} {
		t.Run("not found: "+name, func(t *testing.T) {
			if _, err := s.RecipientPage(ctx, id); !errors.Is(err, recipient.ErrNoPage) {
				t.Errorf("page %q: %v; want no page", id, err)
			}
		})
	}
	t.Run("ids that cannot spell a key are legacy ids", func(t *testing.T) {
		landing, claim := dynamo.NewPageIDs(gifting.PageRef{OrgID: orgID, CampaignID: "not-a-ulid", RecipientID: r.RecipientID})
		if !gifting.LegacyPageID(landing) || !gifting.LegacyPageID(claim) || landing == claim {
			t.Errorf("ids %q and %q; want two legacy page ids", landing, claim)
		}
	})
}
