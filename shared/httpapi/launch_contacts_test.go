package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// dieBeforeFirstCountDB fails the first transaction that counts a launch
// slice (its first item updates the LAUNCH# record), after the slice wrote
// its recipients and showed the campaign on their contacts: a worker that
// died between the two, whose slice runs again.
type dieBeforeFirstCountDB struct {
	dynamo.DB
	mu   sync.Mutex
	died bool
}

func (d *dieBeforeFirstCountDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	d.mu.Lock()
	u := in.TransactItems[0].Update
	die := !d.died && u != nil && strings.HasPrefix(u.Key["SK"].(*types.AttributeValueMemberS).Value, "LAUNCH#")
	d.died = d.died || die
	d.mu.Unlock()
	if die {
		return nil, context.DeadlineExceeded
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// campaignsShown counts how often a contact shows campaignID in
// usage.campaignIds and in campaigns, and returns its campaigns entry.
func campaignsShown(ct gifting.Contact, campaignID string) (inUsage, inCampaigns int, entry gifting.ContactCampaign) {
	for _, id := range ct.Usage.CampaignIDs {
		if id == campaignID {
			inUsage++
		}
	}
	for _, cc := range ct.Campaigns {
		if cc.CampaignID == campaignID {
			inCampaigns++
			entry = cc
		}
	}
	return inUsage, inCampaigns, entry
}

// TestLaunchShowsCampaignOnContacts launches a campaign over two lists that
// share contacts, one contact already its recipient by add-recipient and
// one already in another campaign, with the first slice dying before its
// count and every slice delivered twice; then reads each contact through
// GET /contacts/{id}: every launched contact shows the campaign once in
// usage.campaignIds and in campaigns (its name, the status its recipient
// was written with), keeps the campaigns it had, and a contact outside the
// lists shows none. The money ends exact.
func TestLaunchShowsCampaignOnContacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const credits = 100_000
	s := dynamo.New(&dieBeforeFirstCountDB{DB: testenv.Client(t)}, testenv.Table(t))
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	orgID, key := testenv.Org(t, s, "shown", credits)
	api, _ := testenv.HeldAPI(t, s, key)

	listA, listB := createList(t, api, "A"), createList(t, api, "B")
	ids := map[int]string{}
	for _, r := range importContacts(t, api, listA, people(0, 6)...).Data.Items {
		ids[r.Index] = r.ContactID
	}
	for _, r := range importContacts(t, api, listB, people(4, 4)...).Data.Items {
		ids[4+r.Index] = r.ContactID // person4 and person5 are in both lists
	}
	outside := importContacts(t, api, createList(t, api, "C"), people(8, 1)...).Data.Items[0].ContactID

	other := launchReady(t, api, gifts[1], listA)
	if res := api.Do("POST", addPath(other.CampaignID), recipientBody("person0@example.com", "First0")); res.Status != http.StatusOK {
		t.Fatalf("add-recipient to the other campaign: %d %s", res.Status, res.Body)
	}
	c := launchReady(t, api, gifts[1], listA, listB)
	if res := api.Do("POST", addPath(c.CampaignID), recipientBody("person1@example.com", "First1")); res.Status != http.StatusOK {
		t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
	}
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	// The job is held: run its slices here, the first dying before its
	// count, then every slice twice.
	if _, _, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, ""); err == nil {
		t.Fatal("the first slice survived its crash")
	}
	cursor := ""
	for step := 0; ; step++ {
		if step > 10 {
			t.Fatal("the launch job does not finish")
		}
		next, done, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, cursor)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := testenv.Campaigns(s).LaunchSlice(ctx, orgID, c.CampaignID, cursor); err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		cursor = next
	}
	if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Live || got.TotalRecipients != 8 {
		t.Fatalf("campaign %s with %d recipients; want live with 8 (person0..person7)", got.Status, got.TotalRecipients)
	}

	for k := range 8 {
		ct := getContact(t, api, ids[k])
		inUsage, inCampaigns, entry := campaignsShown(ct, c.CampaignID)
		if inUsage != 1 || inCampaigns != 1 {
			t.Errorf("person%d shows the campaign %d times in usage.campaignIds, %d in campaigns; want once each", k, inUsage, inCampaigns)
			continue
		}
		if entry.CampaignName != c.Name || entry.Status != string(gifting.RecipientPending) {
			t.Errorf("person%d's campaigns entry %+v; want name %q, status pending", k, entry, c.Name)
		}
		want := []string{c.CampaignID}
		if k == 0 {
			want = []string{other.CampaignID, c.CampaignID}
		}
		var shown []string
		for _, cc := range ct.Campaigns {
			shown = append(shown, cc.CampaignID)
		}
		if !slices.Equal(ct.Usage.CampaignIDs, want) || !slices.Equal(shown, want) {
			t.Errorf("person%d: usage.campaignIds %v, campaigns %v; want %v in both", k, ct.Usage.CampaignIDs, shown, want)
		}
	}
	if ct := getContact(t, api, outside); len(ct.Usage.CampaignIDs) != 0 || len(ct.Campaigns) != 0 {
		t.Errorf("a contact outside the lists shows %v, %v; want no campaign", ct.Usage.CampaignIDs, ct.Campaigns)
	}

	// Money: 2 added by add-recipient, 9 list members paid at the launch
	// (person4 and person5 twice, person1 already a recipient), 7 of them
	// made recipients, the rest refunded.
	balance := walletBalance(t, s, orgID)
	if want := credits - 9*price; balance != want {
		t.Errorf("balance %d, want %d: 2 added and 7 launched recipients at %d", balance, want, price)
	}
	if sum, _ := ledgerSum(t, s, orgID); sum != balance {
		t.Errorf("ledger sums to %d, balance is %d", sum, balance)
	}
}
