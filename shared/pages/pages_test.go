package pages_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// fixture is an organization with a two-gift campaign (a cheap gift and a
// dear one, which sets the credits held per recipient) and the pages over
// it.
type fixture struct {
	s                *dynamo.Store
	h                http.Handler
	orgID, campaign  string
	apiKey           string
	cheap, dear      catalog.Gift
	startingBalance  int64
	creditsPerPerson int64
}

func newFixture(t *testing.T, db dynamo.DB) *fixture {
	t.Helper()
	return newFixtureWith(t, db, func(name string) (string, string) {
		return name + " <b>described</b>", "https://img.test/" + strings.ToLower(name) + ".png"
	})
}

// newFixtureWith is newFixture with each gift's short description and
// image URL from look.
func newFixtureWith(t *testing.T, db dynamo.DB, look func(name string) (description, imageURL string)) *fixture {
	t.Helper()
	ctx := context.Background()
	base := testenv.Store(t)
	s := base
	if db != nil {
		s = dynamo.New(db, base.Table())
	}
	f := &fixture{s: s, startingBalance: 1000, creditsPerPerson: 40}
	f.orgID, f.apiKey = testenv.Org(t, s, "acme", f.startingBalance)
	mk := func(name string, price float64, available int) catalog.Gift {
		description, image := look(name)
		g, err := catalog.NewApp(s).CreateGift(ctx, f.orgID, catalog.Gift{Name: name, Price: price, Currency: "USD", Status: catalog.GiftAvailable,
			ShortDescription: description, ImageURLs: []string{image},
			Inventory: catalog.Inventory{Total: available + 2, Available: available, Reserved: 2}})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	f.cheap, f.dear = mk("Coffee", 9.5, 5), mk("Headphones", 40, 5)
	c, err := testenv.CreateCampaign(ctx, s, f.orgID, campaign.Campaign{Name: "Spring thanks", Description: "Thank you for a great year!",
		CreatedBy: "user-1", CampaignData: campaign.Data{GiftIDs: []string{f.cheap.GiftID, f.dear.GiftID}, CreditsPerRecipient: f.creditsPerPerson, PriceSet: true}})
	if err != nil {
		t.Fatal(err)
	}
	f.campaign = c.CampaignID
	f.h = site.New(s, testenv.Quiet)
	return f
}

// add adds a recipient and returns it.
func (f *fixture) add(t *testing.T, email string) recipient.Recipient {
	t.Helper()
	res, err := testenv.Recipients(f.s).Write(context.Background(), recipient.AddInput{
		OrgID: f.orgID, CampaignID: f.campaign, SourceType: "api", PublicBaseURL: "https://gifts.test",
		Contact: gifting.ContactInput{MailID: email, FirstName: "Jane <i>", LastName: "Doe"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Recipient
}

func (f *fixture) recipient(t *testing.T, id string) recipient.Recipient {
	t.Helper()
	r, err := f.s.Recipient(context.Background(), f.orgID, f.campaign, id)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// soldOut sets gift giftID's available stock to 0 behind the service's
// back, as a claim elsewhere would between a page and its form's post.
func (f *fixture) soldOut(t *testing.T, giftID string) {
	t.Helper()
	_, err := testenv.Client(t).UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: ptr(f.s.Table()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + f.orgID},
			"SK": &types.AttributeValueMemberS{Value: "GIFT#" + giftID}},
		UpdateExpression:          ptr("SET inventory.available = :z"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":z": &types.AttributeValueMemberN{Value: "0"}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) gift(t *testing.T, id string) gifting.Gift {
	t.Helper()
	g, err := f.s.Gift(context.Background(), f.orgID, id)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// wallet returns the balance after checking that the ledger sums to it.
func (f *fixture) wallet(t *testing.T) (int64, []wallet.Entry) {
	t.Helper()
	st, err := f.s.WalletStatement(context.Background(), f.orgID, gifting.PageRequest{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, e := range st.Entries {
		if e.Type == wallet.Debit {
			sum -= e.Amount
		} else {
			sum += e.Amount
		}
	}
	if sum != st.Wallet.Balance {
		t.Errorf("ledger sums to %d, balance is %d", sum, st.Wallet.Balance)
	}
	return st.Wallet.Balance, st.Entries
}

type response struct {
	status int
	header http.Header
	body   string
}

func (f *fixture) do(t *testing.T, method, path string, form url.Values) response {
	t.Helper()
	var req *http.Request
	if form != nil {
		req = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	} else {
		req = httptest.NewRequest(method, path, nil)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

func address(giftID string) url.Values {
	return url.Values{"giftId": {giftID}, "line1": {"1 Main Street"}, "line2": {"Apt 2"}, "city": {"Springfield"},
		"state": {"IL"}, "zip": {"62701"}, "country": {"us"}, "phoneNumber": {"+1 217 555 0100"}}
}

func TestLandingPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	res := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if res.status != http.StatusOK {
		t.Fatalf("landing: %d %s", res.status, res.body)
	}
	for _, want := range []string{"Hi Jane &lt;i&gt;", "Org acme", "Spring thanks", "Thank you for a great year!", "Coffee &lt;b&gt;described&lt;/b&gt;",
		"https://img.test/headphones.png", `href="/claim/` + r.ClaimPageID + `"`} {
		if !strings.Contains(res.body, want) {
			t.Errorf("landing page lacks %q", want)
		}
	}
	for _, secret := range []string{"jane@example.com", r.RecipientID, f.orgID + "\"", f.campaign, "<i>"} {
		if strings.Contains(res.body, secret) {
			t.Errorf("landing page shows %q", secret)
		}
	}
	if got := f.recipient(t, r.RecipientID).ViewedAt; got == nil {
		t.Error("viewedAt not recorded on the first view")
	}
	first := *f.recipient(t, r.RecipientID).ViewedAt
	f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if got := f.recipient(t, r.RecipientID).ViewedAt; got == nil || !got.Equal(first) {
		t.Errorf("viewedAt moved on a second view: %v, first %v", got, first)
	}
	t.Run("safety headers", func(t *testing.T) {
		want := map[string]string{
			"Referrer-Policy": "no-referrer", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
			"Content-Type": "text/html; charset=utf-8",
		}
		for k, v := range want {
			if got := res.header.Get(k); got != v {
				t.Errorf("%s = %q, want %q", k, got, v)
			}
		}
		if !strings.Contains(res.header.Get("X-Robots-Tag"), "noindex") {
			t.Errorf("X-Robots-Tag = %q", res.header.Get("X-Robots-Tag"))
		}
		csp := res.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "form-action 'self'") || strings.Contains(csp, "script-src") ||
			!strings.Contains(csp, "img-src 'self' https:;") || strings.Contains(csp, "http:") {
			t.Errorf("Content-Security-Policy = %q; want images from https only", csp)
		}
		if hsts := res.header.Get("Strict-Transport-Security"); !strings.Contains(hsts, "max-age=63072000") {
			t.Errorf("Strict-Transport-Security = %q, want two years", hsts)
		}
	})
}

func TestClaim(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	balance, _ := f.wallet(t)

	t.Run("the form offers the gifts in stock", func(t *testing.T) {
		res := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil)
		if res.status != http.StatusOK || strings.Count(res.body, `type="radio" name="giftId"`) != 2 {
			t.Fatalf("claim form: %d %s", res.status, res.body)
		}
		for _, name := range []string{"line1", "line2", "city", "state", "zip", "country", "phoneNumber"} {
			if !strings.Contains(res.body, `<label for="`+name+`"`) {
				t.Errorf("no label for %s", name)
			}
		}
	})
	t.Run("invalid fields show the form again and write nothing", func(t *testing.T) {
		for name, tc := range map[string]struct{ field, value, problem string }{
			"missing street":   {"line1", "", "is required"},
			"street not UTF-8": {"line1", "1 Main \xff\xfe Street", "must be text (UTF-8)"},
			"city not UTF-8":   {"city", "\xc3", "must be text (UTF-8)"},
			"unknown country":  {"country", "XX", "ISO 3166-1"},
			"bad zip":          {"zip", "<script>", "letters, digits"},
			"bad phone":        {"phoneNumber", "call me", "phone number"},
			"no gift":          {"giftId", "", "choose a gift"},
			"foreign gift":     {"giftId", "gift-artisan-coffee", "choose one of the gifts"},
		} {
			t.Run(name, func(t *testing.T) {
				form := address(f.cheap.GiftID)
				form.Set(tc.field, tc.value)
				res := f.do(t, "POST", "/claim/"+r.ClaimPageID, form)
				if res.status != http.StatusBadRequest {
					t.Fatalf("status %d, want 400: %s", res.status, res.body)
				}
				if !strings.Contains(res.body, `id="`+tc.field+`-error">`) || !strings.Contains(res.body, tc.problem) {
					t.Errorf("no error %q beside %s", tc.problem, tc.field)
				}
				if tc.field != "city" && !strings.Contains(res.body, `value="Springfield"`) {
					t.Error("the entered city was not kept")
				}
				if got := f.recipient(t, r.RecipientID); got.Claimed() || got.Status.Rank() >= gifting.RecipientAddressConfirmed.Rank() {
					t.Errorf("recipient changed: %s", got.Status)
				}
			})
		}
	})
	t.Run("a complete claim confirms, reserves and refunds", func(t *testing.T) {
		res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID))
		if res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/gift/"+r.LandingPageID) {
			t.Fatalf("claim: %d %v %s", res.status, res.header, res.body)
		}
		got := f.recipient(t, r.RecipientID)
		// Processing: the claim opened the recipient's order (decision 0009).
		if got.Status != gifting.RecipientProcessing || got.SelectedGift.GiftID != f.cheap.GiftID || got.ClaimedAt == nil ||
			got.Address == nil || got.Address.Country != "US" || got.Address.Line1 != "1 Main Street" || got.CreditsCharged != 10 {
			t.Errorf("recipient after claim: %+v", got)
		}
		if inv := f.gift(t, f.cheap.GiftID).Inventory; inv.Available != 4 || inv.Reserved != 3 {
			t.Errorf("inventory %+v, want one unit moved to reserved", inv)
		}
		after, entries := f.wallet(t)
		if after != balance+30 || entries[0].Type != wallet.Refund || entries[0].Amount != 30 || entries[0].RecipientID != r.RecipientID {
			t.Errorf("balance %d (was %d), newest entry %+v; want a refund of 30 = 40 held - ceil(9.5)", after, balance, entries[0])
		}
		c, err := f.s.Campaign(context.Background(), f.orgID, f.campaign)
		if err != nil {
			t.Fatal(err)
		}
		if c.LiveData.CreditsSpent != 10 || c.LiveData.StatusCounts[gifting.RecipientProcessing] != 1 {
			t.Errorf("campaign counters %+v", c.LiveData)
		}
		ct, err := contact.NewApp(f.s, nil).Contact(context.Background(), f.orgID, got.ContactDetails.ContactID)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(ct.Addresses); n != 1 || ct.Addresses[0].Source.Type != "recipient" || ct.Addresses[0].City != "Springfield" {
			t.Errorf("contact addresses %+v", ct.Addresses)
		}
		landing := f.do(t, "GET", res.header.Get("Location"), nil)
		if landing.status != http.StatusOK || !strings.Contains(landing.body, "Coffee") || !strings.Contains(landing.body, "Your gift is being prepared.") {
			t.Errorf("landing after claim: %d %s", landing.status, landing.body)
		}
	})
	t.Run("a second claim is a conflict and changes nothing", func(t *testing.T) {
		before, _ := f.wallet(t)
		res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.dear.GiftID))
		if res.status != http.StatusConflict || !strings.Contains(res.body, "already confirmed") {
			t.Fatalf("second claim: %d %s", res.status, res.body)
		}
		if get := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil); get.status != http.StatusSeeOther || get.header.Get("Location") != "/gift/"+r.LandingPageID {
			t.Errorf("claim page after the claim: %d, want 303 to the landing page", get.status)
		}
		if after, _ := f.wallet(t); after != before || f.recipient(t, r.RecipientID).SelectedGift.GiftID != f.cheap.GiftID {
			t.Error("the second claim changed something")
		}
		if inv := f.gift(t, f.dear.GiftID).Inventory; inv.Available != 5 {
			t.Errorf("inventory of the other gift moved: %+v", inv)
		}
	})
	t.Run("the dear gift refunds nothing", func(t *testing.T) {
		r2 := f.add(t, "joe@example.com")
		before, _ := f.wallet(t)
		if res := f.do(t, "POST", "/claim/"+r2.ClaimPageID, address(f.dear.GiftID)); res.status != http.StatusSeeOther {
			t.Fatalf("claim: %d %s", res.status, res.body)
		}
		if after, _ := f.wallet(t); after != before {
			t.Errorf("balance %d, want %d unchanged", after, before)
		}
	})
}

func TestClaimOutOfStock(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	// The page was read with stock; it runs out before the claim.
	f.soldOut(t, f.cheap.GiftID)
	balance, _ := f.wallet(t)
	res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID))
	if res.status != http.StatusConflict || !strings.Contains(res.body, "out of stock") || !strings.Contains(res.body, `value="Springfield"`) {
		t.Fatalf("claim of a gift out of stock: %d %s", res.status, res.body)
	}
	if got := f.recipient(t, r.RecipientID); got.Claimed() {
		t.Error("recipient claimed")
	}
	if after, _ := f.wallet(t); after != balance {
		t.Errorf("balance %d, want %d", after, balance)
	}
	if form := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil); strings.Count(form.body, `name="giftId"`) != 1 || strings.Contains(form.body, "Coffee") {
		t.Errorf("the form still offers the gift out of stock")
	}
}

// TestClaimTwiceAtOnce submits one claim page twice at the same time:
// exactly one succeeds, the wallet gets one refund, the inventory moves
// once.
func TestClaimTwiceAtOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for round := range 3 {
		r := f.add(t, "jane"+string(rune('a'+round))+"@example.com")
		before, _ := f.wallet(t)
		inv := f.gift(t, f.cheap.GiftID).Inventory
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)).status
			}()
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, st := range statuses {
			switch st {
			case http.StatusSeeOther:
				ok++
			case http.StatusConflict:
				conflict++
			}
		}
		if ok != 1 || conflict != 1 {
			t.Fatalf("round %d: statuses %v, want one 303 and one 409", round, statuses)
		}
		if after, _ := f.wallet(t); after != before+30 {
			t.Errorf("round %d: balance %d, want %d (one refund)", round, after, before+30)
		}
		if got := f.gift(t, f.cheap.GiftID).Inventory; got.Available != inv.Available-1 || got.Reserved != inv.Reserved+1 {
			t.Errorf("round %d: inventory %+v, was %+v", round, got, inv)
		}
	}
}

// completingDB completes the campaign just before the first transaction
// that writes a recipient: a completion racing a claim.
type completingDB struct {
	dynamo.DB
	once sync.Once
	do   func()
}

func (d *completingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
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

func TestClaimRacingCompletion(t *testing.T) {
	t.Parallel()
	db := &completingDB{DB: testenv.Client(t), do: func() {}}
	f := newFixture(t, db)
	r := f.add(t, "jane@example.com") // its write runs the no-op below
	testenv.SetCampaignStatus(t, f.s, f.orgID, f.campaign, campaign.Live)
	db.once = sync.Once{}
	db.do = func() {
		if _, err := testenv.Campaigns(f.s).Move(context.Background(), f.orgID, f.campaign, campaign.Complete, "user-1", ""); err != nil {
			t.Errorf("complete: %v", err)
		}
	}
	balance, _ := f.wallet(t)
	res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID))
	if res.status != http.StatusGone {
		t.Fatalf("claim racing completion: %d %s", res.status, res.body)
	}
	if got := f.recipient(t, r.RecipientID); got.Claimed() {
		t.Error("recipient claimed")
	}
	if after, _ := f.wallet(t); after != balance {
		t.Errorf("balance %d, want %d", after, balance)
	}
	if inv := f.gift(t, f.cheap.GiftID).Inventory; inv.Available != 5 {
		t.Errorf("inventory moved: %+v", inv)
	}
}

func TestPageAnswers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	done := f.add(t, "done@example.com")
	testenv.Claim(t, f.s, f.orgID, f.campaign, done.RecipientID)
	testenv.SetCampaignStatus(t, f.s, f.orgID, f.campaign, campaign.Completed)
	for name, tc := range map[string]struct {
		method, path string
		form         url.Values
		want         int
	}{
		"unknown id":                     {"GET", "/gift/" + strings.Repeat("a", 26), nil, 404},
		"malformed id":                   {"GET", "/gift/NOT-AN-ID", nil, 404},
		"claim id on the landing route":  {"GET", "/gift/" + r.ClaimPageID, nil, 404},
		"landing id on the claim route":  {"GET", "/claim/" + r.LandingPageID, nil, 404},
		"completed campaign, claim page": {"GET", "/claim/" + r.ClaimPageID, nil, 410},
		"completed campaign, landing":    {"GET", "/gift/" + r.LandingPageID, nil, 410},
		"completed campaign, claim post": {"POST", "/claim/" + r.ClaimPageID, address(f.cheap.GiftID), 410},
		"claimed before completion":      {"GET", "/gift/" + done.LandingPageID, nil, 200},
		"no route":                       {"GET", "/gift", nil, 404},
		"body over 16 KiB":               {"POST", "/claim/" + r.ClaimPageID, url.Values{"line1": {strings.Repeat("x", 17<<10)}}, 413},
		"acknowledge before delivery":    {"POST", "/gift/" + done.LandingPageID + "/acknowledge", url.Values{}, 409},
	} {
		t.Run(name, func(t *testing.T) {
			res := f.do(t, tc.method, tc.path, tc.form)
			if res.status != tc.want || !strings.HasPrefix(res.header.Get("Content-Type"), "text/html") {
				t.Errorf("%s %s: %d %s, want %d as a page", tc.method, tc.path, res.status, res.header.Get("Content-Type"), tc.want)
			}
			if res.header.Get("Referrer-Policy") != "no-referrer" {
				t.Error("no Referrer-Policy")
			}
		})
	}
	t.Run("deleted campaign", func(t *testing.T) {
		testenv.SetCampaignStatus(t, f.s, f.orgID, f.campaign, campaign.Live)
		if _, err := testenv.Campaigns(f.s).Delete(context.Background(), f.orgID, f.campaign, "user-1"); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/gift/" + r.LandingPageID, "/claim/" + r.ClaimPageID, "/gift/" + done.LandingPageID} {
			if res := f.do(t, "GET", path, nil); res.status != http.StatusGone {
				t.Errorf("GET %s: %d, want 410", path, res.status)
			}
		}
	})
}

func TestAcknowledgeAndFeedback(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.add(t, "jane@example.com")
	testenv.Claim(t, f.s, f.orgID, f.campaign, r.RecipientID)
	landing := "/gift/" + r.LandingPageID
	if res := f.do(t, "POST", landing+"/feedback", url.Values{"rating": {"like"}}); res.status != http.StatusConflict {
		t.Errorf("feedback before delivery: %d", res.status)
	}
	testenv.Ship(t, f.s, f.orgID, f.campaign, r.RecipientID) // its order ships first (issue 31)
	if _, err := testenv.Recipients(f.s).Move(context.Background(), f.orgID, f.campaign, r.RecipientID, gifting.RecipientDelivered); err != nil {
		t.Fatal(err)
	}
	if res := f.do(t, "GET", landing, nil); !strings.Contains(res.body, "It arrived") {
		t.Errorf("delivered landing page without an It arrived button: %s", res.body)
	}
	if res := f.do(t, "POST", landing+"/acknowledge", url.Values{}); res.status != http.StatusSeeOther {
		t.Fatalf("acknowledge: %d %s", res.status, res.body)
	}
	if got := f.recipient(t, r.RecipientID); got.Status != gifting.RecipientAcknowledged {
		t.Errorf("status %s after It arrived", got.Status)
	}
	if res := f.do(t, "POST", landing+"/feedback", url.Values{"rating": {"meh"}, "message": {"Nice <3"}}); res.status != http.StatusBadRequest ||
		!strings.Contains(res.body, `id="rating-error"`) || !strings.Contains(res.body, "Nice &lt;3") {
		t.Errorf("invalid rating: %d %s", res.status, res.body)
	}
	if res := f.do(t, "POST", landing+"/feedback", url.Values{"rating": {"like"}, "message": {"Lovely, thank you!"}}); res.status != http.StatusSeeOther {
		t.Fatalf("feedback: %d %s", res.status, res.body)
	}
	got := f.recipient(t, r.RecipientID)
	if got.Feedback.Rating == nil || got.Feedback.Rating.Value != "like" || len(got.Feedback.Message) != 1 ||
		got.Feedback.Message[0].Type != "text" || got.Feedback.Message[0].Text != "Lovely, thank you!" {
		t.Errorf("feedback %+v", got.Feedback)
	}
}

func ptr[T any](v T) *T { return &v }

func TestExpiredGiftPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	testenv.SetCampaignStatus(t, f.s, f.orgID, f.campaign, campaign.Live)
	r := f.add(t, "jane@example.com")
	expired, err := testenv.Recipients(f.s).Expire(context.Background(), f.orgID, f.campaign, r.RecipientID, false)
	if err != nil || !expired {
		t.Fatalf("expire: %v, %v", expired, err)
	}
	for name, tc := range map[string]struct {
		method string
		form   url.Values
	}{
		"claim page": {"GET", nil},
		"claim post": {"POST", address(f.cheap.GiftID)},
	} {
		t.Run(name, func(t *testing.T) {
			res := f.do(t, tc.method, "/claim/"+r.ClaimPageID, tc.form)
			if res.status != http.StatusGone || !strings.Contains(res.body, "This gift has expired") {
				t.Errorf("%s: %d %s, want 410 saying the gift expired", name, res.status, res.body)
			}
		})
	}
	if got := f.recipient(t, r.RecipientID); got.Status != gifting.RecipientExpired || got.Claimed() {
		t.Errorf("recipient %s (claimed %v), want expired and unclaimed", got.Status, got.Claimed())
	}
	if balance, _ := f.wallet(t); balance != f.startingBalance {
		t.Errorf("balance %d, want %d: the held credits back", balance, f.startingBalance)
	}
	if inv := f.gift(t, f.cheap.GiftID).Inventory; inv.Available != 5 {
		t.Errorf("inventory moved: %+v", inv)
	}
	testenv.AssertLedgerBalanced(t, f.s, f.orgID)
}
