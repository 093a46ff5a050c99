package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// moneyOrg is the test's model of one organization: what it may spend and
// what it owns.
type moneyOrg struct {
	id       string
	api      *testenv.API
	credits  int64              // initial credits plus accepted top-ups
	lists    []string           // contact lists, for launches
	ownGifts map[string]float64 // the org's own gifts and their prices
	drafts   []string           // campaigns created (any state now)
	emails   int                // emails used so far by add-recipient
	mu       sync.Mutex
	outcomes map[string]int // "add 200", "launch 402"…: what the run exercised
}

func (o *moneyOrg) count(what string, status int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.outcomes[fmt.Sprintf("%s %d", what, status)]++
}

// TestMoneyProperty runs random sequences of everything that moves credits
// (top-ups, gifts, campaigns, add-recipients with and without replays,
// concurrent adds on one wallet, launches run to completion, absurd
// amounts) over a few organizations, then checks that no money came from
// nowhere or vanished: every ledger sums to its balance, no balance is
// negative, each campaign spent exactly recipients × price, and each
// balance is what was put in minus what its recipients cost. Reproduce a
// failure with MONEY_SEED=<seed from the log>.
func TestMoneyProperty(t *testing.T) {
	t.Parallel()
	runSeed := uint64(time.Now().UnixNano())
	if v := os.Getenv("MONEY_SEED"); v != "" {
		var err error
		if runSeed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("MONEY_SEED: %v", err)
		}
	}
	t.Logf("seed %d (rerun with MONEY_SEED=%d)", runSeed, runSeed)
	steps := 30
	if testing.Short() {
		steps = 10
	}
	catalog, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	s := testenv.Store(t)
	for i := range 3 {
		id := fmt.Sprintf("org%d", i)
		rng := rand.New(rand.NewPCG(runSeed, uint64(i)))
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			initial := 1000 + rng.Int64N(5000)
			orgID, key := testenv.Org(t, s, id, initial)
			o := &moneyOrg{id: orgID, api: testenv.NewAPI(t, s, key), credits: initial, ownGifts: map[string]float64{}, outcomes: map[string]int{}}
			for range 2 {
				l, _ := listWithContacts(t, s, orgID, 1+rng.IntN(4))
				o.lists = append(o.lists, l)
			}
			for range steps {
				switch op := rng.IntN(10); {
				case op <= 1:
					o.topUp(t, s, rng)
				case op == 2:
					o.createGift(t, rng)
				case op <= 4:
					o.createCampaign(t, rng, catalog.Gifts)
				case op <= 7:
					o.addRecipients(t, rng)
				default:
					o.launch(t, rng)
				}
			}
			o.api.Jobs.Wait()
			o.check(t, s)
			t.Logf("outcomes: %v", o.outcomes)
		})
	}
}

// absurdCredits are amounts no real wallet sees, and the bounds' edges.
var absurdCredits = []int64{0, -1, wallet.MaxTopUp + 1, math.MaxInt64, math.MinInt64}

func (o *moneyOrg) topUp(t *testing.T, s *dynamo.Store, rng *rand.Rand) {
	t.Helper()
	credits := 1 + rng.Int64N(2000)
	if rng.IntN(3) == 0 {
		credits = absurdCredits[rng.IntN(len(absurdCredits))]
	}
	_, _, err := wallet.NewApp(s).TopUp(context.Background(), o.id, credits, "property test")
	valid := credits >= 1 && credits <= wallet.MaxTopUp
	switch {
	case valid && err != nil:
		t.Fatalf("top-up of %d: %v", credits, err)
	case !valid && gifting.ErrorCode(err) != gifting.CodeValidation:
		t.Fatalf("top-up of %d = %v; want VALIDATION_FAILED", credits, err)
	case valid:
		o.credits += credits
	}
}

// giftPrices are the prices gifts are created at: ordinary ones, the
// bound, and absurd ones (issue 11's among them).
var giftPrices = []float64{0, 3.5, 12, 12, 40.01, 40.01, 250, gifting.MaxGiftPrice, gifting.MaxGiftPrice + 1, 4.7e18, 1e20, -3}

func (o *moneyOrg) createGift(t *testing.T, rng *rand.Rand) {
	t.Helper()
	price := giftPrices[rng.IntN(len(giftPrices))]
	res := o.api.Do("POST", "/api/campaigns/gifts", newGift("Gift", price))
	o.count("gift", res.Status)
	if price < 0 || price > gifting.MaxGiftPrice {
		assertFieldRefused(t, res, "price")
		return
	}
	var g struct {
		Data gifting.Gift `json:"data"`
	}
	res.JSON(t, &g)
	if res.Status != http.StatusCreated {
		t.Fatalf("gift at %v: %d %s", price, res.Status, res.Body)
	}
	o.ownGifts[g.Data.GiftID] = price
}

// ownPrices are the creditsPerRecipient a campaign may set (-1: none).
var ownPrices = []int64{-1, -1, -1, 0, 5, 60, 60, 200, gifting.MaxCreditsPerRecipient, gifting.MaxCreditsPerRecipient + 1}

func (o *moneyOrg) createCampaign(t *testing.T, rng *rand.Rand, catalog []gifting.Gift) {
	t.Helper()
	ids := []string{}
	var dearest, floor int64
	price := func(p float64) int64 { return int64(math.Ceil(math.Round(p*100) / 100)) }
	if rng.IntN(2) == 0 {
		g := catalog[rng.IntN(len(catalog))]
		ids, dearest, floor = append(ids, g.GiftID), price(g.Price), price(g.Price)
	}
	for id, p := range o.ownGifts { // map order: a random own gift
		if rng.IntN(2) == 0 {
			ids, dearest = append(ids, id), max(dearest, price(p))
		}
		break
	}
	data := map[string]any{"giftIds": ids, "emailTemplateId": "tmpl-meeting-booker"}
	own := ownPrices[rng.IntN(len(ownPrices))]
	if own >= 0 {
		data["creditsPerRecipient"] = own
	}
	body := map[string]any{"name": "Property", "campaignData": data}
	if rng.IntN(3) > 0 {
		body["contactListIds"] = []string{o.lists[rng.IntN(len(o.lists))]}
	}
	res := o.api.Do("POST", "/api/campaigns", body)
	o.count("campaign", res.Status)
	if own > gifting.MaxCreditsPerRecipient || (own >= 0 && own < floor) {
		assertFieldRefused(t, res, "campaignData.creditsPerRecipient")
		return
	}
	var env campaignEnvelope
	res.JSON(t, &env)
	want := dearest
	if own >= 0 {
		want = own
	}
	if res.Status != http.StatusCreated || env.Data.CampaignData.CreditsPerRecipient != want {
		t.Fatalf("campaign %v: %d %s; want 201 at %d credits", body, res.Status, res.Body, want)
	}
	o.drafts = append(o.drafts, env.Data.CampaignID)
}

// addRecipients adds one recipient, one with a replayed Idempotency-Key,
// or several at once, to a random campaign.
func (o *moneyOrg) addRecipients(t *testing.T, rng *rand.Rand) {
	t.Helper()
	if len(o.drafts) == 0 {
		return
	}
	path := addPath(o.drafts[rng.IntN(len(o.drafts))])
	next := func() map[string]any {
		o.emails++
		return recipientBody(fmt.Sprintf("r%d@%s.example.com", o.emails, o.id), "R")
	}
	switch rng.IntN(3) {
	case 0:
		o.assertAdded(t, o.api.Do("POST", path, next()))
	case 1:
		body, key := next(), fmt.Sprintf("idem-%d", o.emails)
		first := o.api.Do("POST", path, body, "Idempotency-Key", key)
		o.assertAdded(t, first)
		again := o.api.Do("POST", path, body, "Idempotency-Key", key)
		if first.Status == http.StatusOK && (again.Status != http.StatusOK || string(again.Body) != string(first.Body)) {
			t.Fatalf("replay: %d %s; want the first response %s", again.Status, again.Body, first.Body)
		}
	default:
		n := 2 + rng.IntN(4)
		bodies := make([]map[string]any, n)
		for i := range bodies {
			bodies[i] = next()
		}
		var wg sync.WaitGroup
		for _, b := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o.assertAdded(t, o.api.Do("POST", path, b))
			}()
		}
		wg.Wait()
	}
}

// assertAdded accepts a 200 whose figures are sound, or a refusal a user
// can get here (short wallet, campaign no longer taking recipients).
func (o *moneyOrg) assertAdded(t *testing.T, res testenv.Response) {
	t.Helper()
	o.count("add", res.Status)
	switch res.Status {
	case http.StatusOK:
		var a wire.AddedRecipient
		res.JSON(t, &a)
		if a.CreditsDeducted < 0 || a.CreditsDeducted > gifting.MaxCreditsPerRecipient || a.RemainingBalance < 0 {
			t.Errorf("add-recipient answered %s", res.Body)
		}
	case http.StatusPaymentRequired, http.StatusConflict:
	default:
		t.Errorf("add-recipient: %d %s", res.Status, res.Body)
	}
}

func (o *moneyOrg) launch(t *testing.T, rng *rand.Rand) {
	t.Helper()
	if len(o.drafts) == 0 {
		return
	}
	res := o.api.Do("POST", "/api/campaigns/"+o.drafts[rng.IntN(len(o.drafts))]+"/launch", nil)
	o.count("launch", res.Status)
	switch res.Status {
	case http.StatusAccepted:
		var l launchEnvelope
		res.JSON(t, &l)
		if l.Data.CreditsDeducted != l.Data.Contacts*l.Data.CreditsPerRecipient || l.Data.CreditsDeducted < 0 || l.Data.RemainingBalance < 0 {
			t.Errorf("launch answered %s", res.Body)
		}
		o.api.Jobs.Wait()
	case http.StatusPaymentRequired, http.StatusConflict:
	default:
		t.Errorf("launch: %d %s", res.Status, res.Body)
	}
}

// check is the property: the ledger sums to the balance, nothing is
// negative, and every credit taken paid for a recipient at its campaign's
// price.
func (o *moneyOrg) check(t *testing.T, s *dynamo.Store) {
	t.Helper()
	testenv.AssertLedgerBalanced(t, s, o.id)
	var spent int64
	for _, id := range o.drafts {
		c := fetchCampaign(t, o.api, id)
		if want := c.TotalRecipients * c.CampaignData.CreditsPerRecipient; c.LiveData.CreditsSpent != want {
			t.Errorf("campaign %s (%s) spent %d credits; want %d recipients × %d", id, c.Status,
				c.LiveData.CreditsSpent, c.TotalRecipients, c.CampaignData.CreditsPerRecipient)
		}
		if n := int64(launchRecipientCount(t, s, o.id, id)); n != c.TotalRecipients {
			t.Errorf("campaign %s counts %d recipients; %d are stored", id, c.TotalRecipients, n)
		}
		spent += c.LiveData.CreditsSpent
	}
	if b := walletBalance(t, s, o.id); b < 0 || b != o.credits-spent {
		t.Errorf("balance %d; want %d put in − %d spent on recipients = %d", b, o.credits, spent, o.credits-spent)
	}
}
