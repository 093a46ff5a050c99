package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// countSKPrefix counts org's items whose sort key starts with prefix (a
// test-only look under the API).
func countSKPrefix(t *testing.T, s *dynamo.Store, orgID, prefix string) int {
	t.Helper()
	table := s.Table()
	in := &dynamodb.QueryInput{
		TableName:              &table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, ":p": &types.AttributeValueMemberS{Value: prefix},
		},
		Select: types.SelectCount, ConsistentRead: aws.Bool(true),
	}
	n := 0
	p := dynamodb.NewQueryPaginator(testenv.Client(t), in)
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += int(out.Count)
	}
	return n
}

func launchRecipientCount(t *testing.T, s *dynamo.Store, orgID, campaignID string) int {
	t.Helper()
	return countSKPrefix(t, s, orgID, "RCPT#"+campaignID+"#")
}

func walletBalance(t *testing.T, s *dynamo.Store, orgID string) int64 {
	t.Helper()
	w, err := s.Wallet(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	return w.Balance
}

func fetchCampaign(t *testing.T, api *testenv.API, id string) campaign.Campaign {
	t.Helper()
	var env campaignEnvelope
	res := api.Do("GET", "/api/campaigns/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get campaign: %d %s", res.Status, res.Body)
	}
	res.JSON(t, &env)
	return env.Data
}

// launchReady creates a campaign over lists priced by the catalog gift.
func launchReady(t *testing.T, api *testenv.API, gift gifting.Gift, lists ...string) campaign.Campaign {
	t.Helper()
	return postCampaign(t, api, map[string]any{"name": "Launch me", "contactListIds": lists,
		"campaignData": map[string]any{"giftIds": []string{gift.GiftID}}})
}

type launchEnvelope struct {
	Data campaign.Launch `json:"data"`
}

func TestLaunchThousandContacts(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	const n = 1000
	orgID, key := testenv.Org(t, s, "acme", n*price+500)
	api := testenv.NewAPI(t, s, key)
	listID, _ := listWithContacts(t, s, orgID, n)
	c := launchReady(t, api, gifts[1], listID)

	res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
	if res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	var l launchEnvelope
	res.JSON(t, &l)
	if l.Data.Contacts != n || l.Data.CreditsDeducted != n*price || l.Data.RemainingBalance != 500 || l.Data.Status != campaign.Preparing {
		t.Errorf("launch = %+v; want %d contacts, %d credits taken, 500 left, preparing", l.Data, n, n*price)
	}
	api.Jobs.Wait()

	got := fetchCampaign(t, api, c.CampaignID)
	if got.Status != campaign.Live || got.TotalRecipients != n || got.LiveData.CreditsSpent != n*price ||
		got.LiveData.StatusCounts[gifting.RecipientPending] != n || got.LiveData.LaunchedAt == nil || got.LiveData.LiveAt == nil {
		t.Errorf("after launch: status %s, total %d, credits %d, counts %v; want live, %d, %d, all pending",
			got.Status, got.TotalRecipients, got.LiveData.CreditsSpent, got.LiveData.StatusCounts, n, n*price)
	}
	if r := launchRecipientCount(t, s, orgID, c.CampaignID); r != n {
		t.Errorf("%d recipients stored, want %d", r, n)
	}
	if b := walletBalance(t, s, orgID); b != 500 {
		t.Errorf("balance = %d, want 500: exactly %d × %d taken", b, n, price)
	}

	t.Run("a second launch takes nothing", func(t *testing.T) {
		res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
		assertError(t, res, http.StatusConflict, "CONFLICT")
		if msg := res.Map(t)["error"].(string); !strings.Contains(msg, "live") {
			t.Errorf("error %q does not name the current state", msg)
		}
		api.Jobs.Wait()
		if b := walletBalance(t, s, orgID); b != 500 {
			t.Errorf("balance = %d after a second launch, want 500", b)
		}
		if r := launchRecipientCount(t, s, orgID, c.CampaignID); r != n {
			t.Errorf("%d recipients after a second launch, want %d", r, n)
		}
	})
}

func TestLaunchRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	_, gifts := campaignCatalogRefs(t)
	gift := gifts[1]
	price := int64(math.Ceil(gift.Price))
	const credits = 1_000_000

	t.Run("too few credits changes nothing", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "poor", 3*price-1)
		api := testenv.NewAPI(t, s, key)
		listID, _ := listWithContacts(t, s, orgID, 3)
		c := launchReady(t, api, gift, listID)
		res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
		assertError(t, res, http.StatusPaymentRequired, "INSUFFICIENT_CREDITS")
		api.Jobs.Wait()
		got := fetchCampaign(t, api, c.CampaignID)
		if got.Status != campaign.Draft || got.TotalRecipients != 0 || got.LiveData.LaunchedAt != nil {
			t.Errorf("campaign after a refused launch: %s, %d recipients", got.Status, got.TotalRecipients)
		}
		if b := walletBalance(t, s, orgID); b != 3*price-1 {
			t.Errorf("balance = %d, want %d untouched", b, 3*price-1)
		}
		if r := launchRecipientCount(t, s, orgID, c.CampaignID); r != 0 {
			t.Errorf("%d recipients written by a refused launch", r)
		}
		// Nothing was left behind: with one more credit it launches.
		if _, _, err := wallet.NewApp(s).TopUp(ctx, orgID, 1, "test"); err != nil {
			t.Fatal(err)
		}
		if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
			t.Fatalf("launch after top-up: %d %s", res.Status, res.Body)
		}
		api.Jobs.Wait()
		if b, r := walletBalance(t, s, orgID), launchRecipientCount(t, s, orgID, c.CampaignID); b != 0 || r != 3 {
			t.Errorf("after top-up: balance %d, %d recipients; want 0 and 3", b, r)
		}
	})
	t.Run("not launchable: 409 and nothing changes", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "unready", credits)
		api := testenv.NewAPI(t, s, key)
		full, _ := listWithContacts(t, s, orgID, 2)
		empty, _ := listWithContacts(t, s, orgID, 0)
		for _, tt := range []struct {
			name string
			body map[string]any
			want string
		}{
			{"no contact list", map[string]any{"name": "x", "campaignData": map[string]any{"giftIds": []string{gift.GiftID}}}, "contact list"},
			{"no gifts", map[string]any{"name": "x", "contactListIds": []string{full}}, "gifts"},
			{"empty list", map[string]any{"name": "x", "contactListIds": []string{empty}, "campaignData": map[string]any{"giftIds": []string{gift.GiftID}}}, "no contacts"},
		} {
			c := postCampaign(t, api, tt.body)
			res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
			assertError(t, res, http.StatusConflict, "CONFLICT")
			if msg := res.Map(t)["error"].(string); !strings.Contains(msg, tt.want) {
				t.Errorf("%s: error %q does not say %q", tt.name, msg, tt.want)
			}
			if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Draft {
				t.Errorf("%s: status %s, want draft", tt.name, got.Status)
			}
		}
		if b := walletBalance(t, s, orgID); b != credits {
			t.Errorf("balance = %d, want %d", b, credits)
		}
	})
	t.Run("a contact already a recipient is neither added nor charged twice", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "dupe", credits)
		api := testenv.NewAPI(t, s, key)
		listID, ids := listWithContacts(t, s, orgID, 4)
		c := launchReady(t, api, gift, listID)
		contacts, err := s.ContactsByID(ctx, orgID, ids[:1])
		if err != nil {
			t.Fatal(err)
		}
		_, err = testenv.Recipients(s).Write(ctx, recipient.AddInput{OrgID: orgID, CampaignID: c.CampaignID,
			Contact: gifting.ContactInput{MailID: contacts[0].MailID}, SourceType: "manual", PublicBaseURL: "https://gifts.test"})
		if err != nil {
			t.Fatal(err)
		}
		if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
			t.Fatalf("launch: %d %s", res.Status, res.Body)
		}
		api.Jobs.Wait()
		got := fetchCampaign(t, api, c.CampaignID)
		if r := launchRecipientCount(t, s, orgID, c.CampaignID); r != 4 || got.TotalRecipients != 4 || got.LiveData.CreditsSpent != 4*price {
			t.Errorf("%d recipients stored, %d counted, %d credits spent; want 4, 4, %d", r, got.TotalRecipients, got.LiveData.CreditsSpent, 4*price)
		}
		if b := walletBalance(t, s, orgID); b != credits-4*price {
			t.Errorf("balance = %d, want %d: the launch refunds the contact that was already a recipient", b, credits-4*price)
		}
	})
	t.Run("several lists pay each contact once", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "union", credits)
		api := testenv.NewAPI(t, s, key)
		listA, idsA := listWithContacts(t, s, orgID, 3)
		listB, _ := listWithContacts(t, s, orgID, 2)
		if _, err := contact.NewApp(s, nil).AddIDsToList(ctx, orgID, listB, idsA[:1]); err != nil {
			t.Fatal(err)
		}
		c := launchReady(t, api, gift, listA, listB)
		res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
		var l launchEnvelope
		res.JSON(t, &l)
		if res.Status != http.StatusAccepted || l.Data.Contacts != 5 || l.Data.CreditsDeducted != 5*price {
			t.Fatalf("launch: %d %s; want 5 contacts paid", res.Status, res.Body)
		}
		api.Jobs.Wait()
		if r, b := launchRecipientCount(t, s, orgID, c.CampaignID), walletBalance(t, s, orgID); r != 5 || b != credits-5*price {
			t.Errorf("%d recipients, balance %d; want 5 and %d", r, b, credits-5*price)
		}
	})
	t.Run("preparing until the job is done", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "held", credits)
		api, run := testenv.HeldAPI(t, s, key)
		listID, ids := listWithContacts(t, s, orgID, 4)
		c := launchReady(t, api, gift, listID)
		if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
			t.Fatalf("launch: %d %s", res.Status, res.Body)
		}
		if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Preparing {
			t.Errorf("status %s before the job ran, want preparing", got.Status)
		}
		for _, req := range []struct{ method, path string }{
			{"POST", "/launch"}, {"PATCH", ""}, {"DELETE", ""},
		} {
			var body any
			if req.method == "PATCH" {
				body = map[string]any{"name": "x"}
			}
			res := api.Do(req.method, "/api/campaigns/"+c.CampaignID+req.path, body)
			assertError(t, res, http.StatusConflict, "CONFLICT")
			if msg := res.Map(t)["error"].(string); !strings.Contains(msg, "preparing") {
				t.Errorf("%s %s: error %q does not name the current state", req.method, req.path, msg)
			}
		}
		if b := walletBalance(t, s, orgID); b != credits-4*price {
			t.Errorf("balance while preparing = %d, want %d: taken once, before any recipient", b, credits-4*price)
		}
		// A contact deleted while the launch waits is refunded.
		if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, ids[0]); err != nil {
			t.Fatal(err)
		}
		run()
		api.Jobs.Wait()
		got := fetchCampaign(t, api, c.CampaignID)
		if r := launchRecipientCount(t, s, orgID, c.CampaignID); got.Status != campaign.Live || r != 3 || got.TotalRecipients != 3 {
			t.Fatalf("after the job: %s with %d recipients (%d counted); want live with 3", got.Status, r, got.TotalRecipients)
		}
		if b := walletBalance(t, s, orgID); b != credits-3*price {
			t.Errorf("balance = %d, want %d: the deleted contact refunded", b, credits-3*price)
		}
	})
	t.Run("contacts joining during the launch were not paid for and are not added", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "growing", credits)
		api, run := testenv.HeldAPI(t, s, key)
		listID, _ := listWithContacts(t, s, orgID, 3)
		c := launchReady(t, api, gift, listID)
		if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
			t.Fatalf("launch: %d %s", res.Status, res.Body)
		}
		addContactsTo(t, s, orgID, listID, 2)
		run()
		api.Jobs.Wait()
		got := fetchCampaign(t, api, c.CampaignID)
		if r := launchRecipientCount(t, s, orgID, c.CampaignID); got.Status != campaign.Live || r != 3 || got.TotalRecipients != 3 {
			t.Fatalf("after the job: %s with %d recipients (%d counted); want live with 3", got.Status, r, got.TotalRecipients)
		}
		if b := walletBalance(t, s, orgID); b != credits-3*price {
			t.Errorf("balance = %d, want %d", b, credits-3*price)
		}
	})
	t.Run("concurrent launches charge once", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "race", credits)
		api := testenv.NewAPI(t, s, key)
		listID, _ := listWithContacts(t, s, orgID, 3)
		c := launchReady(t, api, gift, listID)
		statuses := make([]int, 8)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil).Status
			}()
		}
		wg.Wait()
		api.Jobs.Wait()
		accepted := 0
		for _, st := range statuses {
			switch st {
			case http.StatusAccepted:
				accepted++
			case http.StatusConflict:
			default:
				t.Errorf("a concurrent launch answered %d", st)
			}
		}
		if accepted != 1 {
			t.Errorf("%d launches accepted, want 1", accepted)
		}
		if r, b := launchRecipientCount(t, s, orgID, c.CampaignID), walletBalance(t, s, orgID); r != 3 || b != credits-3*price {
			t.Errorf("%d recipients, balance %d; want 3 and %d", r, b, credits-3*price)
		}
	})
	t.Run("Idempotency-Key: a retried launch gets the first answer and pays once", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "retry", credits)
		api := testenv.NewAPI(t, s, key)
		listID, _ := listWithContacts(t, s, orgID, 2)
		c := launchReady(t, api, gift, listID)
		path := "/api/campaigns/" + c.CampaignID + "/launch"
		first := api.Do("POST", path, nil, "Idempotency-Key", "launch-1")
		api.Jobs.Wait()
		again := api.Do("POST", path, nil, "Idempotency-Key", "launch-1")
		if first.Status != http.StatusAccepted || again.Status != http.StatusAccepted || string(first.Body) != string(again.Body) {
			t.Fatalf("first %d %s, retry %d %s; want the same 202 twice", first.Status, first.Body, again.Status, again.Body)
		}
		if again.Header.Get("Idempotent-Replayed") != "true" {
			t.Error("the retry is not marked Idempotent-Replayed")
		}
		assertError(t, api.Do("POST", path, nil, "Idempotency-Key", "launch-2"), http.StatusConflict, "CONFLICT")
		other := launchReady(t, api, gift, listID)
		assertError(t, api.Do("POST", "/api/campaigns/"+other.CampaignID+"/launch", nil, "Idempotency-Key", "launch-1"),
			http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
		api.Jobs.Wait()
		if r, b := launchRecipientCount(t, s, orgID, c.CampaignID), walletBalance(t, s, orgID); r != 2 || b != credits-2*price {
			t.Errorf("%d recipients, balance %d; want 2 and %d", r, b, credits-2*price)
		}
	})
	t.Run("another org's campaign is not found", func(t *testing.T) {
		orgID, key := testenv.Org(t, s, "owner", credits)
		otherID, otherKey := testenv.Org(t, s, "intruder", credits)
		api := testenv.NewAPI(t, s, key)
		listID, _ := listWithContacts(t, s, orgID, 1)
		c := launchReady(t, api, gift, listID)
		assertError(t, api.WithKey(otherKey).Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil), http.StatusNotFound, "NOT_FOUND")
		if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Draft {
			t.Errorf("status %s, want draft", got.Status)
		}
		if b1, b2 := walletBalance(t, s, orgID), walletBalance(t, s, otherID); b1 != credits || b2 != credits {
			t.Errorf("balances %d, %d; want both untouched", b1, b2)
		}
	})
}
