package httpapi_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// campaignEnvelope is the enveloped campaign of create, get and update.
type campaignEnvelope struct {
	Success    bool              `json:"success"`
	StatusCode int               `json:"statusCode"`
	Message    string            `json:"message"`
	Data       campaign.Campaign `json:"data"`
}

type campaignPage struct {
	Campaigns  []campaign.Campaign `json:"campaigns"`
	Pagination gifting.Pagination  `json:"pagination"`
}

// campaignCatalogRefs returns a service-catalog template and the two most
// expensive catalog gifts.
func campaignCatalogRefs(t *testing.T) (templateID string, gifts []gifting.Gift) {
	t.Helper()
	c, err := seed.LoadCatalog()
	if err != nil {
		t.Fatal(err)
	}
	gifts = slices.Clone(c.Gifts)
	slices.SortFunc(gifts, func(a, b gifting.Gift) int { return int(math.Round((b.Price - a.Price) * 100)) })
	return c.Templates[0].TemplateID, gifts[:2]
}

// listWithContacts creates a contact list of org with n new contacts and returns its
// id and the contacts' ids.
func listWithContacts(t *testing.T, s *dynamo.Store, orgID string, n int) (string, []string) {
	t.Helper()
	ctx := context.Background()
	l, err := s.CreateContactList(ctx, orgID, "user-"+orgID, fmt.Sprintf("list of %d", n), "")
	if err != nil {
		t.Fatal(err)
	}
	addContactsTo(t, s, orgID, l.ListID, n)
	ids, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, l.ListID)
	if err != nil {
		t.Fatal(err)
	}
	return l.ListID, ids
}

// addContactsTo adds n new contacts to a list.
func addContactsTo(t *testing.T, s *dynamo.Store, orgID, listID string, n int) {
	t.Helper()
	in := make([]contact.Input, n)
	for i := range in {
		in[i] = contact.Input{MailID: fmt.Sprintf("p%d.%s@example.com", i, strings.ToLower(gifting.NewID())),
			FirstName: fmt.Sprintf("First%d", i), LastName: "Last"}
	}
	res, err := contact.NewApp(s, nil).AddToList(context.Background(), orgID, listID, in, contact.Source{Type: "test", Provider: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed > 0 || res.Created != n {
		t.Fatalf("adding %d contacts: created %d, failed %d", n, res.Created, res.Failed)
	}
}

// postCampaign posts body and returns the created campaign.
func postCampaign(t *testing.T, api *testenv.API, body any) campaign.Campaign {
	t.Helper()
	res := api.Do("POST", "/api/campaigns", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create campaign: %d %s", res.Status, res.Body)
	}
	var env campaignEnvelope
	res.JSON(t, &env)
	return env.Data
}

func TestCreateCampaign(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	otherOrg, _ := testenv.Org(t, s, "globex", 0)
	listID, _ := listWithContacts(t, s, orgID, 2)
	list2, _ := listWithContacts(t, s, orgID, 1)
	foreignList, _ := listWithContacts(t, s, otherOrg, 1)
	templateID, gifts := campaignCatalogRefs(t)

	t.Run("variant A", func(t *testing.T) {
		res := api.Do("POST", "/api/campaigns", map[string]any{
			"name": "  Q3 thank-you  ", "contactListIds": []string{listID, list2}, "templateId": templateID,
			"scheduledAt": "2026-09-01T09:00:00Z",
		})
		if res.Status != http.StatusCreated {
			t.Fatalf("status %d, body %s", res.Status, res.Body)
		}
		m := res.Map(t)
		data, _ := m["data"].(map[string]any)
		if m["success"] != true || data["campaignId"] == "" || data["campaignId"] == nil {
			t.Fatalf("body %s: want success and data.campaignId", res.Body)
		}
		var env campaignEnvelope
		res.JSON(t, &env)
		c := env.Data
		cd := c.CampaignData
		if c.Name != "Q3 thank-you" || c.Status != campaign.Draft || c.CreatedBy != "user-acme" || c.OrganizationID != orgID ||
			cd.EmailTemplateID != templateID || cd.ContactListID != listID || !slices.Equal(cd.ContactListIDs, []string{listID, list2}) ||
			cd.ScheduledAt == nil || !cd.ScheduledAt.Equal(time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)) {
			t.Errorf("campaign = %+v", c)
		}
	})
	t.Run("variant B prices from the dearest gift", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{
			"name": "Holiday", "description": "End of year",
			"campaignData": map[string]any{"contactListId": listID, "giftIds": []string{gifts[1].GiftID, gifts[0].GiftID}, "emailTemplateId": templateID},
		})
		want := int64(math.Ceil(gifts[0].Price))
		if c.CampaignData.CreditsPerRecipient != want || c.CampaignData.PriceSet {
			t.Errorf("creditsPerRecipient = %d (set %v), want %d from price %v", c.CampaignData.CreditsPerRecipient, c.CampaignData.PriceSet, want, gifts[0].Price)
		}
		if c.Description != "End of year" || !slices.Equal(c.CampaignData.ContactListIDs, []string{listID}) || len(c.CampaignData.GiftIDs) != 2 {
			t.Errorf("campaign = %+v", c)
		}
	})
	t.Run("own price wins", func(t *testing.T) {
		own := int64(math.Ceil(gifts[0].Price)) + 7 // at or above the catalog price
		c := postCampaign(t, api, map[string]any{"name": "Priced",
			"campaignData": map[string]any{"giftIds": []string{gifts[0].GiftID}, "creditsPerRecipient": own}})
		if c.CampaignData.CreditsPerRecipient != own || !c.CampaignData.PriceSet {
			t.Errorf("creditsPerRecipient = %d (set %v), want %d (set)", c.CampaignData.CreditsPerRecipient, c.CampaignData.PriceSet, own)
		}
	})
	t.Run("own gift and template", func(t *testing.T) {
		g := api.Do("POST", "/api/campaigns/gifts", newGift("Acme mug", 12.01)).Map(t)["data"].(map[string]any)
		c := postCampaign(t, api, map[string]any{"name": "Mugs", "campaignData": map[string]any{"giftIds": []string{g["giftId"].(string)}}})
		if c.CampaignData.CreditsPerRecipient != 13 {
			t.Errorf("creditsPerRecipient = %d, want 13 (12.01 rounded up)", c.CampaignData.CreditsPerRecipient)
		}
	})
	t.Run("Idempotency-Key replays the first response", func(t *testing.T) {
		var before campaignPage
		api.Do("GET", "/api/campaigns/campaigns", nil).JSON(t, &before)
		body := map[string]any{"name": "Once", "contactListIds": []string{listID}}
		first := api.Do("POST", "/api/campaigns", body, "Idempotency-Key", "create-once-1")
		again := api.Do("POST", "/api/campaigns", body, "Idempotency-Key", "create-once-1")
		if first.Status != http.StatusCreated || again.Status != http.StatusCreated || string(first.Body) != string(again.Body) {
			t.Fatalf("first %d %s, retry %d %s; want the same 201 twice", first.Status, first.Body, again.Status, again.Body)
		}
		if again.Header.Get("Idempotent-Replayed") != "true" {
			t.Error("the retry is not marked Idempotent-Replayed")
		}
		var after campaignPage
		api.Do("GET", "/api/campaigns/campaigns", nil).JSON(t, &after)
		if after.Pagination.Total != before.Pagination.Total+1 {
			t.Errorf("campaigns %d → %d, want one more", before.Pagination.Total, after.Pagination.Total)
		}
		other := api.Do("POST", "/api/campaigns", map[string]any{"name": "Other"}, "Idempotency-Key", "create-once-1")
		assertError(t, other, http.StatusUnprocessableEntity, "IDEMPOTENCY_KEY_REUSED")
	})
	for _, tt := range []struct {
		name   string
		body   any
		status int
		code   string
		field  string
	}{
		{"no name", map[string]any{"contactListIds": []string{listID}}, 400, "VALIDATION_FAILED", "name"},
		{"blank name", map[string]any{"name": "   "}, 400, "VALIDATION_FAILED", "name"},
		{"bad scheduledAt", map[string]any{"name": "x", "scheduledAt": "next week"}, 400, "VALIDATION_FAILED", "scheduledAt"},
		{"two different templates", map[string]any{"name": "x", "templateId": templateID, "campaignData": map[string]any{"emailTemplateId": "other"}}, 400, "VALIDATION_FAILED", "templateId"},
		{"negative price", map[string]any{"name": "x", "campaignData": map[string]any{"creditsPerRecipient": -1}}, 400, "VALIDATION_FAILED", "campaignData.creditsPerRecipient"},
		{"claim expiry of 0 days", map[string]any{"name": "x", "campaignData": map[string]any{"claimExpiresInDays": 0}}, 400, "VALIDATION_FAILED", "campaignData.claimExpiresInDays"},
		{"claim expiry over a year", map[string]any{"name": "x", "campaignData": map[string]any{"claimExpiresInDays": 366}}, 400, "VALIDATION_FAILED", "campaignData.claimExpiresInDays"},
		{"claim expiry not a number", map[string]any{"name": "x", "campaignData": map[string]any{"claimExpiresInDays": "soon"}}, 400, "VALIDATION_FAILED", "campaignData.claimExpiresInDays"},
		{"unknown field", map[string]any{"name": "x", "budget": 5}, 400, "VALIDATION_FAILED", "budget"},
		{"wrong type", map[string]any{"name": "x", "contactListIds": "abc"}, 400, "VALIDATION_FAILED", "contactListIds"},
		{"unknown list", map[string]any{"name": "x", "contactListIds": []string{"nope"}}, 400, "VALIDATION_FAILED", "contactListIds"},
		{"another org's list", map[string]any{"name": "x", "campaignData": map[string]any{"contactListId": foreignList}}, 400, "VALIDATION_FAILED", "contactListIds"},
		{"unknown template", map[string]any{"name": "x", "templateId": "nope"}, 400, "VALIDATION_FAILED", "templateId"},
		{"unknown gift", map[string]any{"name": "x", "campaignData": map[string]any{"giftIds": []string{gifts[0].GiftID, "nope"}}}, 400, "VALIDATION_FAILED", "campaignData.giftIds"},
		{"not JSON", "{", 400, "MALFORMED_REQUEST", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before campaignPage
			api.Do("GET", "/api/campaigns/campaigns", nil).JSON(t, &before)
			res := api.Do("POST", "/api/campaigns", tt.body)
			assertError(t, res, tt.status, tt.code)
			if tt.field != "" {
				d, _ := res.Map(t)["details"].(map[string]any)
				if d[tt.field] == nil {
					t.Errorf("details %v do not name %s", d, tt.field)
				}
				if strings.Contains(tt.name, "unknown") && tt.field != "budget" && !strings.Contains(fmt.Sprint(d[tt.field]), "nope") {
					t.Errorf("details %v do not name the missing id", d)
				}
			}
			var after campaignPage
			api.Do("GET", "/api/campaigns/campaigns", nil).JSON(t, &after)
			if after.Pagination.Total != before.Pagination.Total {
				t.Errorf("campaigns %d → %d: a failed create wrote one", before.Pagination.Total, after.Pagination.Total)
			}
		})
	}
}

func TestGetCampaign(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "globex", 0)
	api := testenv.NewAPI(t, s, key)
	c := postCampaign(t, api, map[string]any{"name": "Q3"})

	t.Run("every field of the original interface", func(t *testing.T) {
		res := api.Do("GET", "/api/campaigns/"+c.CampaignID, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status %d, body %s", res.Status, res.Body)
		}
		m := res.Map(t)
		data, _ := m["data"].(map[string]any)
		for _, f := range []string{"campaignId", "organizationId", "createdBy", "status", "campaignData", "isDeleted", "createdAt",
			"updatedAt", "lastUpdatedBy", "reason", "name", "description", "totalRecipients", "liveData", "completionData"} {
			if _, ok := data[f]; !ok {
				t.Errorf("data has no %s: %s", f, res.Body)
			}
		}
		if m["success"] != true || data["campaignId"] != c.CampaignID || data["status"] != "draft" || data["isDeleted"] != false {
			t.Errorf("body %s", res.Body)
		}
		counts, _ := data["liveData"].(map[string]any)["statusCounts"].(map[string]any)
		if len(counts) != len(gifting.RecipientStatuses) {
			t.Errorf("statusCounts = %v, want every recipient status", counts)
		}
	})
	t.Run("missing", func(t *testing.T) {
		assertError(t, api.Do("GET", "/api/campaigns/01HZZZZZZZZZZZZZZZZZZZZZZZ", nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("another org's is not found", func(t *testing.T) {
		assertError(t, api.WithKey(keyB).Do("GET", "/api/campaigns/"+c.CampaignID, nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.WithKey(keyB).Do("GET", "/api/campaigns/"+c.CampaignID+"/metrics", nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("no key", func(t *testing.T) {
		if res := api.WithKey("").Do("GET", "/api/campaigns/"+c.CampaignID, nil); res.Status != http.StatusUnauthorized {
			t.Errorf("status %d, want 401", res.Status)
		}
	})
}

func TestUpdateAndDeleteCampaign(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 10_000)
	_, keyB := testenv.Org(t, s, "globex", 0)
	api := testenv.NewAPI(t, s, key)
	listID, _ := listWithContacts(t, s, orgID, 2)
	templateID, gifts := campaignCatalogRefs(t)

	t.Run("edit a draft", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "Draft", "description": "keep me"})
		res := api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{
			"name": "Renamed", "contactListIds": []string{listID}, "templateId": templateID,
			"campaignData": map[string]any{"giftIds": []string{gifts[1].GiftID}},
		})
		if res.Status != http.StatusOK {
			t.Fatalf("status %d, body %s", res.Status, res.Body)
		}
		var env campaignEnvelope
		res.JSON(t, &env)
		got := env.Data
		if got.Name != "Renamed" || got.Description != "keep me" || got.CampaignData.ContactListID != listID ||
			got.CampaignData.EmailTemplateID != templateID || got.CampaignData.CreditsPerRecipient != int64(math.Ceil(gifts[1].Price)) ||
			got.LastUpdatedBy != "user-acme" || !got.UpdatedAt.After(c.UpdatedAt.Add(-time.Millisecond)) {
			t.Errorf("updated = %+v", got)
		}
		var again campaignEnvelope
		api.Do("GET", "/api/campaigns/"+c.CampaignID, nil).JSON(t, &again)
		if again.Data.Name != "Renamed" || again.Data.CampaignData.CreditsPerRecipient != got.CampaignData.CreditsPerRecipient {
			t.Errorf("read back %+v", again.Data)
		}
	})
	t.Run("claim expiry: default, set, refused", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "Draft"})
		if got := c.CampaignData.ClaimExpiresInDays; got != gifting.DefaultClaimExpiresInDays {
			t.Errorf("claimExpiresInDays = %d on create, want the default %d", got, gifting.DefaultClaimExpiresInDays)
		}
		res := api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"campaignData": map[string]any{"claimExpiresInDays": 365}})
		var env campaignEnvelope
		res.JSON(t, &env)
		if res.Status != http.StatusOK || env.Data.CampaignData.ClaimExpiresInDays != 365 {
			t.Errorf("PATCH claimExpiresInDays 365: status %d, value %d", res.Status, env.Data.CampaignData.ClaimExpiresInDays)
		}
		res = api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"campaignData": map[string]any{"claimExpiresInDays": 0}})
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
		if d, _ := res.Map(t)["details"].(map[string]any); d["campaignData.claimExpiresInDays"] == nil {
			t.Errorf("details %v do not name campaignData.claimExpiresInDays", d)
		}
		var got campaignEnvelope
		api.Do("GET", "/api/campaigns/"+c.CampaignID, nil).JSON(t, &got)
		if got.Data.CampaignData.ClaimExpiresInDays != 365 {
			t.Errorf("a refused edit changed claimExpiresInDays to %d", got.Data.CampaignData.ClaimExpiresInDays)
		}
	})
	t.Run("same reference checks as create", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "Draft"})
		res := api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"campaignData": map[string]any{"giftIds": []string{"nope"}}})
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
		var got campaignEnvelope
		api.Do("GET", "/api/campaigns/"+c.CampaignID, nil).JSON(t, &got)
		if len(got.Data.CampaignData.GiftIDs) != 0 {
			t.Errorf("a refused edit changed the gifts: %v", got.Data.CampaignData.GiftIDs)
		}
		assertError(t, api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"name": ""}), http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("only a draft is edited", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "To launch", "contactListIds": []string{listID},
			"campaignData": map[string]any{"giftIds": []string{gifts[1].GiftID}}})
		if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
			t.Fatalf("launch: %d %s", res.Status, res.Body)
		}
		api.Jobs.Wait()
		res := api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"name": "Too late"})
		assertError(t, res, http.StatusConflict, "CONFLICT")
		if !strings.Contains(res.Map(t)["error"].(string), "live") {
			t.Errorf("error %s does not name the current state", res.Body)
		}
	})
	t.Run("delete", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "Doomed"})
		var before campaignPage
		api.Do("GET", "/api/campaigns/campaigns?limit=100", nil).JSON(t, &before)
		res := api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status %d, body %s", res.Status, res.Body)
		}
		if d := res.Map(t)["data"].(map[string]any); d["isDeleted"] != true || d["campaignId"] != c.CampaignID {
			t.Errorf("body %s", res.Body)
		}
		assertError(t, api.Do("GET", "/api/campaigns/"+c.CampaignID, nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"name": "x"}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil), http.StatusNotFound, "NOT_FOUND")
		var after campaignPage
		api.Do("GET", "/api/campaigns/campaigns?limit=100", nil).JSON(t, &after)
		if after.Pagination.Total != before.Pagination.Total-1 || len(after.Campaigns) != len(before.Campaigns)-1 {
			t.Errorf("total %d → %d, page %d → %d; want one fewer", before.Pagination.Total, after.Pagination.Total, len(before.Campaigns), len(after.Campaigns))
		}
		for _, x := range after.Campaigns {
			if x.CampaignID == c.CampaignID {
				t.Error("the deleted campaign is still listed")
			}
		}
	})
	t.Run("another org cannot edit or delete", func(t *testing.T) {
		c := postCampaign(t, api, map[string]any{"name": "Mine"})
		b := api.WithKey(keyB)
		assertError(t, b.Do("PATCH", "/api/campaigns/"+c.CampaignID, map[string]any{"name": "Theirs"}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, b.Do("DELETE", "/api/campaigns/"+c.CampaignID, nil), http.StatusNotFound, "NOT_FOUND")
		var got campaignEnvelope
		api.Do("GET", "/api/campaigns/"+c.CampaignID, nil).JSON(t, &got)
		if got.Data.Name != "Mine" {
			t.Errorf("name = %q after another org's edit", got.Data.Name)
		}
	})
}
