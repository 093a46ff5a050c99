package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestDeletingACampaignRefundsItsUnclaimedRecipients: a deleted campaign's
// recipients can no longer claim, so DELETE gives back the credits held for
// the unclaimed ones at once, as completing does: the balance is what it
// was before they were added, each has one refund, and a second DELETE
// (404) gives nothing more.
func TestDeletingACampaignRefundsItsUnclaimedRecipients(t *testing.T) {
	t.Parallel()
	for _, status := range []campaign.Status{campaign.Draft, campaign.Live, campaign.InProgress} {
		t.Run(string(status), func(t *testing.T) {
			t.Parallel()
			s := testenv.Store(t)
			orgID, key := testenv.Org(t, s, "acme", 1000)
			api := testenv.NewAPI(t, s, key)
			c := postCampaign(t, api, map[string]any{"name": "Doomed", "campaignData": map[string]any{
				"giftIds": []string{"gift-wireless-charger"}, "emailTemplateId": "tmpl-meeting-booker"}})
			if status != campaign.Draft {
				testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, status)
			}
			price := c.CampaignData.CreditsPerRecipient
			for i := range 3 {
				res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("r%d@example.com", i), "R"))
				if res.Status != http.StatusOK {
					t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
				}
			}
			if b := walletBalance(t, s, orgID); b != 1000-3*price {
				t.Fatalf("balance %d after 3 recipients at %d; want %d", b, price, 1000-3*price)
			}

			if res := api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil); res.Status != http.StatusOK {
				t.Fatalf("delete: %d %s", res.Status, res.Body)
			}
			api.Jobs.Wait()
			if b := walletBalance(t, s, orgID); b != 1000 {
				t.Errorf("balance %d after deleting the campaign; want 1000 (3 × %d held for recipients who can no longer claim)", b, price)
			}
			assertError(t, api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil), http.StatusNotFound, "NOT_FOUND")
			api.Jobs.Wait()
			refunds := 0
			for _, e := range walletOf(t, api, "?limit=100").Ledger.Items {
				if e.Type == "refund" {
					refunds++
					if e.Amount != price || e.CampaignID != c.CampaignID || e.RecipientID == "" {
						t.Errorf("refund %+v; want %d credits for one recipient of the campaign", e, price)
					}
				}
			}
			if refunds != 3 {
				t.Errorf("%d refunds; want 3, one a recipient", refunds)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}

// TestClaimKeepsTheGiftsPriceInCredits: a recipient holds the credits of
// the campaign's dearest gift; choosing a cheaper one gives back the
// difference. What it keeps is the chosen gift's price in credits as the
// campaign priced it (gifting.CreditsForPrice: cents first, then up to a
// whole credit), and never less than nothing: a gift stored with a price
// out of bounds (before the bounds existed) gives nothing back rather than
// credits from nowhere.
func TestClaimKeepsTheGiftsPriceInCredits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		cheap  float64 // the price the gift is created at
		stored *string // the price then written over it, as stored by older code
		keeps  int64   // what the recipient costs after the claim
	}{
		{name: "whole price", cheap: 20, keeps: 20},
		{name: "a price in cents", cheap: 20.01, keeps: 21},
		{name: "a fraction of a cent", cheap: 20.001, keeps: 20},
		{name: "stored negative", cheap: 20, stored: aws.String("-5"), keeps: 50},
		{name: "stored beyond the bound", cheap: 20, stored: aws.String("1e20"), keeps: 50},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testenv.Store(t)
			orgID, key := testenv.Org(t, s, "acme", 1000)
			api := testenv.NewAPI(t, s, key)
			gift := func(name string, price float64) string {
				res := api.Do("POST", "/api/campaigns/gifts", newGift(name, price))
				var g struct {
					Data gifting.Gift `json:"data"`
				}
				res.JSON(t, &g)
				if res.Status != http.StatusCreated {
					t.Fatalf("gift at %v: %d %s", price, res.Status, res.Body)
				}
				return g.Data.GiftID
			}
			cheap, dear := gift("Mug", tt.cheap), gift("Jacket", 50)
			c := postCampaign(t, api, map[string]any{"name": "Choice", "campaignData": map[string]any{
				"giftIds": []string{cheap, dear}, "emailTemplateId": "tmpl-meeting-booker"}})
			testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
			res := api.Do("POST", addPath(c.CampaignID), recipientBody("jane@example.com", "Jane"))
			var added gifting.AddedRecipient
			res.JSON(t, &added)
			if res.Status != http.StatusOK || added.CreditsDeducted != 50 {
				t.Fatalf("add-recipient: %d %s; want 50 credits held", res.Status, res.Body)
			}
			if tt.stored != nil {
				_, err := testenv.Client(t).UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
					TableName:                 aws.String(s.Table()),
					Key:                       map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "GIFT#" + cheap}},
					UpdateExpression:          aws.String("SET price = :p"),
					ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberN{Value: *tt.stored}},
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			r, err := s.ClaimGift(context.Background(), orgID, c.CampaignID, added.RecipientID, gifting.ClaimInput{GiftID: cheap,
				ShippingAddress: gifting.ShippingAddress{Line1: "1 Main Street", City: "Springfield", Zip: "62701", Country: "US"}})
			if err != nil {
				t.Fatal(err)
			}
			if r.CreditsCharged != tt.keeps {
				t.Errorf("the claimed recipient costs %d credits; want %d", r.CreditsCharged, tt.keeps)
			}
			if b := walletBalance(t, s, orgID); b != 1000-tt.keeps {
				t.Errorf("balance %d; want %d", b, 1000-tt.keeps)
			}
			if got := fetchCampaign(t, api, c.CampaignID); got.LiveData.CreditsSpent != tt.keeps {
				t.Errorf("campaign creditsSpent %d; want %d", got.LiveData.CreditsSpent, tt.keeps)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}

// TestLaunchRefusesACampaignStoredMispriced: add-recipient refuses (409) a
// campaign stored by older code priced below the catalog price of its
// service-catalog gift, or outside the bounds of a price; its launch must
// too, with nothing taken, rather than give the catalog's gifts away to a
// whole list (or answer 500).
func TestLaunchRefusesACampaignStoredMispriced(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		price int64
	}{
		{"free catalog gift", 0},
		{"below the catalog price", 54},
		{"negative", -5},
		{"beyond the bound", gifting.MaxCreditsPerRecipient + 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := testenv.Store(t)
			orgID, key := testenv.Org(t, s, "acme", 1000)
			api := testenv.NewAPI(t, s, key)
			listID, _ := listWithContacts(t, s, orgID, 3)
			c, err := testenv.CreateCampaign(context.Background(), s, orgID, campaign.Campaign{Name: "Legacy", CreatedBy: "user-acme",
				CampaignData: campaign.Data{GiftIDs: []string{"gift-wireless-charger"}, EmailTemplateID: "tmpl-meeting-booker",
					ContactListIDs: []string{listID}, PriceSet: true, CreditsPerRecipient: tt.price}})
			if err != nil {
				t.Fatal(err)
			}
			res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
			api.Jobs.Wait()
			assertError(t, res, http.StatusConflict, "CONFLICT")
			if b := walletBalance(t, s, orgID); b != 1000 {
				t.Errorf("balance %d after a refused launch; want 1000", b)
			}
			// Read from the store: the API's answer of a price out of
			// bounds does not fit its own document.
			if got, err := s.Campaign(context.Background(), orgID, c.CampaignID); err != nil {
				t.Fatal(err)
			} else if got.Status != campaign.Draft || got.TotalRecipients != 0 {
				t.Errorf("campaign %s with %d recipients; want a draft with none", got.Status, got.TotalRecipients)
			}
			testenv.AssertLedgerBalanced(t, s, orgID)
		})
	}
}

// TestRecipientsFixTheirCampaignsGiftsAndPrice: a recipient was charged
// the draft's price when added, a budget for the gifts offered then. Once
// a draft has recipients, a PATCH that adds a dearer catalog gift or
// changes the price is refused (409), nothing written, so no recipient can
// choose a gift the service would pay the difference of; other edits still
// go through, and a draft without recipients may change its gifts.
func TestRecipientsFixTheirCampaignsGiftsAndPrice(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000)
	api := testenv.NewAPI(t, s, key)
	path := func(id string) string { return "/api/campaigns/" + id }
	dearer := map[string]any{"campaignData": map[string]any{"giftIds": []string{"gift-artisan-coffee"}, "creditsPerRecipient": 35}}

	empty := createCampaign(t, api, 5)
	if res := api.Do("PATCH", path(empty), dearer); res.Status != http.StatusOK {
		t.Fatalf("a draft without recipients changes its gifts: %d %s", res.Status, res.Body)
	}

	campaignID := createCampaign(t, api, 5)
	if res := api.Do("POST", addPath(campaignID), recipientBody("ada@example.com", "Ada")); res.Status != http.StatusOK {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	before := api.Do("GET", path(campaignID), nil).Map(t)["data"]
	for name, body := range map[string]map[string]any{
		"a dearer catalog gift": dearer,
		"another price":         {"campaignData": map[string]any{"creditsPerRecipient": 50}},
	} {
		t.Run(name, func(t *testing.T) {
			assertError(t, api.Do("PATCH", path(campaignID), body), http.StatusConflict, "CONFLICT")
		})
	}
	if after := api.Do("GET", path(campaignID), nil).Map(t)["data"]; !reflect.DeepEqual(before, after) {
		t.Errorf("a refused edit changed the campaign:\nbefore %v\nafter  %v", before, after)
	}
	if res := api.Do("PATCH", path(campaignID), map[string]any{"name": "Renamed"}); res.Status != http.StatusOK {
		t.Errorf("renaming a draft with recipients: %d %s", res.Status, res.Body)
	}
	// An edit whose read saw no recipient, written after one was added:
	// the store's condition refuses it.
	stale, err := s.Campaign(t.Context(), orgID, campaignID)
	if err != nil {
		t.Fatal(err)
	}
	stale.TotalRecipients, stale.CampaignData.CreditsPerRecipient = 0, 50
	edit := campaign.EditPlan{OrgID: orgID, Campaign: stale, UserID: "user-1", Now: s.Now(), Repriced: true}
	if _, err := s.CommitEdit(t.Context(), edit); !errors.Is(err, campaign.ErrHasRecipients) {
		t.Errorf("a repricing written after a recipient was added: %v, want campaign.ErrHasRecipients", err)
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}
