package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// raceRounds is how many times each pair of operations is run against
// each other.
const raceRounds = 20

// together runs fns at once and waits for them all.
func together(fns ...func()) {
	var start, done sync.WaitGroup
	start.Add(1)
	for _, fn := range fns {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			fn()
		}()
	}
	start.Done()
	done.Wait()
}

// archivedCounts reads the status counts and creditsSpent of a deleted
// campaign's archived copy, the item its recipients' later moves count on.
func archivedCounts(t *testing.T, tableName, orgID, campaignID string) (map[string]int64, int64) {
	t.Helper()
	out, err := testenv.Client(t).GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(tableName), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID},
			"SK": &types.AttributeValueMemberS{Value: "DELCAMPAIGN#" + campaignID},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	live, ok := out.Item["liveData"].(*types.AttributeValueMemberM)
	if !ok {
		t.Fatalf("campaign %s has no archived copy with liveData", campaignID)
	}
	num := func(av types.AttributeValue) int64 {
		n, _ := av.(*types.AttributeValueMemberN)
		if n == nil {
			return 0
		}
		v, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	counts := map[string]int64{}
	if m, ok := live.Value["statusCounts"].(*types.AttributeValueMemberM); ok {
		for k, v := range m.Value {
			counts[k] = num(v)
		}
	}
	return counts, num(live.Value["creditsSpent"])
}

// TestAddRecipientRacingCampaignDelete: adds racing the campaign's DELETE
// either land before it (200, and the deletion's expiry gives their credits
// back) or find it gone (404, nothing taken). Afterwards no credit is held
// for a recipient of a deleted campaign: the balance is back where it
// started, with one refund for each recipient added.
func TestAddRecipientRacingCampaignDelete(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 10_000)
	api := testenv.NewAPI(t, s, key)
	added := 0
	for round := range raceRounds {
		c := postCampaign(t, api, map[string]any{"name": "Doomed", "campaignData": map[string]any{
			"giftIds": []string{"gift-wireless-charger"}, "emailTemplateId": "tmpl-meeting-booker"}})
		testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
		statuses := make([]int, 4)
		var deleted int
		fns := []func(){func() {
			res := api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil)
			deleted = res.Status
		}}
		for i := range statuses {
			fns = append(fns, func() {
				res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("r%d-%d@example.com", round, i), "R"))
				statuses[i] = res.Status
				if res.Status != http.StatusOK && res.Status != http.StatusNotFound {
					t.Errorf("round %d: add-recipient racing DELETE: %d %s; want 200 or 404", round, res.Status, res.Body)
				}
			})
		}
		together(fns...)
		if deleted != http.StatusOK {
			t.Fatalf("round %d: DELETE: %d; want 200", round, deleted)
		}
		for _, st := range statuses {
			if st == http.StatusOK {
				added++
			}
		}
	}
	api.Jobs.Wait()
	if b := walletBalance(t, s, orgID); b != 10_000 {
		t.Errorf("balance %d after every campaign was deleted; want 10000 (%d recipients added, each refunded)", b, added)
	}
	refunds := 0
	for _, e := range walletOf(t, api, "?limit=100").Ledger.Items {
		if e.Type == "refund" {
			refunds++
		}
	}
	if refunds != added {
		t.Errorf("%d refunds for %d recipients added before their campaign was deleted", refunds, added)
	}
	t.Logf("%d of %d adds landed before their campaign's DELETE", added, 4*raceRounds)
}

// TestClaimRacingCampaignDelete: a claim racing its campaign's DELETE
// either lands before it (the gift reserved, nothing refunded: the gift
// costs what was held) or finds the campaign gone (GONE, and the deletion
// expires the recipient with its refund); either way the deleted
// campaign's archived counters count every recipient in the status it ends
// in, so a claim is never lost from them.
func TestClaimRacingCampaignDelete(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 10_000)
	api := testenv.NewAPI(t, s, key)
	for round := range raceRounds {
		c := postCampaign(t, api, map[string]any{"name": "Doomed", "campaignData": map[string]any{
			"giftIds": []string{"gift-wireless-charger"}, "emailTemplateId": "tmpl-meeting-booker"}})
		testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
		ids := make([]string, 3)
		for i := range ids {
			var a wire.AddedRecipient
			res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("m%d-%d@example.com", round, i), "M"))
			res.JSON(t, &a)
			if res.Status != http.StatusOK {
				t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
			}
			ids[i] = a.RecipientID
		}
		moved := make([]bool, len(ids))
		fns := []func(){func() {
			if res := api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil); res.Status != http.StatusOK {
				t.Errorf("round %d: DELETE: %d %s", round, res.Status, res.Body)
			}
		}}
		for i, id := range ids {
			fns = append(fns, func() {
				_, err := testenv.Recipients(s).Claim(context.Background(), orgID, c.CampaignID, id, recipient.ClaimInput{GiftID: "gift-wireless-charger",
					ShippingAddress: recipient.ShippingAddress{Line1: "1 Main Street", City: "Springfield", Zip: "62701", Country: "US"}})
				switch {
				case err == nil:
					moved[i] = true
				case gifting.ErrorCode(err) == gifting.CodeGone:
				default:
					t.Errorf("round %d: claim racing DELETE: %v; want success or GONE", round, err)
				}
			})
		}
		together(fns...)
		api.Jobs.Wait()
		want := map[string]int64{}
		for _, m := range moved {
			if m {
				want["processing"]++ // a claim opens its order
			} else {
				want["expired"]++
			}
		}
		counts, _ := archivedCounts(t, s.Table(), orgID, c.CampaignID)
		for _, st := range []string{"pending", "invite_sent", "processing", "expired"} {
			if counts[st] != want[st] {
				t.Errorf("round %d: archived statusCounts %v; want %s = %d (claims that succeeded: %v)", round, counts, st, want[st], moved)
				break
			}
		}
	}
}

// TestTopUpRacingAddsAtExactlyThePrice: with the balance exactly one
// recipient's price, a top-up of one more price races three adds: at most
// two adds are paid (the others 402, nothing written), at least one is, and
// the balance is what the ledger says, never below zero.
func TestTopUpRacingAddsAtExactlyThePrice(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	const price = 60
	orgID, key := testenv.Org(t, s, "acme", price)
	api := testenv.NewAPI(t, s, key)
	for round := range raceRounds {
		c := postCampaign(t, api, map[string]any{"name": "Tight", "campaignData": map[string]any{
			"giftIds": []string{"gift-wireless-charger"}, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": price}})
		testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
		before := walletBalance(t, s, orgID)
		ok := 0
		var mu sync.Mutex
		fns := []func(){func() {
			if _, _, err := wallet.NewApp(s).TopUp(context.Background(), orgID, price, "race"); err != nil {
				t.Errorf("round %d: top-up: %v", round, err)
			}
		}}
		for i := range 3 {
			fns = append(fns, func() {
				res := api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("t%d-%d@example.com", round, i), "T"))
				switch res.Status {
				case http.StatusOK:
					mu.Lock()
					ok++
					mu.Unlock()
				case http.StatusPaymentRequired:
				default:
					t.Errorf("round %d: add-recipient racing a top-up: %d %s; want 200 or 402", round, res.Status, res.Body)
				}
			})
		}
		together(fns...)
		after := walletBalance(t, s, orgID)
		if want := before + price - int64(ok)*price; after != want || after < 0 {
			t.Errorf("round %d: balance %d after a top-up of %d and %d adds at %d from %d; want %d", round, after, price, ok, price, before, want)
		}
		got := fetchCampaign(t, api, c.CampaignID)
		if got.TotalRecipients != int64(ok) || got.LiveData.CreditsSpent != int64(ok)*price {
			t.Errorf("round %d: campaign counts %d recipients, %d credits; want %d, %d", round, got.TotalRecipients, got.LiveData.CreditsSpent, ok, ok*price)
		}
		if before >= price && ok == 0 {
			t.Errorf("round %d: no add was paid from a balance of %d at a price of %d", round, before, price)
		}
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}
