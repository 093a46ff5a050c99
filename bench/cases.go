package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/httpapi"
)

// call is one request of a measured endpoint.
type call struct {
	method, path string
	body         any
	// as, when set, is the organization to call as instead of the case's
	// own (a fixture shared between cases lives in its own organization).
	as *tenant
}

// benchCase measures one endpoint.
type benchCase struct {
	// route is the endpoint as the handlers register it: "METHOD /path",
	// path variables named as in the OpenAPI document (names do not need
	// to match).
	route string
	// spec is false for endpoints the service adds beyond the original
	// interface (docs/api.md); the report marks them "(added)".
	spec bool
	// target is the bound (docs/performance.md) on the DynamoDB requests
	// of one call.
	target requestTarget
	// status is the status every measured call must get.
	status int
	// calls, when set, replaces the calls per run: for endpoints whose
	// calls are each a large piece of work.
	calls int
	// prepare makes what n calls need in t's organization and returns the
	// request of call i (0 ≤ i < n). Calls that create something create a
	// new thing each time.
	prepare func(ctx context.Context, e *env, t tenant, n int) (func(i int) call, error)
}

// cases lists every endpoint of the original interface (docs/api.md), in its
// order, then those the service adds. An endpoint whose route is not served yet
// is reported as such; one whose prepare is nil has no measurement written yet.
func cases() []benchCase {
	return []benchCase{
		{route: "GET /api/campaigns/campaigns", spec: true, target: listPage, status: http.StatusOK, prepare: prepareListCampaigns},
		{route: "GET /api/campaigns/campaigns/{campaignId}/recipients", spec: true, target: listPage, status: http.StatusOK, prepare: prepareRecipientList("/api/campaigns/campaigns/%s/recipients")},
		{route: "POST /api/campaigns/campaigns/{campaignId}/add-recipient", spec: true, target: addRecipient, status: http.StatusOK, prepare: prepareAddRecipient},
		{route: "GET /api/campaigns/audience-lists/{audienceId}/contacts", spec: true, target: listPage, status: http.StatusOK, prepare: prepareAudienceContacts},
		{route: "GET /api/campaigns/contacts", spec: true, target: listPage, status: http.StatusOK, prepare: prepareListContacts},
		{route: "GET /api/campaigns/gifts", spec: true, target: listPage, status: http.StatusOK, prepare: prepareListGifts},
		{route: "GET /api/campaigns/gifts/{giftId}", spec: true, target: getByID, status: http.StatusOK, prepare: prepareGetGift},
		{route: "GET /api/campaigns/templates/{templateId}", spec: true, target: getByID, status: http.StatusOK, prepare: prepareGetTemplate},
		{route: "GET /api/campaigns/icp-personas/{icpId}", spec: true, target: getByID, status: http.StatusOK, prepare: prepareGetPersona},
		{route: "GET /api/campaigns/recipients/express-send/campaign/{campaignId}", spec: true, target: listPage, status: http.StatusOK, prepare: prepareRecipientList("/api/campaigns/recipients/express-send/campaign/%s")},
		{route: "GET /api/campaigns/events/{id}", spec: true, target: getByID, status: http.StatusOK, prepare: prepareGetEvent},
		{route: "GET /api/campaigns/contact-lists", spec: true, target: listPage, status: http.StatusOK, prepare: prepareListContactLists},
		{route: "POST /api/campaigns/contact-lists", spec: true, status: http.StatusCreated, prepare: prepareCreateList},
		{route: "POST /api/campaigns/contact-lists/{listId}/contacts", spec: true, status: http.StatusOK, calls: 10, prepare: prepareBulkAdd},
		{route: "POST /api/campaigns/enrichment/enrich", spec: true, status: http.StatusOK, prepare: prepareEnrich},
		{route: "POST /api/campaigns", spec: true, status: http.StatusCreated, prepare: prepareCreateCampaign},
		{route: "GET /api/campaigns/{campaignId}", spec: true, target: getByID, status: http.StatusOK, prepare: prepareGetCampaign("/api/campaigns/%s")},
		{route: "POST /api/campaigns/{campaignId}/launch", spec: true, status: http.StatusAccepted, calls: 20, prepare: prepareLaunch},
		{route: "GET /api/campaigns/{campaignId}/recipients", spec: true, target: listPage, status: http.StatusOK, prepare: prepareRecipientList("/api/campaigns/%s/recipients")},
		{route: "GET /api/campaigns/{campaignId}/metrics", spec: true, status: http.StatusOK, prepare: prepareGetCampaign("/api/campaigns/%s/metrics")},
		{route: "GET /api/campaigns/reports/summary", status: http.StatusOK, prepare: prepareReport},
		{route: "POST /api/campaigns/gifts", status: http.StatusCreated, prepare: prepareCreateGift},
		{route: "POST /api/campaigns/templates", status: http.StatusCreated, prepare: prepareCreateTemplate},
		{route: "GET /api/campaigns/contacts/{contactId}", target: getByID, status: http.StatusOK, prepare: prepareGetContact},
		{route: "GET /api/campaigns/contact-lists/{listId}", target: getByID, status: http.StatusOK, prepare: prepareGetList},
		{route: "GET /api/campaigns/campaigns/{campaignId}/recipients/{recipientId}", target: getByID, status: http.StatusOK, prepare: prepareGetRecipient},
		{route: "GET /api/campaigns/wallet", status: http.StatusOK, prepare: prepareWallet},
		{route: "POST /api/campaigns/icp-personas", status: http.StatusCreated, prepare: prepareCreatePersona},
		{route: "GET /api/campaigns/audience-lists/{audienceId}", target: getByID, status: http.StatusOK, prepare: prepareGetAudience},
		{route: "POST /api/campaigns/events", status: http.StatusCreated, prepare: prepareCreateEvent},
		{route: "PATCH /api/campaigns/contacts/{contactId}", status: http.StatusOK, prepare: preparePatchContact},
		{route: "PATCH /api/campaigns/{campaignId}", status: http.StatusOK, prepare: preparePatchCampaign},
		{route: "GET /api/campaigns/icp-personas", target: listPage, status: http.StatusOK, prepare: preparePersonaList},
		{route: "GET /api/campaigns/audience-lists", target: listPage, status: http.StatusOK, prepare: prepareAudienceList},
		{route: "GET /api/campaigns/events", target: listPage, status: http.StatusOK, prepare: prepareEventList},
		{route: "PATCH /api/campaigns/icp-personas/{icpId}", status: http.StatusOK, prepare: preparePatchPersona},
		{route: "PATCH /api/campaigns/audience-lists/{audienceId}", status: http.StatusOK, prepare: preparePatchAudience},
		{route: "PATCH /api/campaigns/events/{id}", status: http.StatusOK, prepare: preparePatchEvent},
		{route: "DELETE /api/campaigns/icp-personas/{icpId}", status: http.StatusOK, prepare: prepareDeletePersona},
		{route: "DELETE /api/campaigns/events/{id}", status: http.StatusOK, prepare: prepareDeleteEvent},
		{route: "GET /api/campaigns/templates", target: listPage, status: http.StatusOK, prepare: prepareListTemplates},
		{route: "PATCH /api/campaigns/templates/{templateId}", status: http.StatusOK, prepare: preparePatchTemplate},
		{route: "DELETE /api/campaigns/templates/{templateId}", status: http.StatusOK, prepare: prepareDeleteTemplate},
		{route: "PATCH /api/campaigns/gifts/{giftId}", status: http.StatusOK, prepare: preparePatchGift},
		{route: "DELETE /api/campaigns/gifts/{giftId}", status: http.StatusOK, prepare: prepareDeleteGift},
		{route: "GET /api/campaigns/contact-lists/{listId}/contacts", status: http.StatusOK, prepare: prepareListMembers},
		{route: "PATCH /api/campaigns/contact-lists/{listId}", status: http.StatusOK, prepare: preparePatchList},
		{route: "DELETE /api/campaigns/contact-lists/{listId}", status: http.StatusOK, prepare: prepareDeleteList},
		{route: "GET /api/campaigns/orders", target: listPage, status: http.StatusOK, prepare: prepareOrdersPage("/api/campaigns/orders?status=open&limit=20")},
		{route: "GET /api/campaigns/orders/export", target: listPage, status: http.StatusOK, prepare: prepareOrdersPage("/api/campaigns/orders/export?status=open&limit=20")},
		{route: "GET /api/campaigns/orders/{orderId}", target: getByID, status: http.StatusOK, prepare: prepareGetOrder},
		{route: "POST /api/campaigns/orders/{orderId}/shipments", status: http.StatusOK, calls: 10, prepare: prepareShipOrder},
		{route: "POST /api/campaigns/orders/{orderId}/cancel", status: http.StatusOK, calls: 10, prepare: prepareCancelOrder},
		{route: "POST /api/campaigns/integrations/easypost/{organizationId}/events", status: http.StatusOK, calls: 10, prepare: prepareTrackingEvent},
	}
}

var pathVariable = regexp.MustCompile(`\{[^}]*\}`)

// normalRoute drops the names of path variables, so routes compare by
// shape.
func normalRoute(route string) string {
	return pathVariable.ReplaceAllString(route, "{}")
}

// servedBy returns the group serving route, if any.
func servedBy(route string) (httpapi.Group, bool) {
	want := normalRoute(route)
	for _, g := range httpapi.Groups {
		for _, r := range httpapi.Routes(g) {
			if normalRoute(r) == want {
				return g, true
			}
		}
	}
	return httpapi.Group{}, false
}

// unlistedRoutes returns served routes that no case names, so the report
// never hides an endpoint.
func unlistedRoutes(cs []benchCase) []string {
	var known []string
	for _, c := range cs {
		known = append(known, normalRoute(c.route))
	}
	var out []string
	for _, g := range httpapi.Groups {
		for _, r := range httpapi.Routes(g) {
			if !slices.Contains(known, normalRoute(r)) {
				out = append(out, r)
			}
		}
	}
	return out
}

// same returns a generator of one request.
func same(method, path string, body any) func(int) call {
	return func(int) call { return call{method: method, path: path, body: body} }
}

func prepareListGifts(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	// A tenant with a catalog of its own besides the service's: the page
	// reads both partitions.
	for i := range 20 {
		if _, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/gifts", giftBody(i)); err != nil {
			return nil, err
		}
	}
	return same("GET", "/api/campaigns/gifts?page=1&limit=12", nil), nil
}

func prepareGetGift(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	c, err := seed.LoadCatalog()
	if err != nil {
		return nil, err
	}
	return same("GET", "/api/campaigns/gifts/"+c.Gifts[0].GiftID, nil), nil
}

func prepareGetTemplate(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	c, err := seed.LoadCatalog()
	if err != nil {
		return nil, err
	}
	return same("GET", "/api/campaigns/templates/"+c.Templates[0].TemplateID, nil), nil
}

func prepareCreateGift(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	return func(i int) call { return call{method: "POST", path: "/api/campaigns/gifts", body: giftBody(i)} }, nil
}

func prepareCreateTemplate(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	c, err := seed.LoadCatalog()
	if err != nil {
		return nil, err
	}
	tpl := c.Templates[0]
	return func(i int) call {
		return call{method: "POST", path: "/api/campaigns/templates", body: map[string]any{
			"templateName": fmt.Sprintf("Bench template %d", i), "templateCategory": tpl.TemplateCategory,
			"tags": []string{"bench"}, "templateData": tpl.TemplateData, "description": "A template of the benchmark",
		}}
	}, nil
}

// giftBody is a tenant's gift, of the size a real catalog entry has.
func giftBody(i int) map[string]any {
	return map[string]any{
		"name": fmt.Sprintf("Bench Hoodie %d", i), "price": 20 + i%30, "currency": "USD", "status": "available",
		"inventory":        map[string]any{"total": 100, "available": 90, "reserved": 10},
		"shortDescription": "A soft hoodie with the company logo",
		"description":      strings.Repeat("Organic cotton, brushed fleece inside, embroidered logo. ", 4),
		"imageUrls":        []string{"https://images.example.com/gifts/hoodie.jpg"},
		"dimensions":       map[string]any{"height": 2, "width": 12, "length": 14, "unit": "inch"},
		"weight":           map[string]any{"weight": 1.5, "unit": "pound"},
		"collectionIds":    []string{"apparel"},
	}
}
