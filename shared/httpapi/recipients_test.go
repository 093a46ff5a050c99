package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// createCampaign creates a draft campaign with the catalog's meeting-booker
// template and a gift of the organization's own at price credits a
// recipient (a catalog gift may not go below its catalog price), and
// returns its id.
func createCampaign(t *testing.T, api *testenv.API, price int64) string {
	t.Helper()
	var gift struct {
		Data gifting.Gift `json:"data"`
	}
	res := api.Do("POST", "/api/campaigns/gifts", newGift("Spring hamper", float64(price)))
	res.JSON(t, &gift)
	if res.Status != http.StatusCreated {
		t.Fatalf("create gift: %d %s", res.Status, res.Body)
	}
	res = api.Do("POST", "/api/campaigns", map[string]any{
		"name": "Spring thanks",
		"campaignData": map[string]any{
			"giftIds": []string{gift.Data.GiftID}, "emailTemplateId": "tmpl-meeting-booker", "creditsPerRecipient": price,
		},
	})
	var env struct {
		Data struct {
			CampaignID string `json:"campaignId"`
		} `json:"data"`
	}
	res.JSON(t, &env)
	if res.Status != http.StatusCreated || env.Data.CampaignID == "" {
		t.Fatalf("create campaign: %d %s", res.Status, res.Body)
	}
	return env.Data.CampaignID
}

func recipientBody(email, first string) map[string]any {
	return map[string]any{"contactDetails": map[string]any{"email": email, "firstName": first, "lastName": "Doe"}}
}

func addPath(campaignID string) string {
	return "/api/campaigns/campaigns/" + campaignID + "/add-recipient"
}

// walletOf reads the wallet endpoint.
func walletOf(t *testing.T, api *testenv.API, query string) walletData {
	t.Helper()
	var env struct {
		Data walletData `json:"data"`
	}
	res := api.Do("GET", "/api/campaigns/wallet"+query, nil)
	res.JSON(t, &env)
	if res.Status != http.StatusOK {
		t.Fatalf("wallet: %d %s", res.Status, res.Body)
	}
	return env.Data
}

type walletData struct {
	Balance int64 `json:"balance"`
	Ledger  struct {
		Items      []wire.LedgerEntry `json:"items"`
		Pagination gifting.Pagination `json:"pagination"`
	} `json:"ledger"`
}

func TestAddRecipientEndpoint(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 100)
	_, otherKey := testenv.Org(t, s, "globex", 100)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 40)
	testenv.SetCampaignStatus(t, s, "acme", campaignID, campaign.Live) // a draft invites no one

	t.Run("ok", func(t *testing.T) {
		res := api.Do("POST", addPath(campaignID), recipientBody("Jane@Example.com", "<b>Jane</b>"))
		if res.Status != http.StatusOK {
			t.Fatalf("status %d: %s", res.Status, res.Body)
		}
		m := res.Map(t)
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := []string{"campaignId", "claimPageUrl", "contactId", "creditsDeducted", "emailSent", "landingPageUrl",
			"message", "recipientId", "remainingBalance", "success"}
		if !slices.Equal(keys, want) {
			t.Errorf("response fields %v, want exactly %v", keys, want)
		}
		if m["success"] != true || m["emailSent"] != true || m["creditsDeducted"] != 40.0 || m["remainingBalance"] != 60.0 ||
			m["campaignId"] != campaignID || !strings.HasPrefix(m["landingPageUrl"].(string), "https://gifts.test/gift/") {
			t.Errorf("response = %s", res.Body)
		}
		sent := api.Mail.Sent()
		if len(sent) != 1 || sent[0].To != "jane@example.com" || sent[0].RecipientID != m["recipientId"] {
			t.Fatalf("outbox = %+v; want the invitation to jane@example.com", sent)
		}
		if strings.Contains(sent[0].HTML, "<b>Jane</b>") || !strings.Contains(sent[0].HTML, m["landingPageUrl"].(string)) {
			t.Errorf("invitation html %q: want the name escaped and the landing page linked", sent[0].HTML)
		}
	})
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"no contactDetails", map[string]any{"sourceType": "api"}, "contactDetails"},
		{"no email", map[string]any{"contactDetails": map[string]any{"firstName": "Jo"}}, "contactDetails.email"},
		{"invalid email", recipientBody("jo@", "Jo"), "contactDetails.email"},
		{"bad sourceType", map[string]any{"contactDetails": map[string]any{"email": "jo@example.com"}, "sourceType": "fax"}, "sourceType"},
		{"unknown field", map[string]any{"contactDetails": map[string]any{"email": "jo@example.com"}, "price": 0}, "price"},
		{"bad linkedinUrl", map[string]any{"contactDetails": map[string]any{"email": "jo@example.com", "linkedinUrl": "nope"}}, "contactDetails.linkedinUrl"},
		{"contactDetails not an object", map[string]any{"contactDetails": "jo@example.com"}, "contactDetails"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", addPath(campaignID), tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("bad Idempotency-Key", func(t *testing.T) {
		res := api.Do("POST", addPath(campaignID), recipientBody("jo@example.com", "Jo"), "Idempotency-Key", "has space")
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("unknown campaign", func(t *testing.T) {
		assertError(t, api.Do("POST", addPath("nope"), recipientBody("jo@example.com", "Jo")), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("another org's campaign", func(t *testing.T) {
		assertError(t, api.WithKey(otherKey).Do("POST", addPath(campaignID), recipientBody("jo@example.com", "Jo")), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("contact already a recipient", func(t *testing.T) {
		assertError(t, api.Do("POST", addPath(campaignID), recipientBody("JANE@example.com", "Jane")), http.StatusConflict, "CONFLICT")
	})
	t.Run("completed campaign", func(t *testing.T) {
		done := createCampaign(t, api, 1)
		testenv.SetCampaignStatus(t, s, "acme", done, campaign.Completed)
		assertError(t, api.Do("POST", addPath(done), recipientBody("jo@example.com", "Jo")), http.StatusConflict, "CONFLICT")
	})
	t.Run("not enough credits writes nothing", func(t *testing.T) {
		if res := api.Do("POST", addPath(campaignID), recipientBody("bob@example.com", "Bob")); res.Status != http.StatusOK {
			t.Fatalf("second add: %d %s", res.Status, res.Body)
		}
		res := api.Do("POST", addPath(campaignID), recipientBody("carol@example.com", "Carol"))
		assertError(t, res, http.StatusPaymentRequired, "INSUFFICIENT_CREDITS")
		if w := walletOf(t, api, ""); w.Balance != 20 || w.Ledger.Pagination.Total != 3 {
			t.Errorf("wallet %d with %d entries; want 20 and 3", w.Balance, w.Ledger.Pagination.Total)
		}
		if res := api.Do("GET", "/api/campaigns/contacts?search=carol", nil); strings.Contains(string(res.Body), "carol@") {
			t.Error("the refused add left a contact")
		}
	})
	t.Run("mail failure leaves the recipient pending", func(t *testing.T) {
		api.Mail.SetFail(errors.New("smtp down"))
		defer api.Mail.SetFail(nil)
		cheap := createCampaign(t, api, 1)
		testenv.SetCampaignStatus(t, s, "acme", cheap, campaign.Live)
		res := api.Do("POST", addPath(cheap), recipientBody("dan@example.com", "Dan"))
		m := res.Map(t)
		if res.Status != http.StatusOK || m["emailSent"] != false {
			t.Fatalf("add with failing mail: %d %s; want 200 and emailSent false", res.Status, res.Body)
		}
		l := listRecipients(t, api, cheap, "")
		if len(l.Recipients) != 1 || l.Recipients[0].Status != gifting.RecipientPending || l.StatusCounts["pending"] != 1 ||
			l.Recipients[0].Emails.AddressConfirmation.Sent || !l.Recipients[0].Emails.AddressConfirmation.Active {
			t.Errorf("recipient after a failed send: %+v, counts %v; want pending, invitation still scheduled", l.Recipients, l.StatusCounts)
		}
	})
}

func TestAddRecipientIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 100)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 10)
	testenv.SetCampaignStatus(t, s, "acme", campaignID, campaign.Live)

	first := api.Do("POST", addPath(campaignID), recipientBody("jane@example.com", "Jane"), "Idempotency-Key", "key-1")
	if first.Status != http.StatusOK {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	t.Run("a replay returns the first response and spends nothing", func(t *testing.T) {
		// The same request, spelled differently: field order and spaces.
		again := api.Do("POST", addPath(campaignID),
			`{ "contactDetails": {"lastName": "Doe", "firstName": "Jane", "email": "jane@example.com"} }`, "Idempotency-Key", "key-1")
		if again.Status != http.StatusOK || string(again.Body) != string(first.Body) || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s (replayed %q); want the first response %s", again.Status, again.Body, again.Header.Get("Idempotent-Replayed"), first.Body)
		}
		if w := walletOf(t, api, ""); w.Balance != 90 {
			t.Errorf("balance %d, want 90", w.Balance)
		}
		if n := len(api.Mail.Sent()); n != 1 {
			t.Errorf("%d emails sent, want 1", n)
		}
	})
	t.Run("the same key with another body", func(t *testing.T) {
		res := api.Do("POST", addPath(campaignID), recipientBody("bob@example.com", "Bob"), "Idempotency-Key", "key-1")
		assertError(t, res, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	})
	t.Run("the same key on another campaign", func(t *testing.T) {
		other := createCampaign(t, api, 10)
		res := api.Do("POST", addPath(other), recipientBody("jane@example.com", "Jane"), "Idempotency-Key", "key-1")
		assertError(t, res, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	})
}

// TestAddRecipientConcurrency sends many add-recipients at once through
// the HTTP handler: the wallet must end exact, never below zero.
func TestAddRecipientConcurrency(t *testing.T) {
	t.Parallel()
	const price, affordable, requests = 7, 37, 100
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", price*affordable)
	// Internal errors are logged, not answered: keep the log, so a 500
	// under load says what it was.
	var errLog lockedBuffer
	log := slog.New(slog.NewTextHandler(&errLog, &slog.HandlerOptions{Level: slog.LevelError}))
	api := testenv.HandlerAPI(t, httpapi.NewServer(s, service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: log, Mailer: &mail.Memory{}}), httpapi.Config{Logger: log}).
		Handler(httpapi.Groups...), key)
	campaignID := createCampaign(t, api, price)

	statuses := make([]int, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = api.Do("POST", addPath(campaignID), recipientBody(fmt.Sprintf("person%d@example.com", i), "P")).Status
		}()
	}
	wg.Wait()
	count := map[int]int{}
	for _, st := range statuses {
		count[st]++
	}
	if count[http.StatusOK] != affordable || count[http.StatusPaymentRequired] != requests-affordable {
		t.Fatalf("statuses %v; want %d × 200 and %d × 402; error log:\n%s", count, affordable, requests-affordable, errLog.String())
	}
	w := walletOf(t, api, "?limit=100")
	debits := 0
	for _, e := range w.Ledger.Items {
		if e.Type == string(wallet.Debit) {
			debits++
		}
	}
	if w.Balance != 0 || debits != affordable || w.Ledger.Pagination.Total != affordable+1 {
		t.Errorf("balance %d, %d debits, %d ledger entries; want 0, %d, %d", w.Balance, debits, w.Ledger.Pagination.Total, affordable, affordable+1)
	}
	l := listRecipients(t, api, campaignID, "?limit=100")
	if len(l.Recipients) != affordable || l.Pagination.Total != affordable || l.TotalRecipientsInCampaign != affordable {
		t.Errorf("%d recipients listed, total %d, in campaign %d; want %d", len(l.Recipients), l.Pagination.Total, l.TotalRecipientsInCampaign, affordable)
	}

	t.Run("one Idempotency-Key sent 20 times at once charges once", func(t *testing.T) {
		_, key := testenv.Org(t, s, "initech", 1000)
		api := api.WithKey(key)
		campaignID := createCampaign(t, api, 25)
		bodies := make([]string, 20)
		var wg sync.WaitGroup
		for i := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := api.Do("POST", addPath(campaignID), recipientBody("same@example.com", "Sam"), "Idempotency-Key", "one-key")
				if res.Status != http.StatusOK {
					t.Errorf("request %d: %d %s", i, res.Status, res.Body)
				}
				bodies[i] = string(res.Body)
			}()
		}
		wg.Wait()
		for i, b := range bodies {
			if b != bodies[0] {
				t.Fatalf("response %d differs: %s vs %s", i, b, bodies[0])
			}
		}
		if w := walletOf(t, api, ""); w.Balance != 975 || w.Ledger.Pagination.Total != 2 {
			t.Errorf("balance %d with %d ledger entries; want 975 and 2", w.Balance, w.Ledger.Pagination.Total)
		}
	})
}

// TestRecipientRequestCounts holds the DynamoDB requests of the recipient
// endpoints to their targets, with the API-key cache warm: add-recipient
// is one transaction and two reads, and the organization's rate-limit
// counter (one UpdateItem) when the process's lease of it is spent; a list
// page (a last-name page too) and the wallet are two requests, a page of
// one status three; each call's count in the month's usage one more.
func TestRecipientRequestCounts(t *testing.T) {
	t.Parallel()
	meter := meter.New(testenv.Client(t))
	s := dynamo.New(meter, testenv.Table(t))
	if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	_, key := testenv.Org(t, s, "acme", 1000)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 10)
	if res := api.Do("POST", addPath(campaignID), recipientBody("first@example.com", "F")); res.Status != http.StatusOK {
		t.Fatalf("warm-up add: %d %s", res.Status, res.Body)
	}
	for _, tt := range []struct {
		name, method, path string
		body               any
		want               int
		// limited: the rate-limit counter may add one request.
		limited bool
	}{
		{"add-recipient, new contact", "POST", addPath(campaignID), recipientBody("new@example.com", "N"), 3, true},
		{"add-recipient, existing contact", "POST", addPath(createCampaign(t, api, 10)), recipientBody("first@example.com", "F"), 3, true},
		{"recipient list page", "GET", "/api/campaigns/campaigns/" + campaignID + "/recipients", nil, 2, false},
		{"filtered, sorted list page", "GET", "/api/campaigns/campaigns/" + campaignID + "/recipients?search=n&sortBy=email", nil, 2, false},
		// The campaign's last-name keys up to the page's end, then the page:
		// dynamo/recipientnames.go.
		{"last-name page", "GET", "/api/campaigns/campaigns/" + campaignID + "/recipients?sortBy=lastName", nil, 2, false},
		// A status page reads the status's two partitions (with feedback and
		// without) at once, then the page: dynamo/recipientstatus.go.
		{"express-send page", "GET", "/api/campaigns/recipients/express-send/campaign/" + campaignID + "?status=invite_sent", nil, 3, false},
		{"wallet", "GET", "/api/campaigns/wallet", nil, 2, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := meter.Total()
			if res := api.Do(tt.method, tt.path, tt.body); res.Status != http.StatusOK {
				t.Fatalf("%d %s", res.Status, res.Body)
			}
			used := meter.Total().Sub(before)
			t.Logf("%d requests, %.1f read units, %.1f write units", used.Requests, used.ReadUnits, used.WriteUnits)
			// Every call also counts itself in the organization's usage of
			// the month: one UpdateItem more (docs/operator.md).
			want := tt.want + 1
			if got := used.Requests; got != want && !(tt.limited && got == want+1) {
				t.Errorf("%d DynamoDB requests, want %d (+1 for the rate-limit counter if limited: %v)", got, want, tt.limited)
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
