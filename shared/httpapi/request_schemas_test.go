package httpapi_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// schemaCase is a request body with what the API document should make of
// it: valid bodies must be accepted, invalid ones refused with 400.
type schemaCase struct {
	name  string
	path  string // request path, ids filled in
	body  any    // a string is sent as written
	valid bool
}

// TestRequestSchemasAgreeWithValidation holds the request schemas of the
// create endpoints to what the handlers enforce, in both directions: a
// body the document calls valid is accepted (so the valid inputs
// schemathesis generates reach the service's logic rather than a 400), and
// one it calls invalid is refused with 400. What depends on stored data
// (unknown ids) or relates two values (an event's start after its end) is
// beyond a schema and left out.
func TestRequestSchemasAgreeWithValidation(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	doc := testenv.Contract(t)

	listID := createList(t, api, "Leads")
	contactID := importContacts(t, api, listID, map[string]any{"mailId": "seed@example.com"}).Data.Items[0].ContactID
	icpID := createPersona(t, api, map[string]any{"name": "Leaders"})
	eventID := createEvent(t, api, newEventBody()).ID
	campaign := postCampaign(t, api, map[string]any{"name": "Q3", "campaignData": map[string]any{"giftIds": []string{"gift-artisan-coffee"}}})
	added := api.Do("POST", "/api/campaigns/campaigns/"+campaign.CampaignID+"/add-recipient",
		map[string]any{"contactDetails": map[string]any{"email": "rita@example.com"}})
	recipientID, _ := added.Map(t)["recipientId"].(string)
	moved := api.Do("POST", "/api/campaigns/campaigns/"+campaign.CampaignID+"/recipients/"+recipientID+"/status", map[string]any{"status": "invite_sent"})
	if added.Status != http.StatusOK || moved.Status != http.StatusOK {
		t.Fatalf("set up a recipient: %d %s; %d %s", added.Status, added.Body, moved.Status, moved.Body)
	}

	long := func(n int) string { return strings.Repeat("é", n) } // 2 bytes a character
	const (
		lists     = "/api/campaigns/contact-lists"
		personas  = "/api/campaigns/icp-personas"
		audiences = "/api/campaigns/audience-lists"
		events    = "/api/campaigns/events"
		enrich    = "/api/campaigns/enrichment/enrich"
		campaigns = "/api/campaigns"
	)
	bulk := lists + "/" + listID + "/contacts"
	link := events + "/" + eventID + "/campaigns"
	addRecipient := "/api/campaigns/campaigns/" + campaign.CampaignID + "/add-recipient"
	feedback := "/api/campaigns/campaigns/" + campaign.CampaignID + "/recipients/" + recipientID + "/feedback"
	event := func(change map[string]any) map[string]any {
		b := newEventBody()
		for k, v := range change {
			b[k] = v
		}
		return b
	}
	tooMany := make([]map[string]any, 101)
	for i := range tooMany {
		tooMany[i] = map[string]any{"mailId": "many@example.com"}
	}

	for _, tt := range []schemaCase{
		{"list: longest name in characters", lists, map[string]any{"name": long(200), "description": long(2000)}, true},
		{"list: no name", lists, map[string]any{"description": "x"}, false},
		{"list: blank name", lists, map[string]any{"name": "  "}, false},
		{"list: name too long", lists, map[string]any{"name": long(201)}, false},

		{"bulk: one contact", bulk, map[string]any{"contacts": []any{map[string]any{"mailId": "Ada@Example.com", "firstName": long(200)}}}, true},
		{"bulk: one valid among invalid", bulk, map[string]any{"contacts": []any{map[string]any{"mailId": "bad"}, map[string]any{"email": "grace@example.com"}}}, true},
		{"bulk: contact ids", bulk, map[string]any{"contactIds": []string{contactID}}, true},
		{"bulk: nothing", bulk, map[string]any{}, false},
		{"bulk: empty contacts", bulk, map[string]any{"contacts": []any{}}, false},
		{"bulk: both variants", bulk, map[string]any{"contacts": []any{map[string]any{"mailId": "a@example.com"}}, "contactIds": []string{contactID}}, false},
		{"bulk: every contact invalid", bulk, map[string]any{"contacts": []any{map[string]any{"mailId": "bad"}, map[string]any{"firstName": "No email"}}}, false},
		{"bulk: bad URL only", bulk, map[string]any{"contacts": []any{map[string]any{"mailId": "kay@example.com", "linkedinUrl": "linkedin/kay"}}}, false},
		{"bulk: 101 contacts", bulk, map[string]any{"contacts": tooMany}, false},

		{"persona: aliases", personas, map[string]any{"persona": map[string]any{"name": "x", "seniority_levels": []string{"VP", "C-Level", "entry_level", "Head of"},
			"contact_locations": []any{map[string]any{"region": "Ontario"}}}, "company": map[string]any{"size": map[string]any{"min": 10}}}, true},
		{"persona: empty company key", personas, map[string]any{"persona": map[string]any{"name": "x"}, "company": map[string]any{"": 1}}, false},
		{"persona: empty key deep in company", personas, map[string]any{"persona": map[string]any{"name": "x"}, "company": map[string]any{"a": []any{map[string]any{"": 1}}}}, false},
		{"persona: number DynamoDB cannot store", personas, `{"persona":{"name":"x"},"company":{"a":[1e-200]}}`, false},
		{"persona: unknown seniority", personas, map[string]any{"persona": map[string]any{"name": "x", "seniority_levels": []string{"boss"}}}, false},
		{"persona: title without a word", personas, map[string]any{"persona": map[string]any{"name": "x", "job_titles": []string{"--"}}}, false},
		{"persona: no name", personas, map[string]any{"persona": map[string]any{"job_titles": []string{"CEO"}}}, false},

		{"audience: priced", audiences, map[string]any{"name": long(200), "icpId": icpID, "creditsPerContact": 5, "tags": []string{long(100)}}, true},
		{"audience: blank name", audiences, map[string]any{"name": " ", "icpId": icpID}, false},
		{"audience: no persona", audiences, map[string]any{"name": "x"}, false},
		{"audience: two prices", audiences, map[string]any{"name": "x", "icpId": icpID, "creditsPerContact": 5, "giftId": "gift-artisan-coffee"}, false},

		{"event: dates only, hybrid", events, event(map[string]any{
			"eventDates": map[string]any{"start": "2026-09-09", "end": "2026-09-11T18:00:00+02:00"},
			"location":   map[string]any{"type": "hybrid", "venueName": "Hall A", "onlineUrl": "https://meet.example.com/x?id=1"},
			"hashtag":    "#saastr", "speakers": []any{map[string]any{"fullName": long(200)}}, "name": long(200),
		}), true},
		{"event: virtual", events, event(map[string]any{"location": map[string]any{"type": "virtual", "onlineUrl": "https://meet.example.com"}}), true},
		{"event: no end", events, event(map[string]any{"eventDates": map[string]any{"start": "2026-09-09T08:00:00Z"}}), false},
		{"event: bad date", events, event(map[string]any{"eventDates": map[string]any{"start": "next tuesday", "end": "2026-09-11T18:00:00Z"}}), false},
		{"event: virtual without URL", events, event(map[string]any{"location": map[string]any{"type": "virtual", "venueName": "Hall"}}), false},
		{"event: physical without place", events, event(map[string]any{"location": map[string]any{"type": "physical", "onlineUrl": "https://x.example.com"}}), false},
		{"event: hashtag of two words", events, event(map[string]any{"hashtag": "two words"}), false},
		{"event: speaker without name", events, event(map[string]any{"speakers": []any{map[string]any{"role": "CRO"}}}), false},

		{"link: a campaign", link, map[string]any{"campaignIds": []string{campaign.CampaignID, campaign.CampaignID}}, true},
		{"link: none", link, map[string]any{"campaignIds": []string{}}, false},
		{"link: blank id", link, map[string]any{"campaignIds": []string{" "}}, false},

		{"add-recipient: email only", addRecipient, map[string]any{"contactDetails": map[string]any{"email": "Jo@Example.com", "linkedinUrl": ""}}, true},
		{"add-recipient: bad email", addRecipient, map[string]any{"contactDetails": map[string]any{"email": "jo"}}, false},
		{"add-recipient: bad URL", addRecipient, map[string]any{"contactDetails": map[string]any{"email": "kim@example.com", "profileImage": "me.png"}}, false},

		{"feedback: rating", feedback, map[string]any{"rating": "like"}, true},
		{"feedback: link", feedback, map[string]any{"message": map[string]any{"url": "https://video.example.com/v?id=1", "text": long(2000)}}, true},
		{"feedback: nothing", feedback, map[string]any{}, false},
		{"feedback: empty message", feedback, map[string]any{"message": map[string]any{"type": "video"}}, false},
		{"feedback: blank text", feedback, map[string]any{"message": map[string]any{"text": "   "}}, false},
		{"feedback: not a URL", feedback, map[string]any{"message": map[string]any{"text": "hi", "url": "ftp://x.example.com"}}, false},

		{"enrich: LinkedIn", enrich, map[string]any{"linkedin_url": "https://www.linkedin.com/in/ada"}, true},
		{"enrich: name and company", enrich, map[string]any{"firstname": "Ada", "lastname": "Lovelace", "company_name": "Engines", "linkedin_url": ""}, true},
		{"enrich: name alone", enrich, map[string]any{"firstname": "Ada"}, false},
		{"enrich: bad URL", enrich, map[string]any{"linkedin_url": "linkedin/ada"}, false},

		{"campaign: name only", campaigns, map[string]any{"name": long(200), "scheduledAt": ""}, true},
		{"campaign: scheduled", campaigns, map[string]any{"name": "x", "campaignData": map[string]any{"scheduledAt": "2026-09-01T09:00:00+02:00"}}, true},
		{"campaign: no name", campaigns, map[string]any{"description": "x"}, false},
		{"campaign: blank name", campaigns, map[string]any{"name": " "}, false},
		{"campaign: date without time", campaigns, map[string]any{"name": "x", "scheduledAt": "2026-09-01"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := documentedBody(t, doc, tt.path, tt.body); (err == nil) != tt.valid {
				t.Fatalf("openapi.yaml calls the body valid = %v, want %v: %v", err == nil, tt.valid, err)
			}
			res := api.Do("POST", tt.path, tt.body)
			switch {
			case tt.valid && res.Status >= 300:
				t.Errorf("a body the document accepts got %d: %s", res.Status, res.Body)
			case !tt.valid && res.Status != http.StatusBadRequest:
				t.Errorf("a body the document rejects got %d, want 400: %s", res.Status, res.Body)
			}
		})
	}
}

// documentedBody validates body against the request schema openapi.yaml
// gives POST path.
func documentedBody(t *testing.T, doc *openapi3.T, path string, body any) error {
	t.Helper()
	route := ""
	for _, p := range doc.Paths.InMatchingOrder() {
		if doc.Paths.Value(p).Post != nil && matches(p, path) {
			route = p
			break
		}
	}
	if route == "" {
		t.Fatalf("openapi.yaml documents no POST %s", path)
	}
	schema := doc.Paths.Value(route).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	b, isRaw := body.(string) // sent as it is written
	if !isRaw {
		j, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		b = string(j)
	}
	var v any
	if err := json.Unmarshal([]byte(b), &v); err != nil {
		t.Fatal(err)
	}
	return schema.VisitJSON(v, openapi3.EnableJSONSchema2020())
}

// matches reports whether path fits the document's path pattern.
func matches(pattern, path string) bool {
	ps, ss := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(ss) {
		return false
	}
	for i, p := range ps {
		if !strings.HasPrefix(p, "{") && p != ss[i] {
			return false
		}
	}
	return true
}

// TestDocumentedRequestExamplesAreAccepted posts the request example of
// every POST operation, with the ids of what the earlier examples created,
// the way the fuzz tests build their fixtures: each example must be a
// request the service accepts, in the first round or the second (which can
// use what the first created), unless the resource's state forbids it.
func TestDocumentedRequestExamplesAreAccepted(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "examples", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	doc := testenv.Contract(t)
	ids := map[string]string{"giftId": "gift-artisan-coffee", "templateId": "tmpl-meeting-booker"}
	ids["orderId"] = claimedOrder(t, api, s, "examples")
	// EasyPost's events URL takes only events signed with the
	// organization's secret: the examples are signed as EasyPost signs.
	ids["organizationId"] = "examples"
	setEasyPostSecret(t, api, easyPostSecret)
	got := map[string][]int{}
	for range 2 {
		for _, path := range doc.Paths.InMatchingOrder() {
			op := doc.Paths.Value(path).Post
			if op == nil || op.RequestBody == nil {
				continue
			}
			c := op.RequestBody.Value.Content.Get("application/json")
			if c == nil {
				continue // a recipient page's form post, tested in shared/pages
			}
			if strings.HasPrefix(path, "/api/campaigns/sandbox/") {
				continue // test keys only (this key is live): sandbox_test.go posts them
			}
			var examples []any
			if c.Example != nil {
				examples = append(examples, c.Example)
			}
			for _, name := range slices.Sorted(maps.Keys(c.Examples)) {
				examples = append(examples, c.Examples[name].Value.Value)
			}
			for _, ex := range examples {
				req, headers := withIDs(ex, "", ids), []string(nil)
				if strings.HasPrefix(path, "/api/campaigns/integrations/easypost/") {
					raw, _ := json.Marshal(req)
					req, headers = string(raw), []string{"X-Hmac-Signature", easyPostSignature(raw, easyPostSecret)}
				}
				res := api.Do("POST", fillPath(path, ids), req, headers...)
				var body any
				// An order names another campaign's recipient (claimedOrder's):
				// its ids would pair with others that do not go with them; an
				// EasyPost event's answer names an order too.
				orders := strings.HasPrefix(path, "/api/campaigns/orders") || strings.Contains(path, "/integrations/")
				if res.Status < 300 && !orders && json.Unmarshal(res.Body, &body) == nil {
					harvest(body, "", ids)
				}
				got[path] = append(got[path], res.Status)
			}
		}
	}
	for path, statuses := range got {
		// A 409 is an answer to the resource's state (pausing a draft), not
		// to the request: the example itself was understood.
		if !slices.ContainsFunc(statuses, func(s int) bool { return s < 300 || s == http.StatusConflict }) {
			t.Errorf("POST %s: the documented examples got %v, never a 2xx", path, statuses)
		}
	}
}

// TestWholeNumbersAreIntegers: JSON Schema's integer type accepts 2197.0 and
// 1e3 (schemathesis sends them), so integer fields must too; a fraction is
// still refused, and text that looks like a number is left alone.
func TestWholeNumbersAreIntegers(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	for _, tt := range []struct {
		name, number string
		want         int64 // -1: refused
	}{
		{"fraction of zero", "2197.0", 2197},
		{"exponent", "1e3", 1000},
		{"both", "2.5e1", 25},
		{"negative zero", "-0.0", 0},
		{"a fraction", "2197.5", -1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := `{"name":"2197.0 \"1e3\"","campaignData":{"creditsPerRecipient":` + tt.number + `}}`
			res := api.Do("POST", "/api/campaigns", body)
			if tt.want < 0 {
				assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
				return
			}
			var env campaignEnvelope
			res.JSON(t, &env)
			if res.Status != http.StatusCreated || env.Data.CampaignData.CreditsPerRecipient != tt.want || env.Data.Name != `2197.0 "1e3"` {
				t.Errorf("got %d, price %d, name %q; want 201, %d and the name as sent: %s",
					res.Status, env.Data.CampaignData.CreditsPerRecipient, env.Data.Name, tt.want, res.Body)
			}
		})
	}
}

// TestFieldNamesAreCaseSensitive: encoding/json would fill Name from
// "nAme"; the API document knows only "name", so the service refuses a
// misspelt field at any depth, naming it (FuzzDecode found the 201).
func TestFieldNamesAreCaseSensitive(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api := testenv.NewAPI(t, s, key)
	listID := createList(t, api, "Leads")
	event := newEventBody()
	event["location"] = map[string]any{"Type": "physical", "venueName": "Hall"}
	for _, tt := range []struct {
		name, path string
		body       any
		field      string
	}{
		{"top level", "/api/campaigns", map[string]any{"nAme": "Q3"}, "nAme"},
		{"in an object", "/api/campaigns/events", event, "location.Type"},
		{"in an array", "/api/campaigns/contact-lists/" + listID + "/contacts",
			map[string]any{"contacts": []any{map[string]any{"mailId": "a@example.com"}, map[string]any{"MailId": "b@example.com"}}}, "contacts[1].MailId"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", tt.path, tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("nothing was written", func(t *testing.T) {
		if got := getList(t, api, listID).ContactCount; got != 0 {
			t.Errorf("the list has %d contacts, want 0", got)
		}
	})
}

// claimedOrder is the order of a recipient of a live campaign of the
// catalog's coffee who claimed it: orders come from claims, which no
// example of the API makes.
func claimedOrder(t *testing.T, api *testenv.API, s *dynamo.Store, orgID string) string {
	t.Helper()
	c := postCampaign(t, api, map[string]any{"name": "Orders", "campaignData": map[string]any{
		"giftIds": []string{"gift-artisan-coffee"}, "emailTemplateId": "tmpl-meeting-booker"}})
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live)
	res := api.Do("POST", addPath(c.CampaignID), recipientBody("orders@example.com", "Ada"))
	if res.Status != http.StatusOK {
		t.Fatalf("add-recipient: %d %s", res.Status, res.Body)
	}
	r := testenv.Claim(t, s, orgID, c.CampaignID, res.Map(t)["recipientId"].(string))
	id, _ := r.ShipmentInfo["orderId"].(string)
	return id
}
