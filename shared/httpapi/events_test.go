package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/testenv"
)

// eventEnvelope is the enveloped event of create, link and unlink. The
// event is read into the slice's type: encoding/json matches the API's
// field names to its fields.
type eventEnvelope struct {
	Success    bool        `json:"success"`
	StatusCode int         `json:"statusCode"`
	Data       event.Event `json:"data"`
}

func newEventBody() map[string]any {
	return map[string]any{
		"name": "SaaStr Annual", "type": "conference",
		"eventDates": map[string]any{"start": "2026-09-09T08:00:00Z", "end": "2026-09-11T18:00:00Z"},
		"location":   map[string]any{"type": "physical", "venueName": "Event Center", "address": "2 Convention Way"},
	}
}

// createEvent posts body and returns the created event.
func createEvent(t *testing.T, api *testenv.API, body map[string]any) event.Event {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/events", body)
	var env eventEnvelope
	res.JSON(t, &env)
	if res.Status != http.StatusCreated || !env.Success || env.StatusCode != 201 || env.Data.ID == "" {
		t.Fatalf("create event: %d %s", res.Status, res.Body)
	}
	return env.Data
}

func draftCampaign(t *testing.T, s *dynamo.Store, orgID string) string {
	t.Helper()
	c, err := testenv.CreateCampaign(context.Background(), s, orgID, campaign.Campaign{Name: "Q3", CreatedBy: "user-" + orgID})
	if err != nil {
		t.Fatal(err)
	}
	return c.CampaignID
}

func TestCreateAndGetEvent(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)
	campaign := draftCampaign(t, s, orgA)

	full := newEventBody()
	full["status"], full["visibility"] = "published", "private"
	full["location"] = map[string]any{"type": "hybrid", "address": "1 Main St", "onlineUrl": "https://meet.example.com/x", "venueName": "Hall A"}
	full["description"], full["host"], full["agenda"], full["focus"] = "Yearly", "Acme", "Talks", "Revenue"
	full["eventUrl"], full["banner"], full["hashtag"] = "https://saastr.example.com", "https://img.example.com/b.png", "#saastr"
	full["topics"], full["targetAudience"], full["targetAccounts"] = []string{"SaaS"}, []string{"CROs"}, []string{"Globex"}
	full["tags"], full["linkedCampaigns"], full["expectedAttendees"] = []string{"2026"}, []string{campaign, campaign}, 12000
	full["speakers"] = []map[string]any{{"fullName": "Jane Doe", "role": "CRO", "company": "Acme", "photoUrl": "https://img.example.com/j.png", "bio": "Sells"}}
	e := createEvent(t, a, full)

	var got struct {
		Event event.Event `json:"event"`
	}
	res := a.Do("GET", "/api/campaigns/events/"+e.ID, nil)
	res.JSON(t, &got)
	g := got.Event
	start, end := time.Date(2026, 9, 9, 8, 0, 0, 0, time.UTC), time.Date(2026, 9, 11, 18, 0, 0, 0, time.UTC)
	if res.Status != http.StatusOK || g.ID != e.ID || g.OrganizationID != "acme" || g.CreatorUserID != "user-acme" ||
		g.Status != "published" || g.Visibility != "private" || !g.EventDates.Start.Equal(start) || !g.EventDates.End.Equal(end) ||
		g.Location.OnlineURL != "https://meet.example.com/x" || g.Hashtag != "#saastr" || g.ExpectedAttendees != 12000 ||
		len(g.Speakers) != 1 || g.Speakers[0].PhotoURL == "" || !slices.Equal(g.LinkedCampaigns, []string{campaign}) ||
		g.Version != 1 || g.CreatedAt.IsZero() || !slices.Equal(g.TargetAccounts, []string{"Globex"}) {
		t.Fatalf("get event: %d %s", res.Status, res.Body)
	}

	t.Run("every field present with defaults", func(t *testing.T) {
		e := createEvent(t, a, newEventBody())
		m := a.Do("GET", "/api/campaigns/events/"+e.ID, nil).Map(t)["event"].(map[string]any)
		for _, f := range []string{"id", "name", "type", "status", "visibility", "organizationId", "creatorUserId", "eventDates",
			"location", "description", "host", "agenda", "focus", "eventUrl", "banner", "hashtag", "topics", "targetAudience",
			"targetAccounts", "linkedCampaigns", "tags", "speakers", "expectedAttendees", "createdAt", "updatedAt", "version"} {
			if _, ok := m[f]; !ok {
				t.Errorf("event has no %s", f)
			}
		}
		if m["status"] != "draft" || m["visibility"] != "public" || m["version"] != float64(1) {
			t.Errorf("defaults: status %v visibility %v version %v", m["status"], m["visibility"], m["version"])
		}
	})
	t.Run("another organization gets 404", func(t *testing.T) {
		assertError(t, a.WithKey(keyB).Do("GET", "/api/campaigns/events/"+e.ID, nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("missing event", func(t *testing.T) {
		assertError(t, a.Do("GET", "/api/campaigns/events/nope", nil), http.StatusNotFound, "NOT_FOUND")
	})
}

func TestCreateEventValidation(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, keyA := testenv.Org(t, s, "acme", 0)
	orgB, _ := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)
	foreign := draftCampaign(t, s, orgB)
	with := func(k string, v any) map[string]any {
		b := newEventBody()
		b[k] = v
		return b
	}
	without := func(k string) map[string]any {
		b := newEventBody()
		delete(b, k)
		return b
	}
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"missing name", without("name"), "name"},
		{"missing type", without("type"), "type"},
		{"unknown type", with("type", "party"), "type"},
		{"unknown status", with("status", "live"), "status"},
		{"unknown visibility", with("visibility", "secret"), "visibility"},
		{"missing dates", without("eventDates"), "eventDates"},
		{"missing end", with("eventDates", map[string]any{"start": "2026-09-09T08:00:00Z"}), "eventDates.end"},
		{"start after end", with("eventDates", map[string]any{"start": "2026-09-12T08:00:00Z", "end": "2026-09-11T18:00:00Z"}), "eventDates"},
		{"bad date", with("eventDates", map[string]any{"start": "next tuesday", "end": "2026-09-11T18:00:00Z"}), "eventDates.start"},
		{"missing location type", with("location", map[string]any{"address": "x"}), "location.type"},
		{"physical without place", with("location", map[string]any{"type": "physical"}), "location.address"},
		{"virtual without url", with("location", map[string]any{"type": "virtual"}), "location.onlineUrl"},
		{"bad online url", with("location", map[string]any{"type": "virtual", "onlineUrl": "zoom"}), "location.onlineUrl"},
		{"bad event url", with("eventUrl", "javascript:alert(1)"), "eventUrl"},
		{"bad banner", with("banner", "ftp://x/y.png"), "banner"},
		{"bad speaker photo", with("speakers", []map[string]any{{"fullName": "J", "photoUrl": "x"}}), "speakers[0].photoUrl"},
		{"speaker without name", with("speakers", []map[string]any{{"role": "CEO"}}), "speakers[0].fullName"},
		{"negative attendees", with("expectedAttendees", -1), "expectedAttendees"},
		{"bad hashtag", with("hashtag", "two words"), "hashtag"},
		{"unknown field", with("version", 7), "version"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := a.Do("POST", "/api/campaigns/events", tt.body)
			assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
			if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
				t.Errorf("details %v do not name %s", d, tt.field)
			}
		})
	}
	t.Run("another organization's campaign", func(t *testing.T) {
		res := a.Do("POST", "/api/campaigns/events", with("linkedCampaigns", []string{foreign}))
		assertError(t, res, http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("date-only start on the end day", func(t *testing.T) {
		e := createEvent(t, a, with("eventDates", map[string]any{"start": "2026-09-11", "end": "2026-09-11T18:00:00+02:00"}))
		if !e.EventDates.End.Equal(time.Date(2026, 9, 11, 16, 0, 0, 0, time.UTC)) {
			t.Errorf("end = %v, want 16:00 UTC", e.EventDates.End)
		}
	})
}

func TestLinkEventCampaigns(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	orgB, keyB := testenv.Org(t, s, "globex", 0)
	a := testenv.NewAPI(t, s, keyA)
	c1, c2 := draftCampaign(t, s, orgA), draftCampaign(t, s, orgA)
	foreign := draftCampaign(t, s, orgB)
	e := createEvent(t, a, newEventBody())
	path := "/api/campaigns/events/" + e.ID + "/campaigns"

	link := func(t *testing.T, ids ...string) event.Event {
		t.Helper()
		res := a.Do("POST", path, map[string]any{"campaignIds": ids})
		var env eventEnvelope
		res.JSON(t, &env)
		if res.Status != http.StatusOK {
			t.Fatalf("link: %d %s", res.Status, res.Body)
		}
		return env.Data
	}
	t.Run("links and bumps the version", func(t *testing.T) {
		got := link(t, c1)
		if !slices.Equal(got.LinkedCampaigns, []string{c1}) || got.Version != 2 {
			t.Fatalf("links %v version %d; want [%s], 2", got.LinkedCampaigns, got.Version, c1)
		}
		got = link(t, c1, c2)
		if !slices.Equal(got.LinkedCampaigns, []string{c1, c2}) || got.Version != 3 {
			t.Fatalf("links %v version %d; want [%s %s], 3", got.LinkedCampaigns, got.Version, c1, c2)
		}
	})
	t.Run("linking what is linked changes nothing", func(t *testing.T) {
		if got := link(t, c2); got.Version != 3 || len(got.LinkedCampaigns) != 2 {
			t.Errorf("links %v version %d; want 2 links, version 3", got.LinkedCampaigns, got.Version)
		}
	})
	t.Run("another organization's campaign is 404 and nothing changes", func(t *testing.T) {
		res := a.Do("POST", path, map[string]any{"campaignIds": []string{c1, foreign}})
		assertError(t, res, http.StatusNotFound, "NOT_FOUND")
		if msg, _ := res.Map(t)["error"].(string); !strings.Contains(msg, foreign) {
			t.Errorf("error %q does not name the campaign %s", msg, foreign)
		}
		var got struct {
			Event event.Event `json:"event"`
		}
		a.Do("GET", "/api/campaigns/events/"+e.ID, nil).JSON(t, &got)
		if got.Event.Version != 3 || slices.Contains(got.Event.LinkedCampaigns, foreign) {
			t.Errorf("after a refused link: version %d links %v", got.Event.Version, got.Event.LinkedCampaigns)
		}
	})
	t.Run("another organization's event is 404", func(t *testing.T) {
		b := a.WithKey(keyB)
		assertError(t, b.Do("POST", path, map[string]any{"campaignIds": []string{foreign}}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, b.Do("DELETE", path+"/"+c1, nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("empty list", func(t *testing.T) {
		assertError(t, a.Do("POST", path, map[string]any{"campaignIds": []string{}}), http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("unlink", func(t *testing.T) {
		res := a.Do("DELETE", path+"/"+c1, nil)
		var env eventEnvelope
		res.JSON(t, &env)
		if res.Status != http.StatusOK || !slices.Equal(env.Data.LinkedCampaigns, []string{c2}) || env.Data.Version != 4 {
			t.Fatalf("unlink: %d %s", res.Status, res.Body)
		}
		assertError(t, a.Do("DELETE", path+"/"+c1, nil), http.StatusNotFound, "NOT_FOUND")
	})
}
