package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// listPage is the enveloped body of the persona, audience and event lists;
// id names the id field of the items.
type listPage struct {
	Success bool `json:"success"`
	Data    struct {
		Items      []map[string]any   `json:"items"`
		Pagination gifting.Pagination `json:"pagination"`
	} `json:"data"`
}

// listIDs gets path and returns the ids (field id) of its items and its
// pagination.
func listIDs(t *testing.T, api *testenv.API, path, id string) ([]string, gifting.Pagination) {
	t.Helper()
	res := api.Do("GET", path, nil)
	var body listPage
	res.JSON(t, &body)
	if res.Status != http.StatusOK || !body.Success {
		t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
	}
	ids := []string{}
	for _, it := range body.Data.Items {
		ids = append(ids, it[id].(string))
	}
	return ids, body.Data.Pagination
}

// assertPages walks base (a list path without query) page by page with
// limit 2 and checks that the pages hold exactly want (newest first), with
// exact totals.
func assertPages(t *testing.T, api *testenv.API, base, id string, want []string) {
	t.Helper()
	var got []string
	pages := (len(want) + 1) / 2
	for p := 1; p <= pages+1; p++ {
		ids, pg := listIDs(t, api, fmt.Sprintf("%s?limit=2&page=%d", base, p), id)
		if pg.Total != len(want) || pg.TotalPages != pages || pg.HasNext != (p < pages) || pg.HasPrev != (p > 1) {
			t.Errorf("page %d pagination = %+v, want total %d, %d pages", p, pg, len(want), pages)
		}
		got = append(got, ids...)
	}
	if !slices.Equal(got, want) {
		t.Errorf("pages of %s = %v, want %v", base, got, want)
	}
}

func reversed(ids []string) []string {
	out := slices.Clone(ids)
	slices.Reverse(out)
	return out
}

func TestPersonaListEditDelete(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "other", 0)
	a, b := testenv.NewAPI(t, s, keyA), testenv.NewAPI(t, s, keyB)
	var ids []string
	for i := range 5 {
		ids = append(ids, createPersona(t, a, map[string]any{"name": fmt.Sprintf("Persona %d", i), "job_titles": []string{"VP Sales"}}))
	}
	foreign := createPersona(t, b, map[string]any{"name": "Persona of another org"})
	base := "/api/campaigns/icp-personas"

	t.Run("pages are exact, newest first, and never show another org's", func(t *testing.T) {
		assertPages(t, a, base, "icpId", reversed(ids))
		got, _ := listIDs(t, b, base, "icpId")
		if !slices.Equal(got, []string{foreign}) {
			t.Errorf("other org lists %v, want only its own", got)
		}
	})
	t.Run("patch changes only the fields sent", func(t *testing.T) {
		before := a.Do("GET", base+"/"+ids[0], nil)
		var was struct{ ICPPersona icpPersona }
		before.JSON(t, &was)
		res := a.Do("PATCH", base+"/"+ids[0], map[string]any{"status": "inactive", "persona": map[string]any{"description": "Changed"}})
		var env struct{ Data icpPersona }
		res.JSON(t, &env)
		p := env.Data
		if res.Status != http.StatusOK || p.Status != "inactive" || p.Persona.Description != "Changed" ||
			p.Persona.Name != "Persona 0" || !slices.Equal(p.Persona.JobTitles, []string{"VP Sales"}) || !p.UpdatedAt.After(was.ICPPersona.UpdatedAt) {
			t.Fatalf("patch: %d %s", res.Status, res.Body)
		}
		var got struct{ ICPPersona icpPersona }
		a.Do("GET", base+"/"+ids[0], nil).JSON(t, &got)
		if got.ICPPersona.Status != "inactive" || got.ICPPersona.Persona.Description != "Changed" {
			t.Errorf("GET after patch = %+v", got.ICPPersona)
		}
	})
	t.Run("filters and search", func(t *testing.T) {
		if got, pg := listIDs(t, a, base+"?status=inactive", "icpId"); !slices.Equal(got, ids[:1]) || pg.Total != 1 {
			t.Errorf("status=inactive = %v (%+v)", got, pg)
		}
		if got, _ := listIDs(t, a, base+"?search=persona+3", "icpId"); !slices.Equal(got, ids[3:4]) {
			t.Errorf("search = %v, want %v", got, ids[3:4])
		}
		if got, _ := listIDs(t, a, base+"?sortBy=name&sortOrder=asc&limit=2", "icpId"); !slices.Equal(got, ids[:2]) {
			t.Errorf("by name = %v", got)
		}
		assertError(t, a.Do("GET", base+"?status=gone", nil), http.StatusBadRequest, "VALIDATION_FAILED")
		assertError(t, a.Do("GET", base+"?limit=101", nil), http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("patch validation writes nothing", func(t *testing.T) {
		for name, body := range map[string]any{
			"blank name":    map[string]any{"persona": map[string]any{"name": " "}},
			"bad status":    map[string]any{"status": "paused"},
			"unknown field": map[string]any{"icpId": "x"},
			"bad seniority": map[string]any{"persona": map[string]any{"seniority_levels": []string{"emperor"}}},
		} {
			t.Run(name, func(t *testing.T) {
				assertError(t, a.Do("PATCH", base+"/"+ids[1], body), http.StatusBadRequest, "VALIDATION_FAILED")
			})
		}
		var got struct{ ICPPersona icpPersona }
		a.Do("GET", base+"/"+ids[1], nil).JSON(t, &got)
		if got.ICPPersona.Persona.Name != "Persona 1" || got.ICPPersona.Status != "active" {
			t.Errorf("after rejected patches: %+v", got.ICPPersona)
		}
	})
	t.Run("another org's persona is 404", func(t *testing.T) {
		assertError(t, b.Do("PATCH", base+"/"+ids[2], map[string]any{"status": "inactive"}), http.StatusNotFound, "NOT_FOUND")
		assertError(t, b.Do("DELETE", base+"/"+ids[2], nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("delete, then 404 and out of the list", func(t *testing.T) {
		if res := a.Do("DELETE", base+"/"+ids[4], nil); res.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		assertError(t, a.Do("GET", base+"/"+ids[4], nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, a.Do("DELETE", base+"/"+ids[4], nil), http.StatusNotFound, "NOT_FOUND")
		assertPages(t, a, base, "icpId", reversed(ids[:4]))
	})
}

func TestAudienceListEditDeleteRebuild(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "other", 0)
	a, b := testenv.NewAPI(t, s, keyA), testenv.NewAPI(t, s, keyB)
	seedContacts(t, s, orgA, []person{
		{"ann@example.com", "VP Sales", "US", "CA"}, {"bob@example.com", "Engineer", "US", "NY"},
		{"cid@example.com", "Head of Sales", "US", "TX"},
	})
	sales := createPersona(t, a, map[string]any{"name": "sales", "departments": []string{"Sales"}})
	eng := createPersona(t, a, map[string]any{"name": "eng", "departments": []string{"Engineering"}})
	var ids []string
	for i := range 3 {
		ids = append(ids, buildAudience(t, a, map[string]any{"name": fmt.Sprintf("Sales %d", i), "icpId": sales, "creditsPerContact": 2}).AudienceID)
	}
	engAud := buildAudience(t, a, map[string]any{"name": "Engineers", "icpId": eng}).AudienceID
	createPersona(t, b, map[string]any{"name": "b"})
	base := "/api/campaigns/audience-lists"

	t.Run("pages, filters, and another org sees none", func(t *testing.T) {
		assertPages(t, a, base, "audienceId", reversed(append(slices.Clone(ids), engAud)))
		if got, _ := listIDs(t, a, base+"?icpId="+eng, "audienceId"); !slices.Equal(got, []string{engAud}) {
			t.Errorf("icpId filter = %v", got)
		}
		if got, pg := listIDs(t, a, base+"?status=ready&limit=100", "audienceId"); pg.Total != 4 || len(got) != 4 {
			t.Errorf("status=ready = %v (%+v)", got, pg)
		}
		if got, _ := listIDs(t, a, base+"?status=failed", "audienceId"); len(got) != 0 {
			t.Errorf("status=failed = %v", got)
		}
		if got, _ := listIDs(t, b, base, "audienceId"); len(got) != 0 {
			t.Errorf("other org lists %v", got)
		}
	})
	t.Run("patch name and tags; persona is not patchable", func(t *testing.T) {
		before := getAudience(t, a, ids[0])
		res := a.Do("PATCH", base+"/"+ids[0], map[string]any{"name": "Renamed", "tags": []string{"q4"}})
		var env audienceEnvelope
		res.JSON(t, &env)
		if res.Status != http.StatusOK || env.Data.Name != "Renamed" || !slices.Equal(env.Data.Tags, []string{"q4"}) ||
			env.Data.TotalMatch != before.TotalMatch || !env.Data.UpdatedAt.After(before.UpdatedAt) {
			t.Fatalf("patch: %d %s", res.Status, res.Body)
		}
		if got := getAudience(t, a, ids[0]); got.Name != "Renamed" || got.Description != before.Description {
			t.Errorf("after patch: %+v", got)
		}
		assertError(t, a.Do("PATCH", base+"/"+ids[0], map[string]any{"icpId": eng}), http.StatusBadRequest, "VALIDATION_FAILED")
		assertError(t, a.Do("PATCH", base+"/"+ids[0], map[string]any{"name": ""}), http.StatusBadRequest, "VALIDATION_FAILED")
		assertError(t, b.Do("PATCH", base+"/"+ids[0], map[string]any{"name": "x"}), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("rebuild replaces the members exactly", func(t *testing.T) {
		before := getAudience(t, a, ids[1])
		if before.TotalMatch != 2 {
			t.Fatalf("built audience totalMatch = %d, want 2", before.TotalMatch)
		}
		// The contacts changed: ann left sales, dan joined.
		ann, _, err := contact.NewApp(s, nil).Contacts(ctx, orgA, "ann@example.com", gifting.PageRequest{Page: 1, Limit: 1})
		if err != nil || len(ann) != 1 {
			t.Fatalf("find ann: %v", err)
		}
		title := "Engineer"
		if _, err := contact.NewApp(s, nil).UpdateContact(ctx, orgA, ann[0].ContactID, contact.Patch{JobTitle: &title}); err != nil {
			t.Fatal(err)
		}
		seedContacts(t, s, orgA, []person{{"dan@example.com", "Sales Manager", "US", "WA"}})
		// The build is held until the second rebuild was refused: run at
		// once, it could finish first, and the second would rightly start.
		held, start := testenv.HeldAPI(t, s, keyA)
		res := held.Do("POST", base+"/"+ids[1]+"/rebuild", nil)
		var env audienceEnvelope
		res.JSON(t, &env)
		if res.Status != http.StatusAccepted || env.Data.Status != string(audience.Building) || env.Data.TotalMatch != 0 || env.Data.Metadata.ContactsScanned != 0 {
			t.Fatalf("rebuild: %d %s", res.Status, res.Body)
		}
		assertError(t, held.Do("POST", base+"/"+ids[1]+"/rebuild", nil), http.StatusConflict, "CONFLICT")
		start()
		held.Jobs.Wait()
		got := getAudience(t, a, ids[1])
		if got.Status != string(audience.Ready) || got.TotalMatch != 2 || got.CreditRequired != 4 || got.Metadata.ContactsScanned != 4 {
			t.Errorf("rebuilt: %+v", got)
		}
		if emails := audienceEmails(t, a, ids[1]); !slices.Equal(emails, []string{"cid@example.com", "dan@example.com"}) {
			t.Errorf("rebuilt members = %v", emails)
		}
		assertError(t, b.Do("POST", base+"/"+ids[1]+"/rebuild", nil), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("deleting a persona leaves built audiences; they cannot be rebuilt", func(t *testing.T) {
		if res := a.Do("DELETE", "/api/campaigns/icp-personas/"+eng, nil); res.Status != http.StatusOK {
			t.Fatalf("delete persona: %d %s", res.Status, res.Body)
		}
		got := getAudience(t, a, engAud)
		if got.Status != string(audience.Ready) || got.TotalMatch != 1 || len(audienceEmails(t, a, engAud)) != 1 {
			t.Errorf("audience after its persona's delete: %+v", got)
		}
		assertError(t, a.Do("POST", base+"/"+engAud+"/rebuild", nil), http.StatusConflict, "CONFLICT")
	})
	t.Run("delete removes the audience at once and its members in the background", func(t *testing.T) {
		assertError(t, b.Do("DELETE", base+"/"+ids[2], nil), http.StatusNotFound, "NOT_FOUND")
		if res := a.Do("DELETE", base+"/"+ids[2], nil); res.Status != http.StatusOK {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		assertError(t, a.Do("GET", base+"/"+ids[2], nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, a.Do("GET", base+"/"+ids[2]+"/contacts", nil), http.StatusNotFound, "NOT_FOUND")
		a.Jobs.Wait()
		if n := testenv.CountItems(t, s, orgA, "AMEMBER#"+ids[2]+"#"); n != 0 {
			t.Errorf("members left after delete: %d", n)
		}
		assertPages(t, a, base, "audienceId", []string{engAud, ids[1], ids[0]})
	})
}

func TestAudienceBusyIsConflict(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	a, start := testenv.HeldAPI(t, s, keyA)
	seedContacts(t, s, orgA, []person{{"ann@example.com", "VP Sales", "US", "CA"}})
	icp := createPersona(t, a, map[string]any{"name": "sales", "departments": []string{"Sales"}})
	res := a.Do("POST", "/api/campaigns/audience-lists", map[string]any{"name": "S", "icpId": icp})
	var env audienceEnvelope
	res.JSON(t, &env)
	base := "/api/campaigns/audience-lists/" + env.Data.AudienceID
	assertError(t, a.Do("DELETE", base, nil), http.StatusConflict, "CONFLICT")
	assertError(t, a.Do("POST", base+"/rebuild", nil), http.StatusConflict, "CONFLICT")
	start()
	a.Jobs.Wait()
	if got := getAudience(t, a, env.Data.AudienceID); got.Status != string(audience.Ready) || got.TotalMatch != 1 {
		t.Errorf("after the build: %+v", got)
	}
}

func TestEventListEditDelete(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, keyA := testenv.Org(t, s, "acme", 0)
	_, keyB := testenv.Org(t, s, "other", 0)
	a, b := testenv.NewAPI(t, s, keyA), testenv.NewAPI(t, s, keyB)
	var ids []string
	for i, day := range []string{"2026-05-01", "2026-06-01", "2026-07-01", "2026-08-01", "2026-09-01"} {
		body := newEventBody()
		body["name"] = fmt.Sprintf("Event %d", i)
		body["eventDates"] = map[string]any{"start": day + "T09:00:00Z", "end": day + "T18:00:00Z"}
		if i == 2 {
			body["type"] = "webinar"
			body["location"] = map[string]any{"type": "virtual", "onlineUrl": "https://example.com/live"}
		}
		ids = append(ids, createEvent(t, a, body).ID)
	}
	createEvent(t, b, newEventBody())
	base := "/api/campaigns/events"

	t.Run("pages are exact and never show another org's", func(t *testing.T) {
		assertPages(t, a, base, "id", reversed(ids))
	})
	t.Run("filters on type, status and start date", func(t *testing.T) {
		if got, _ := listIDs(t, a, base+"?type=webinar", "id"); !slices.Equal(got, ids[2:3]) {
			t.Errorf("type = %v", got)
		}
		if got, _ := listIDs(t, a, base+"?from=2026-06-01&to=2026-08-01&sortBy=startDate&sortOrder=asc", "id"); !slices.Equal(got, ids[1:4]) {
			t.Errorf("from/to = %v, want %v", got, ids[1:4])
		}
		if got, _ := listIDs(t, a, base+"?status=published", "id"); len(got) != 0 {
			t.Errorf("status=published = %v", got)
		}
		assertError(t, a.Do("GET", base+"?from=2026-09-01&to=2026-01-01", nil), http.StatusBadRequest, "VALIDATION_FAILED")
		assertError(t, a.Do("GET", base+"?type=party", nil), http.StatusBadRequest, "VALIDATION_FAILED")
	})
	t.Run("patch changes the fields sent and bumps the version", func(t *testing.T) {
		res := a.Do("PATCH", base+"/"+ids[0], map[string]any{"status": "published", "eventDates": map[string]any{"end": "2026-05-02T18:00:00Z"}})
		var env eventEnvelope
		res.JSON(t, &env)
		e := env.Data
		if res.Status != http.StatusOK || e.Status != "published" || e.Version != 2 || e.Name != "Event 0" ||
			!e.EventDates.End.Equal(time.Date(2026, 5, 2, 18, 0, 0, 0, time.UTC)) || !e.EventDates.Start.Equal(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)) || !e.UpdatedAt.After(e.CreatedAt) {
			t.Fatalf("patch: %d %s", res.Status, res.Body)
		}
		if got, _ := listIDs(t, a, base+"?status=published", "id"); !slices.Equal(got, ids[:1]) {
			t.Errorf("status=published after patch = %v", got)
		}
		for name, body := range map[string]any{
			"end before start":     map[string]any{"eventDates": map[string]any{"end": "2026-04-01T00:00:00Z"}},
			"virtual without URL":  map[string]any{"location": map[string]any{"type": "virtual"}},
			"unknown type":         map[string]any{"type": "party"},
			"linkedCampaigns here": map[string]any{"linkedCampaigns": []string{}},
		} {
			t.Run(name, func(t *testing.T) {
				assertError(t, a.Do("PATCH", base+"/"+ids[0], body), http.StatusBadRequest, "VALIDATION_FAILED")
			})
		}
		var got eventBodyCheck
		a.Do("GET", base+"/"+ids[0], nil).JSON(t, &got)
		if got.Event.Version != 2 || got.Event.Status != "published" {
			t.Errorf("after rejected patches: %+v", got.Event)
		}
		assertError(t, b.Do("PATCH", base+"/"+ids[0], map[string]any{"name": "x"}), http.StatusNotFound, "NOT_FOUND")
	})
	t.Run("delete bumps the version, then 404 and out of the list", func(t *testing.T) {
		assertError(t, b.Do("DELETE", base+"/"+ids[0], nil), http.StatusNotFound, "NOT_FOUND")
		res := a.Do("DELETE", base+"/"+ids[0], nil)
		var env struct {
			Data struct {
				ID        string `json:"id"`
				IsDeleted bool   `json:"isDeleted"`
				Version   int    `json:"version"`
			} `json:"data"`
		}
		res.JSON(t, &env)
		if res.Status != http.StatusOK || !env.Data.IsDeleted || env.Data.Version != 3 {
			t.Fatalf("delete: %d %s", res.Status, res.Body)
		}
		assertError(t, a.Do("GET", base+"/"+ids[0], nil), http.StatusNotFound, "NOT_FOUND")
		assertError(t, a.Do("PATCH", base+"/"+ids[0], map[string]any{"name": "x"}), http.StatusNotFound, "NOT_FOUND")
		assertPages(t, a, base, "id", reversed(ids[1:]))
	})
}

// eventBodyCheck is the bare body of GET /events/{id}.
type eventBodyCheck struct {
	Event event.Event `json:"event"`
}

func TestAudiencePurgeFinishesByTicks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	orgID, key := testenv.Org(t, s, "purge", 0)
	a := testenv.NewAPI(t, s, key)
	var people []person
	for i := range 620 {
		people = append(people, person{fmt.Sprintf("p%03d@example.com", i), "VP Sales", "US", "CA"})
	}
	seedContacts(t, s, orgID, people)
	icp := createPersona(t, a, map[string]any{"name": "sales", "departments": []string{"Sales"}})
	aud := buildAudience(t, a, map[string]any{"name": "All sales", "icpId": icp})
	if aud.TotalMatch != 620 {
		t.Fatalf("built %d members, want 620", aud.TotalMatch)
	}
	// The delete's job message is lost: the queue refuses it.
	svc := service.New(s, service.Config{Logger: testenv.Quiet, Jobs: lostQueue{}})
	lost := testenv.HandlerAPI(t, httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Groups...), key)
	if res := lost.Do("DELETE", "/api/campaigns/audience-lists/"+aud.AudienceID, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}
	assertError(t, a.Do("GET", "/api/campaigns/audience-lists/"+aud.AudienceID, nil), http.StatusNotFound, "NOT_FOUND")
	members := func() int {
		t.Helper()
		return testenv.CountItems(t, s, orgID, "AMEMBER#"+aud.AudienceID+"#")
	}
	if members() == 0 {
		t.Fatal("members gone before any job ran")
	}
	clock.Advance(dynamo.DueLease + time.Second)
	if err := scheduler.New(s, svc.RunJob, testenv.Quiet).Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := members(); n != 0 {
		t.Errorf("%d members left after the tick", n)
	}
	due, err := s.DueItems(ctx, clock.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		if d.OrgID == orgID {
			t.Errorf("still due after the purge: %+v", d)
		}
	}
}
