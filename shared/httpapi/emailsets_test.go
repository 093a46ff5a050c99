package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestRecipientEmailsFromTheirTemplate: a recipient's emails read back
// rendered for that recipient from the template it was added with, even
// after the template is edited, and in a process that never saw the
// template; and a big template does not make a recipient dearer to write:
// its item stays within one write unit.
func TestRecipientEmailsFromTheirTemplate(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 1000)
	api := testenv.NewAPI(t, s, key)

	// 20 KB of HTML, as a designed email easily is.
	filler := strings.Repeat(`<tr><td style="padding:8px;font-family:Helvetica,Arial,sans-serif">A line of a designed email.</td></tr>`, 200)
	html := `<p>Dear {{firstName}}, your gift from {{campaignName}} waits at <a href="{{landingPageUrl}}">your page</a>.</p><table>` + filler + `</table>`
	var tmpl struct {
		Data gifting.Template `json:"data"`
	}
	res := api.Do("POST", "/api/campaigns/templates", map[string]any{
		"templateName": "Designed", "templateCategory": "retention", "successRate": 10,
		"templateData": map[string]any{"emails": map[string]any{
			"addressConfirmation": map[string]any{"subject": "Hi {{firstName}}", "html": html},
			"reminder1":           map[string]any{"subject": "Still waiting, {{firstName}}", "html": html, "delayHours": 72},
		}},
	})
	res.JSON(t, &tmpl)
	if res.Status != http.StatusCreated {
		t.Fatalf("create template: %d %s", res.Status, res.Body)
	}
	var gift struct {
		Data gifting.Gift `json:"data"`
	}
	res = api.Do("POST", "/api/campaigns/gifts", newGift("Hamper", 10))
	res.JSON(t, &gift)
	var campaign struct {
		Data campaign.Campaign `json:"data"`
	}
	res = api.Do("POST", "/api/campaigns", map[string]any{"name": "Renewal <thanks>", "campaignData": map[string]any{
		"giftIds": []string{gift.Data.GiftID}, "emailTemplateId": tmpl.Data.TemplateID, "creditsPerRecipient": 10,
	}})
	res.JSON(t, &campaign)
	if res.Status != http.StatusCreated {
		t.Fatalf("create campaign: %d %s", res.Status, res.Body)
	}
	campaignID := campaign.Data.CampaignID
	add := func(email, first string) string {
		t.Helper()
		var out gifting.AddedRecipient
		res := api.Do("POST", addPath(campaignID), recipientBody(email, first))
		res.JSON(t, &out)
		if res.Status != http.StatusOK {
			t.Fatalf("add %s: %d %s", email, res.Status, res.Body)
		}
		return out.RecipientID
	}
	get := func(api *testenv.API, id string) gifting.Recipient {
		t.Helper()
		var env struct {
			Data gifting.Recipient `json:"data"`
		}
		res := api.Do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients/"+id, nil)
		res.JSON(t, &env)
		if res.Status != http.StatusOK {
			t.Fatalf("get recipient: %d %s", res.Status, res.Body)
		}
		return env.Data
	}
	ann := add("ann@example.com", "Ann <3")
	want := get(api, ann)

	t.Run("rendered for the recipient", func(t *testing.T) {
		e := want.Emails.AddressConfirmation
		if e.Subject != "Hi Ann <3" || !strings.Contains(e.HTML, "Dear Ann &lt;3, your gift from Renewal &lt;thanks&gt; waits at") ||
			!strings.Contains(e.HTML, `href="`+want.URLs.LandingPage+`"`) || len(e.HTML) < 20_000 {
			t.Errorf("invitation rendered as %q / %.120q…", e.Subject, e.HTML)
		}
		if r := want.Emails.Reminder1; r.Subject != "Still waiting, Ann <3" || r.HTML != e.HTML || r.ScheduledTime == "" {
			t.Errorf("reminder rendered as %+v", r)
		}
		if want.Emails.Reminder2.Active || want.Emails.Reminder2.HTML != "" {
			t.Errorf("reminder2, which the template lacks: %+v", want.Emails.Reminder2)
		}
	})
	t.Run("one write unit whatever the template's size", func(t *testing.T) {
		out, err := testenv.Client(t).GetItem(context.Background(), &dynamodb.GetItemInput{
			TableName: aws.String(s.Table()),
			Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "ORG#acme"},
				"SK": &types.AttributeValueMemberS{Value: "RCPT#" + campaignID + "#" + ann},
			},
		})
		if err != nil || out.Item == nil {
			t.Fatalf("recipient item: %v", err)
		}
		if n := dynamo.ItemSize(out.Item); n > 1024 {
			t.Errorf("recipient item of %d bytes: more than one write unit", n)
		}
	})
	t.Run("the template edited: recipients keep what they were added with", func(t *testing.T) {
		res := api.Do("PATCH", "/api/campaigns/templates/"+tmpl.Data.TemplateID, map[string]any{
			"templateData": map[string]any{"emails": map[string]any{
				"addressConfirmation": map[string]any{"subject": "Hello {{firstName}}", "html": "<p>New text</p>"},
			}},
		})
		if res.Status != http.StatusOK {
			t.Fatalf("patch template: %d %s", res.Status, res.Body)
		}
		if got := get(api, ann); got.Emails != want.Emails {
			t.Errorf("after the edit the first recipient's invitation reads %q, want %q as added", got.Emails.AddressConfirmation.Subject, want.Emails.AddressConfirmation.Subject)
		}
		bob := get(api, add("bob@example.com", "Bob"))
		if e := bob.Emails.AddressConfirmation; e.Subject != "Hello Bob" || e.HTML != "<p>New text</p>" || bob.Emails.Reminder1.Active {
			t.Errorf("a recipient added after the edit: %+v", bob.Emails)
		}
	})
	t.Run("read by a process that never saw the template", func(t *testing.T) {
		fresh := testenv.NewAPI(t, dynamo.New(testenv.Client(t), s.Table()), key)
		if got := get(fresh, ann); got.Emails != want.Emails {
			t.Errorf("a new process reads the invitation as %q, want %q", got.Emails.AddressConfirmation.Subject, want.Emails.AddressConfirmation.Subject)
		}
	})
}
