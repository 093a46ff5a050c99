package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// templatesPage is the body of GET /templates.
type templatesPage struct {
	Data struct {
		Items      []gifting.Template `json:"items"`
		Pagination gifting.Pagination `json:"pagination"`
	} `json:"data"`
}

func listTemplates(t *testing.T, api *testenv.API, query string) templatesPage {
	t.Helper()
	res := api.Do("GET", "/api/campaigns/templates?"+query, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list templates %q: %d %s", query, res.Status, res.Body)
	}
	var p templatesPage
	res.JSON(t, &p)
	return p
}

// createTemplate creates a template of the caller's and returns it.
func createTemplate(t *testing.T, api *testenv.API, name, category string) gifting.Template {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/templates", map[string]any{"templateName": name, "templateCategory": category, "successRate": 10})
	if res.Status != http.StatusCreated {
		t.Fatalf("create template: %d %s", res.Status, res.Body)
	}
	var env struct {
		Data gifting.Template `json:"data"`
	}
	res.JSON(t, &env)
	return env.Data
}

// createOwnGift creates a gift of the caller's and returns it.
func createOwnGift(t *testing.T, api *testenv.API, name string, price float64) gifting.Gift {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/gifts", newGift(name, price))
	if res.Status != http.StatusCreated {
		t.Fatalf("create gift: %d %s", res.Status, res.Body)
	}
	var env struct {
		Data gifting.Gift `json:"data"`
	}
	res.JSON(t, &env)
	return env.Data
}

func TestListTemplates(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	_, otherKey := testenv.Org(t, s, "globex", 0)
	other := api.WithKey(otherKey)
	foreign := createTemplate(t, other, "Globex secret", "outbound")
	var own []string
	for i := range 5 {
		cat := "retention"
		if i%2 == 1 {
			cat = "outbound"
		}
		own = append(own, createTemplate(t, api, fmt.Sprintf("Acme %c", 'E'-i), cat).TemplateID)
	}
	catalog := listTemplates(t, api, "isDelightloop=true&limit=100").Data.Pagination.Total
	if catalog == 0 {
		t.Fatal("the service catalog lists no template")
	}

	t.Run("own and catalog, exact pages", func(t *testing.T) {
		all := 5 + catalog
		var seen []string
		for page := 1; ; page++ {
			p := listTemplates(t, api, fmt.Sprintf("page=%d&limit=2", page))
			pg := p.Data.Pagination
			want := gifting.Pagination{Page: page, Limit: 2, Total: all, TotalPages: (all + 1) / 2, HasNext: page*2 < all, HasPrev: page > 1}
			if pg != want {
				t.Fatalf("page %d pagination = %+v, want %+v", page, pg, want)
			}
			for _, tm := range p.Data.Items {
				seen = append(seen, tm.TemplateID)
			}
			if !pg.HasNext {
				break
			}
		}
		if len(seen) != all || len(slices.Compact(slices.Sorted(slices.Values(seen)))) != all {
			t.Errorf("pages hold %d templates (%d distinct), want %d", len(seen), len(slices.Compact(slices.Sorted(slices.Values(seen)))), all)
		}
		for _, id := range own {
			if !slices.Contains(seen, id) {
				t.Errorf("own template %s not listed", id)
			}
		}
		if slices.Contains(seen, foreign.TemplateID) {
			t.Error("another organization's template is listed")
		}
	})
	t.Run("filters and sort", func(t *testing.T) {
		p := listTemplates(t, api, "isDelightloop=false&templateCategory=retention&sortBy=templateName&sortOrder=asc")
		var names []string
		for _, tm := range p.Data.Items {
			names = append(names, tm.TemplateName)
		}
		if want := []string{"Acme A", "Acme C", "Acme E"}; !slices.Equal(names, want) {
			t.Errorf("retention by name = %v, want %v", names, want)
		}
		if p := listTemplates(t, api, "search=acme%20b"); p.Data.Pagination.Total != 1 || p.Data.Items[0].TemplateName != "Acme B" {
			t.Errorf("search = %+v", p.Data.Items)
		}
		if p := listTemplates(t, api, "search=globex"); p.Data.Pagination.Total != 0 {
			t.Errorf("search finds another organization's template: %+v", p.Data.Items)
		}
	})
	t.Run("bad query", func(t *testing.T) {
		for _, q := range []string{"limit=101", "limit=0", "page=0", "sortBy=price", "sortOrder=up", "isDelightloop=maybe"} {
			assertError(t, api.Do("GET", "/api/campaigns/templates?"+q, nil), http.StatusBadRequest, "VALIDATION_FAILED")
		}
	})
}

func TestPatchCatalogAndLists(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	_, otherKey := testenv.Org(t, s, "globex", 0)
	other := api.WithKey(otherKey)
	tmpl := createTemplate(t, api, "Renewal", "retention")
	gift := createOwnGift(t, api, "Mug", 12)
	listID := createList(t, api, "Leads")
	catalogTemplate, catalogGifts := campaignCatalogRefs(t)
	time.Sleep(2 * time.Millisecond) // updatedAt has millisecond precision

	t.Run("template", func(t *testing.T) {
		res := api.Do("PATCH", "/api/campaigns/templates/"+tmpl.TemplateID, map[string]any{"templateName": "Renewal v2", "tags": []string{"q3"}})
		if res.Status != http.StatusOK {
			t.Fatalf("patch: %d %s", res.Status, res.Body)
		}
		var got struct {
			Data gifting.Template `json:"data"`
		}
		res = api.Do("GET", "/api/campaigns/templates/"+tmpl.TemplateID, nil)
		res.JSON(t, &got)
		g := got.Data
		if g.TemplateName != "Renewal v2" || !slices.Equal(g.Tags, []string{"q3"}) || g.TemplateCategory != "retention" || g.SuccessRate != 10 || !g.UpdatedAt.After(tmpl.UpdatedAt) {
			t.Errorf("after patch = %+v; want the new name and tags, the rest kept, updatedAt moved", g)
		}
	})
	t.Run("gift", func(t *testing.T) {
		res := api.Do("PATCH", "/api/campaigns/gifts/"+gift.GiftID, map[string]any{"price": 15.5})
		if res.Status != http.StatusOK {
			t.Fatalf("patch: %d %s", res.Status, res.Body)
		}
		var got gifting.Gift
		api.Do("GET", "/api/campaigns/gifts/"+gift.GiftID, nil).JSON(t, &got)
		if got.Price != 15.5 || got.Name != "Mug" || got.Inventory != gift.Inventory || !got.UpdatedAt.After(gift.UpdatedAt) {
			t.Errorf("after patch = %+v; want price 15.5, the rest kept, updatedAt moved", got)
		}
	})
	t.Run("list", func(t *testing.T) {
		before := getList(t, api, listID)
		res := api.Do("PATCH", "/api/campaigns/contact-lists/"+listID, map[string]any{"name": "Hot leads"})
		if res.Status != http.StatusOK {
			t.Fatalf("patch: %d %s", res.Status, res.Body)
		}
		got := getList(t, api, listID)
		if got.Name != "Hot leads" || got.Description != before.Description || !got.UpdatedAt.After(before.UpdatedAt) {
			t.Errorf("after patch = %+v; want the new name, description kept, updatedAt moved", got)
		}
	})
	t.Run("validation", func(t *testing.T) {
		for _, tc := range []struct {
			name, path string
			body       any
			field      string
		}{
			{"blank template name", "/api/campaigns/templates/" + tmpl.TemplateID, map[string]any{"templateName": " "}, "templateName"},
			{"success rate over 100", "/api/campaigns/templates/" + tmpl.TemplateID, map[string]any{"successRate": 101}, "successRate"},
			{"negative price", "/api/campaigns/gifts/" + gift.GiftID, map[string]any{"price": -1}, "price"},
			{"price above the bound", "/api/campaigns/gifts/" + gift.GiftID, map[string]any{"price": gifting.MaxGiftPrice + 1}, "price"},
			{"inventory over total", "/api/campaigns/gifts/" + gift.GiftID, map[string]any{"inventory": map[string]int{"total": 1, "available": 2}}, "inventory"},
			{"blank list name", "/api/campaigns/contact-lists/" + listID, map[string]any{"name": ""}, "name"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res := api.Do("PATCH", tc.path, tc.body)
				assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
				if d, _ := res.Map(t)["details"].(map[string]any); d[tc.field] == nil {
					t.Errorf("details = %v; want %s named", d, tc.field)
				}
			})
		}
		for _, path := range []string{"/api/campaigns/templates/" + tmpl.TemplateID, "/api/campaigns/gifts/" + gift.GiftID, "/api/campaigns/contact-lists/" + listID} {
			assertError(t, api.Do("PATCH", path, map[string]any{"organizationId": "globex"}), http.StatusBadRequest, "VALIDATION_FAILED")
		}
		var got gifting.Gift
		api.Do("GET", "/api/campaigns/gifts/"+gift.GiftID, nil).JSON(t, &got)
		if got.Price != 15.5 {
			t.Errorf("a refused patch changed the price to %v", got.Price)
		}
	})
	t.Run("not theirs is 404", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			api  *testenv.API
			path string
			body any
		}{
			{"other org's template", other, "/api/campaigns/templates/" + tmpl.TemplateID, map[string]any{"templateName": "x"}},
			{"other org's gift", other, "/api/campaigns/gifts/" + gift.GiftID, map[string]any{"price": 1}},
			{"other org's list", other, "/api/campaigns/contact-lists/" + listID, map[string]any{"name": "x"}},
			{"catalog template", api, "/api/campaigns/templates/" + catalogTemplate, map[string]any{"templateName": "x"}},
			{"catalog gift", api, "/api/campaigns/gifts/" + catalogGifts[0].GiftID, map[string]any{"price": 1}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				assertError(t, tc.api.Do("PATCH", tc.path, tc.body), http.StatusNotFound, "NOT_FOUND")
				assertError(t, tc.api.Do("DELETE", tc.path, nil), http.StatusNotFound, "NOT_FOUND")
			})
		}
	})
}

func TestDeleteReferencedResources(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 10_000)
	api := testenv.NewAPI(t, s, key)
	listID, _ := listWithContacts(t, s, orgID, 3)

	// newRefs makes a template, a gift and a list a campaign refers to.
	newRefs := func(t *testing.T) (tmpl, gift, list string, c campaign.Campaign) {
		t.Helper()
		tmpl = createTemplate(t, api, "T", "x").TemplateID
		gift = createOwnGift(t, api, "G", 5).GiftID
		list, _ = listWithContacts(t, s, orgID, 2)
		c = postCampaign(t, api, map[string]any{"name": "Uses them", "contactListIds": []string{list},
			"campaignData": map[string]any{"giftIds": []string{gift}, "emailTemplateId": tmpl}})
		return tmpl, gift, list, c
	}
	paths := func(tmpl, gift, list string) []string {
		return []string{"/api/campaigns/templates/" + tmpl, "/api/campaigns/gifts/" + gift, "/api/campaigns/contact-lists/" + list}
	}

	t.Run("used by a campaign past draft: 409 naming it", func(t *testing.T) {
		tmpl, gift, list, c := newRefs(t)
		for _, st := range []campaign.Status{campaign.Live, campaign.Completed} {
			testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, st)
			for _, p := range paths(tmpl, gift, list) {
				res := api.Do("DELETE", p, nil)
				assertError(t, res, http.StatusConflict, "CONFLICT")
				if !strings.Contains(string(res.Body), c.CampaignID) {
					t.Errorf("%s (%s): %s does not name the campaign", p, st, res.Body)
				}
			}
		}
		for _, p := range paths(tmpl, gift, list) {
			if res := api.Do("GET", p, nil); res.Status != http.StatusOK {
				t.Errorf("%s after a refused delete: %d", p, res.Status)
			}
		}
	})
	t.Run("draft: delete, then its launch is 409 naming what is missing", func(t *testing.T) {
		for i, kind := range []string{"template", "gift", "contact list"} {
			tmpl, gift, list, c := newRefs(t)
			p := paths(tmpl, gift, list)[i]
			res := api.Do("DELETE", p, nil)
			if res.Status != http.StatusOK {
				t.Fatalf("delete %s: %d %s", p, res.Status, res.Body)
			}
			assertError(t, api.Do("GET", p, nil), http.StatusNotFound, "NOT_FOUND")
			assertError(t, api.Do("DELETE", p, nil), http.StatusNotFound, "NOT_FOUND")
			res = api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
			assertError(t, res, http.StatusConflict, "CONFLICT")
			id := p[strings.LastIndex(p, "/")+1:]
			if msg := string(res.Body); !strings.Contains(msg, id) || !strings.Contains(msg, kind) {
				t.Errorf("launch after deleting the %s: %s; want it named", kind, msg)
			}
			if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Draft {
				t.Errorf("campaign is %s after a refused launch", got.Status)
			}
		}
		if n := walletBalance(t, s, orgID); n != 10_000 {
			t.Errorf("balance %d after refused launches, want 10000", n)
		}
	})
	t.Run("unreferenced list of another org is 404", func(t *testing.T) {
		_, otherKey := testenv.Org(t, s, "globex", 0)
		assertError(t, api.WithKey(otherKey).Do("DELETE", "/api/campaigns/contact-lists/"+listID, nil), http.StatusNotFound, "NOT_FOUND")
		if got := getList(t, api, listID); got.ContactCount != 3 {
			t.Errorf("list count %d after another org's delete", got.ContactCount)
		}
	})
}

func TestDeleteContactListRemovesMemberships(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 0)
	api, start := testenv.HeldAPI(t, s, key)
	// More members than one slice removes, so the work takes several.
	const n = 230
	doomed, ids := listWithContacts(t, s, orgID, n)
	kept := createList(t, api, "Kept")
	if status, out := bulkAdd(t, api, kept, map[string]any{"contactIds": ids[:10]}); status != http.StatusOK {
		t.Fatalf("add to kept: %d %+v", status, out)
	}

	res := api.Do("DELETE", "/api/campaigns/contact-lists/"+doomed, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	// The list is gone at once, before any membership is removed.
	assertError(t, api.Do("GET", "/api/campaigns/contact-lists/"+doomed, nil), http.StatusNotFound, "NOT_FOUND")
	assertError(t, api.Do("GET", "/api/campaigns/contact-lists/"+doomed+"/contacts", nil), http.StatusNotFound, "NOT_FOUND")
	if got := contactsInList(t, s, orgID, doomed); got != n {
		t.Fatalf("%d memberships before the job ran, want %d", got, n)
	}
	start()
	api.Jobs.Wait()

	if got := contactsInList(t, s, orgID, doomed); got != 0 {
		t.Errorf("%d memberships left", got)
	}
	if got := countSKPrefix(t, s, orgID, "DELLIST#"); got != 0 {
		t.Errorf("%d list tombstones left after the job", got)
	}
	if p := listContacts(t, api, "limit=1"); p.Total != n {
		t.Errorf("%d contacts after the delete, want all %d kept", p.Total, n)
	}
	for _, id := range []string{ids[0], ids[9], ids[10], ids[n-1]} {
		if c := getContact(t, api, id); slices.Contains(c.ListIDs, doomed) {
			t.Errorf("contact %s still lists the deleted list: %v", id, c.ListIDs)
		}
	}
	if c := getContact(t, api, ids[0]); !slices.Contains(c.ListIDs, kept) {
		t.Errorf("contact lost its other list: %v", c.ListIDs)
	}
	if got := getList(t, api, kept).ContactCount; got != 10 {
		t.Errorf("other list count %d, want 10", got)
	}
}

func TestListMembers(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	leads, others := createList(t, api, "Leads"), createList(t, api, "Others")
	in := importContacts(t, api, leads, people(0, 23)...)
	importContacts(t, api, others, people(100, 4)...)
	var want []string // newest first, as GET /contacts
	for _, it := range in.Data.Items {
		want = append(want, it.ContactID)
	}
	slices.Reverse(want)

	for _, base := range []string{"/api/campaigns/contact-lists/" + leads + "/contacts?", "/api/campaigns/contacts?listId=" + leads + "&"} {
		t.Run(base, func(t *testing.T) {
			var got []string
			for page := 1; page <= 5; page++ {
				res := api.Do("GET", fmt.Sprintf("%spage=%d&limit=5", base, page), nil)
				if res.Status != http.StatusOK {
					t.Fatalf("page %d: %d %s", page, res.Status, res.Body)
				}
				var p contactsPage
				res.JSON(t, &p)
				if p.Total != 23 || p.Page != page || p.Limit != 5 || p.TotalPages != 5 {
					t.Errorf("page %d meta = total %d page %d limit %d pages %d; want 23, %d, 5, 5", page, p.Total, p.Page, p.Limit, p.TotalPages, page)
				}
				for _, c := range p.Items {
					got = append(got, c.ContactID)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("pages = %v\nwant    %v", got, want)
			}
			var p contactsPage
			api.Do("GET", base+"search=first7", nil).JSON(t, &p)
			if p.Total != 1 || len(p.Items) != 1 || p.Items[0].FirstName != "First7" {
				t.Errorf("search = %d %+v; want First7 only", p.Total, p.Items)
			}
			api.Do("GET", base+"search=first101", nil).JSON(t, &p)
			if p.Total != 0 {
				t.Errorf("search finds a contact of another list: %+v", p.Items)
			}
		})
	}
	t.Run("unknown, foreign or bad list", func(t *testing.T) {
		_, otherKey := testenv.Org(t, s, "globex", 0)
		other := api.WithKey(otherKey)
		assertError(t, other.Do("GET", "/api/campaigns/contact-lists/"+leads+"/contacts", nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, other.Do("GET", "/api/campaigns/contacts?listId="+leads, nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, api.Do("GET", "/api/campaigns/contacts?listId=a%20b", nil), http.StatusBadRequest, "VALIDATION_FAILED")
		assertError(t, api.Do("GET", "/api/campaigns/contact-lists/"+leads+"/contacts?limit=101", nil), http.StatusBadRequest, "VALIDATION_FAILED")
	})
}

func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	// Straight to the handler: the API document describes the methods a
	// path has, not the ones it refuses, so the contract check of
	// testenv.API cannot judge these exchanges.
	do := func(method, path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, path, nil)
		req.Header.Set("x-api-key", api.Key)
		rec := httptest.NewRecorder()
		api.Handler.ServeHTTP(rec, req)
		return rec
	}
	for _, tc := range []struct {
		method, path, allow string
	}{
		// /contacts is also /{campaignId}, which has PATCH and DELETE: the
		// literal path is the one asked for, as API Gateway picks it.
		{"PUT", "/api/campaigns/contacts", "GET, HEAD"},
		{"PUT", "/api/campaigns/contact-lists", "GET, HEAD, POST"},
		{"POST", "/api/campaigns/templates/tmpl-meeting-booker", "GET, HEAD, PATCH, DELETE"},
		{"PUT", "/api/campaigns/wallet", "GET, HEAD"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := do(tc.method, tc.path)
			res := testenv.Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
			assertError(t, res, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED")
			if got := res.Header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow = %q, want %q", got, tc.allow)
			}
		})
	}
	t.Run("unknown path stays 404", func(t *testing.T) {
		if rec := do("GET", "/api/campaigns/nothing/here/at/all"); rec.Code != http.StatusNotFound || rec.Header().Get("Allow") != "" {
			t.Errorf("status %d, Allow %q; want 404 without Allow", rec.Code, rec.Header().Get("Allow"))
		}
	})
}

// recipientsBody is the part of a recipients list these tests read.
type recipientsBody struct {
	Recipients []wire.Recipient   `json:"recipients"`
	Pagination gifting.Pagination `json:"pagination"`
}

func TestLaunchedRecipientsAssignedAndListedPending(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000)
	// No mailer: launched recipients stay pending, invitation scheduled.
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: queue})
	api := testenv.HandlerAPI(t, httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Groups...), key)
	queue.Start(svc.RunJob)
	listID, _ := listWithContacts(t, s, orgID, 3)
	gift := createOwnGift(t, api, "Mug", 5)
	c := postCampaign(t, api, map[string]any{"name": "Launch", "contactListIds": []string{listID},
		"campaignData": map[string]any{"giftIds": []string{gift.GiftID}}})
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	queue.Wait()

	t.Run("assigned to the launching user", func(t *testing.T) {
		var b recipientsBody
		api.Do("GET", "/api/campaigns/campaigns/"+c.CampaignID+"/recipients?userId=user-acme", nil).JSON(t, &b)
		if b.Pagination.Total != 3 || len(b.Recipients) != 3 {
			t.Fatalf("userId=user-acme finds %d recipients, want 3", b.Pagination.Total)
		}
		for _, r := range b.Recipients {
			if len(r.AssignedUsers) != 1 || r.AssignedUsers[0].UserID != "user-acme" {
				t.Errorf("assignedUsers = %+v, want user-acme", r.AssignedUsers)
			}
		}
		api.Do("GET", "/api/campaigns/campaigns/"+c.CampaignID+"/recipients?userId=someone-else", nil).JSON(t, &b)
		if b.Pagination.Total != 0 {
			t.Errorf("another user finds %d recipients", b.Pagination.Total)
		}
	})
	t.Run("express-send lists them as pending", func(t *testing.T) {
		res := api.Do("GET", "/api/campaigns/recipients/express-send/campaign/"+c.CampaignID+"?status=pending", nil)
		if res.Status != http.StatusOK {
			t.Fatalf("status=pending: %d %s", res.Status, res.Body)
		}
		var b recipientsBody
		res.JSON(t, &b)
		if b.Pagination.Total != 3 || len(b.Recipients) != 3 || b.Recipients[0].Status != gifting.RecipientPending {
			t.Errorf("status=pending finds %d recipients, want the 3 pending", b.Pagination.Total)
		}
		api.Do("GET", "/api/campaigns/recipients/express-send/campaign/"+c.CampaignID+"?status=invite_sent,pending", nil).JSON(t, &b)
		if b.Pagination.Total != 3 {
			t.Errorf("status=invite_sent,pending finds %d", b.Pagination.Total)
		}
	})
}

// TestDeleteContactListJobLost: the memberships of a deleted list go even
// when the job's message never runs: the tombstone written with the delete
// is due for the scheduler tick once its lease ends.
func TestDeleteContactListJobLost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	orgID, key := testenv.Org(t, s, "acme", 0)
	api, _ := testenv.HeldAPI(t, s, key) // the queue never runs its jobs
	listID, ids := listWithContacts(t, s, orgID, 120)
	if res := api.Do("DELETE", "/api/campaigns/contact-lists/"+listID, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	if err := api.Scheduler.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := contactsInList(t, s, orgID, listID); got != 120 {
		t.Fatalf("%d memberships before the lease ended, want 120 (left to the job)", got)
	}
	clock.Advance(2 * dynamo.DueLease)
	if err := api.Scheduler.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := contactsInList(t, s, orgID, listID); got != 0 {
		t.Errorf("%d memberships left after the tick", got)
	}
	if got := countSKPrefix(t, s, orgID, "DELLIST#"); got != 0 {
		t.Errorf("%d tombstones left after the tick", got)
	}
	if c := getContact(t, api, ids[len(ids)-1]); slices.Contains(c.ListIDs, listID) {
		t.Errorf("contact still lists the deleted list: %v", c.ListIDs)
	}
}
