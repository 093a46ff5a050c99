package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/wire"
)

// recipientPage is the bare recipient list.
type recipientPage struct {
	Recipients                []wire.Recipient      `json:"recipients"`
	Pagination                gifting.Pagination    `json:"pagination"`
	CampaignID                string                `json:"campaignId"`
	OrganizationID            string                `json:"organizationId"`
	StatusCounts              map[string]int64      `json:"statusCounts"`
	TotalRecipientsInCampaign int64                 `json:"totalRecipientsInCampaign"`
	Filters                   map[string]any        `json:"filters"`
	Organization              *gifting.Organization `json:"organization"`
	Campaign                  *campaign.Campaign    `json:"campaign"`
}

func listRecipients(t *testing.T, api *testenv.API, campaignID, query string) recipientPage {
	t.Helper()
	return getRecipientList(t, api, "/api/campaigns/campaigns/"+campaignID+"/recipients"+query)
}

func getRecipientList(t *testing.T, api *testenv.API, path string) recipientPage {
	t.Helper()
	res := api.Do("GET", path, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	var p recipientPage
	res.JSON(t, &p)
	return p
}

func firstNames(rs []wire.Recipient) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ContactDetails.FirstName
	}
	return out
}

func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRecipientLists(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1000)
	_, otherKey := testenv.Org(t, s, "globex", 1000)
	key2, _, err := s.CreateAPIKey(ctx, orgID, "user-2", "second user")
	if err != nil {
		t.Fatal(err)
	}
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 5)
	testenv.SetCampaignStatus(t, s, orgID, campaignID, campaign.Live) // a draft invites no one
	people := []struct {
		email, first, last, company string
		user2                       bool
	}{
		{"ann@example.com", "Ann", "Zeta", "Globex", false},
		{"bob@example.com", "Bob", "Young", "Acme", true},
		{"cid@example.com", "Cid", "Xu", "Initech", false},
		{"dee@example.com", "Dee", "Wong", "Acme", true},
		{"eve@example.com", "Eve", "Vance", "Hooli", false},
	}
	ids := map[string]string{}
	for _, p := range people {
		a := api
		if p.user2 {
			a = api.WithKey(key2)
		}
		body := map[string]any{"contactDetails": map[string]any{"email": p.email, "firstName": p.first, "lastName": p.last, "companyName": p.company}}
		res := a.Do("POST", addPath(campaignID), body)
		if res.Status != http.StatusOK {
			t.Fatalf("add %s: %d %s", p.email, res.Status, res.Body)
		}
		ids[p.first] = res.Map(t)["recipientId"].(string)
	}
	move := func(first, to string) {
		t.Helper()
		testenv.Claim(t, s, orgID, campaignID, ids[first])
		// A claimed recipient ships when its order does (issue 31).
		testenv.Ship(t, s, orgID, campaignID, ids[first])
		if to == "shipped" {
			return
		}
		res := api.Do("POST", "/api/campaigns/campaigns/"+campaignID+"/recipients/"+ids[first]+"/status", map[string]any{"status": to})
		if res.Status != http.StatusOK {
			t.Fatalf("move %s to %s: %d %s", first, to, res.Status, res.Body)
		}
	}
	move("Bob", "shipped")
	move("Cid", "delivered")
	move("Dee", "shipped")
	if res := api.Do("POST", "/api/campaigns/campaigns/"+campaignID+"/recipients/"+ids["Cid"]+"/feedback", map[string]any{"rating": "like"}); res.Status != http.StatusOK {
		t.Fatalf("feedback: %d %s", res.Status, res.Body)
	}

	t.Run("defaults: newest first, counts from counters", func(t *testing.T) {
		p := listRecipients(t, api, campaignID, "")
		if got := firstNames(p.Recipients); !sameNames(got, []string{"Eve", "Dee", "Cid", "Bob", "Ann"}) {
			t.Errorf("order %v, want newest first", got)
		}
		if p.Pagination.Total != 5 || p.Pagination.Limit != 12 || p.TotalRecipientsInCampaign != 5 || p.CampaignID != campaignID || p.OrganizationID != orgID {
			t.Errorf("pagination %+v, total in campaign %d", p.Pagination, p.TotalRecipientsInCampaign)
		}
		want := map[string]int64{"invite_sent": 2, "shipped": 2, "delivered": 1, "pending": 0, "acknowledged": 0}
		for st, n := range want {
			if p.StatusCounts[st] != n {
				t.Errorf("statusCounts[%s] = %d, want %d (all: %v)", st, p.StatusCounts[st], n, p.StatusCounts)
			}
		}
		if p.Organization == nil || p.Organization.OrgID != orgID || p.Campaign == nil || p.Campaign.CampaignID != campaignID {
			t.Errorf("organization %+v campaign %+v; want both", p.Organization, p.Campaign)
		}
		if p.Filters["sortBy"] != "createdAt" || p.Filters["sortOrder"] != "desc" {
			t.Errorf("filters %v do not echo the defaults", p.Filters)
		}
	})
	for _, tt := range []struct {
		name, query string
		want        []string
		total       int
	}{
		{"page 2", "?page=2&limit=2", []string{"Cid", "Bob"}, 5},
		{"oldest first", "?sortOrder=asc&limit=2", []string{"Ann", "Bob"}, 5},
		{"status list", "?status=shipped,delivered", []string{"Dee", "Cid", "Bob"}, 3},
		{"status page 2", "?status=shipped,invite_sent&limit=3&page=2", []string{"Ann"}, 4},
		{"search is case-insensitive on names", "?search=WON", []string{"Dee"}, 1},
		{"search on first name", "?search=bo", []string{"Bob"}, 1},
		{"by first name", "?sortBy=firstName&sortOrder=asc", []string{"Ann", "Bob", "Cid", "Dee", "Eve"}, 5},
		{"by last name", "?sortBy=lastName&sortOrder=asc", []string{"Eve", "Dee", "Cid", "Bob", "Ann"}, 5},
		{"by company, then newest", "?sortBy=company&sortOrder=desc&limit=3", []string{"Cid", "Eve", "Ann"}, 5},
		{"by email", "?sortBy=email&sortOrder=asc&limit=2", []string{"Ann", "Bob"}, 5},
		{"by status", "?sortBy=status&sortOrder=asc", []string{"Ann", "Eve", "Bob", "Dee", "Cid"}, 5},
		{"by updatedAt", "?sortBy=updatedAt&sortOrder=desc&limit=2", []string{"Cid", "Dee"}, 5},
		{"assigned user", "?userId=user-2", []string{"Dee", "Bob"}, 2},
		{"with feedback", "?feedback=true", []string{"Cid"}, 1},
		{"without feedback", "?feedback=false&limit=2", []string{"Eve", "Dee"}, 4},
		{"filters combine", "?status=shipped&userId=user-2&search=bob", []string{"Bob"}, 1},
		{"past the end", "?page=9", []string{}, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := listRecipients(t, api, campaignID, tt.query)
			if got := firstNames(p.Recipients); !sameNames(got, tt.want) || p.Pagination.Total != tt.total {
				t.Errorf("got %v total %d; want %v total %d", got, p.Pagination.Total, tt.want, tt.total)
			}
		})
	}
	t.Run("groupBy", func(t *testing.T) {
		res := api.Do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients?groupBy=true", nil)
		var p struct {
			Recipients map[string][]wire.Recipient `json:"recipients"`
			Pagination gifting.Pagination          `json:"pagination"`
		}
		res.JSON(t, &p)
		if res.Status != http.StatusOK || len(p.Recipients) != len(gifting.RecipientStatuses) ||
			len(p.Recipients["shipped"]) != 2 || len(p.Recipients["delivered"]) != 1 || len(p.Recipients["pending"]) != 0 || p.Pagination.Total != 5 {
			t.Errorf("grouped: %d %s", res.Status, res.Body)
		}
	})
	t.Run("express-send", func(t *testing.T) {
		p := getRecipientList(t, api, "/api/campaigns/recipients/express-send/campaign/"+campaignID+"?status=shipped")
		if p.Pagination.Limit != 10 || p.Pagination.Total != 2 || len(p.Recipients) != 2 || p.Organization != nil || p.Campaign != nil || p.StatusCounts["shipped"] != 2 {
			t.Errorf("express-send: %+v", p.Pagination)
		}
	})
	t.Run("guide list", func(t *testing.T) {
		p := getRecipientList(t, api, "/api/campaigns/"+campaignID+"/recipients?status=invite_sent")
		if got := firstNames(p.Recipients); !sameNames(got, []string{"Eve", "Ann"}) || p.TotalRecipientsInCampaign != 5 {
			t.Errorf("guide list %v", got)
		}
	})
	for _, tt := range []struct{ name, path, field string }{
		{"unknown sortBy", "/api/campaigns/campaigns/" + campaignID + "/recipients?sortBy=age", "sortBy"},
		{"unknown status", "/api/campaigns/campaigns/" + campaignID + "/recipients?status=shipped,lost", "status"},
		{"groupBy not boolean", "/api/campaigns/campaigns/" + campaignID + "/recipients?groupBy=yes", "groupBy"},
		{"feedback not boolean", "/api/campaigns/campaigns/" + campaignID + "/recipients?feedback=1", "feedback"},
		{"limit above 100", "/api/campaigns/campaigns/" + campaignID + "/recipients?limit=101", "limit"},
		{"express-send unknown status", "/api/campaigns/recipients/express-send/campaign/" + campaignID + "?status=pending,lost", "status"},
		{"express-send page zero", "/api/campaigns/recipients/express-send/campaign/" + campaignID + "?page=0", "page"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("GET", tt.path, nil)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("another org's campaign", func(t *testing.T) {
		other := api.WithKey(otherKey)
		for _, path := range []string{
			"/api/campaigns/campaigns/" + campaignID + "/recipients",
			"/api/campaigns/" + campaignID + "/recipients",
			"/api/campaigns/recipients/express-send/campaign/" + campaignID,
			"/api/campaigns/campaigns/" + campaignID + "/recipients/" + ids["Ann"],
		} {
			assertError(t, other.Do("GET", path, nil), http.StatusNotFound, "NOT_FOUND")
		}
		assertError(t, api.Do("GET", "/api/campaigns/campaigns/nope/recipients", nil), http.StatusNotFound, "NOT_FOUND")
	})
}

func TestRecipientStatusAndFeedback(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 100)
	_, otherKey := testenv.Org(t, s, "globex", 100)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 1)
	add := func(email string) string {
		t.Helper()
		res := api.Do("POST", addPath(campaignID), recipientBody(email, "X"))
		if res.Status != http.StatusOK {
			t.Fatalf("add: %d %s", res.Status, res.Body)
		}
		return res.Map(t)["recipientId"].(string)
	}
	id := add("jane@example.com")
	base := "/api/campaigns/campaigns/" + campaignID + "/recipients/"
	status := func(id, to string) testenv.Response {
		return api.Do("POST", base+id+"/status", map[string]any{"status": to})
	}

	t.Run("no shipping without a confirmed address", func(t *testing.T) {
		for _, to := range []string{"address_confirmed", "processing", "delivered"} {
			assertError(t, status(id, to), http.StatusConflict, "CONFLICT")
		}
	})
	t.Run("forward moves update the counters", func(t *testing.T) {
		testenv.Claim(t, s, orgID, campaignID, id)
		assertError(t, status(id, "delivered"), http.StatusConflict, "CONFLICT") // its order has not shipped
		testenv.Ship(t, s, orgID, campaignID, id)
		var env struct {
			Data wire.Recipient `json:"data"`
		}
		res := status(id, "delivered")
		res.JSON(t, &env)
		if res.Status != http.StatusOK || env.Data.Status != gifting.RecipientDelivered || env.Data.Emails.Reminder1.Active ||
			env.Data.Emails.PostDelivery.ScheduledTime == "" {
			t.Fatalf("move to delivered: %d %s", res.Status, res.Body)
		}
		p := listRecipients(t, api, campaignID, "")
		if p.StatusCounts["delivered"] != 1 || p.StatusCounts["invite_sent"] != 0 || p.StatusCounts["address_confirmed"] != 0 {
			t.Errorf("statusCounts %v; want the one recipient counted as delivered", p.StatusCounts)
		}
	})
	t.Run("backwards is a conflict", func(t *testing.T) {
		assertError(t, status(id, "shipped"), http.StatusConflict, "CONFLICT")
		assertError(t, status(id, "delivered"), http.StatusConflict, "CONFLICT")
	})
	t.Run("unknown status", func(t *testing.T) {
		assertError(t, status(id, "lost"), http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("unknown or another org's recipient", func(t *testing.T) {
		assertError(t, status("nope", "shipped"), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.WithKey(otherKey).Do("POST", base+id+"/status", map[string]any{"status": "acknowledged"}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.WithKey(otherKey).Do("POST", base+id+"/feedback", map[string]any{"rating": "like"}), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("feedback counts once per recipient", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"rating": "like"},
			{"message": map[string]any{"text": "Loved it", "url": "https://video.example.com/1"}},
		} {
			if res := api.Do("POST", base+id+"/feedback", body); res.Status != http.StatusOK {
				t.Fatalf("feedback: %d %s", res.Status, res.Body)
			}
		}
		p := listRecipients(t, api, campaignID, "?feedback=true")
		if len(p.Recipients) != 1 || p.Campaign.LiveData.FeedbackCount != 1 {
			t.Fatalf("feedback list %d, feedbackCount %d; want 1 and 1", len(p.Recipients), p.Campaign.LiveData.FeedbackCount)
		}
		fb := p.Recipients[0].Feedback
		if fb.Rating == nil || fb.Rating.Value != "like" || len(fb.Message) != 1 || fb.Message[0].Type != "text" {
			t.Errorf("feedback = %+v", fb)
		}
	})
	for _, tt := range []struct {
		name string
		body any
	}{
		{"empty", map[string]any{}},
		{"unknown rating", map[string]any{"rating": "meh"}},
		{"message without text or url", map[string]any{"message": map[string]any{"type": "video"}}},
		{"bad url", map[string]any{"message": map[string]any{"url": "javascript:alert(1)"}}},
	} {
		t.Run("feedback "+tt.name, func(t *testing.T) {
			assertError(t, api.Do("POST", base+id+"/feedback", tt.body), http.StatusBadRequest, "VALIDATION_FAILED")
		})
	}
	t.Run("a pending recipient cannot have feedback", func(t *testing.T) {
		api.Mail.SetFail(errors.New("down"))
		pending := add("bob@example.com")
		api.Mail.SetFail(nil)
		assertError(t, api.Do("POST", base+pending+"/feedback", map[string]any{"rating": "like"}), http.StatusConflict, "CONFLICT")
	})
}

func TestWalletEndpoint(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 100)
	api := testenv.NewAPI(t, s, key)
	campaignID := createCampaign(t, api, 30)
	for _, email := range []string{"a@example.com", "b@example.com"} {
		if res := api.Do("POST", addPath(campaignID), recipientBody(email, "A")); res.Status != http.StatusOK {
			t.Fatalf("add: %d %s", res.Status, res.Body)
		}
	}
	w := walletOf(t, api, "")
	if w.Balance != 40 || len(w.Ledger.Items) != 3 || w.Ledger.Pagination.Total != 3 {
		t.Fatalf("wallet %+v", w)
	}
	e := w.Ledger.Items
	if e[0].Type != string(wallet.Debit) || e[0].BalanceAfter != 40 || e[0].Amount != 30 || e[0].CampaignID != campaignID || e[0].RecipientID == "" ||
		e[2].Type != string(wallet.TopUp) || e[2].BalanceAfter != 100 {
		t.Errorf("ledger %+v; want newest first, each with the balance after it", e)
	}
	p := walletOf(t, api, "?page=2&limit=2")
	if len(p.Ledger.Items) != 1 || p.Ledger.Items[0].Type != string(wallet.TopUp) || !p.Ledger.Pagination.HasPrev || p.Ledger.Pagination.HasNext {
		t.Errorf("page 2: %+v", p.Ledger)
	}
	assertError(t, api.Do("GET", "/api/campaigns/wallet?limit=0", nil), http.StatusBadRequest, "VALIDATION_FAILED")
	if res := api.WithKey("").Do("GET", "/api/campaigns/wallet", nil); res.Status != http.StatusUnauthorized {
		t.Errorf("wallet without a key: %d", res.Status)
	}
}
