package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Fixtures shared between cases live in organizations of their own and are
// made once per run, on first use.

var (
	fixtureMu sync.Mutex
	fixtures  = map[string]any{}
)

func fixture[T any](name string, make func() (T, error)) (T, error) {
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if v, ok := fixtures[name]; ok {
		return v.(T), nil
	}
	v, err := make()
	if err != nil {
		return v, fmt.Errorf("fixture %s: %w", name, err)
	}
	fixtures[name] = v
	return v, nil
}

// recipientsFixture is a campaign with recipients added one by one.
type recipientsFixture struct {
	t            tenant
	campaignID   string
	recipientIDs []string
}

const fixtureRecipients = 150

func recipients(ctx context.Context, e *env) (recipientsFixture, error) {
	return fixture("recipients", func() (recipientsFixture, error) {
		var fx recipientsFixture
		var err error
		if fx.t, err = e.newTenant(ctx, "fx-recipients", 1_000_000_000); err != nil {
			return fx, err
		}
		if fx.campaignID, err = e.newCampaign(ctx, fx.t, "Recipients fixture", nil, 10); err != nil {
			return fx, err
		}
		for k := range fixtureRecipients {
			res, err := e.expect(ctx, fx.t, http.StatusOK, "POST", "/api/campaigns/campaigns/"+fx.campaignID+"/add-recipient", recipientBody(fx.t.orgID, k))
			if err != nil {
				return fx, err
			}
			var out struct {
				RecipientID string `json:"recipientId"`
			}
			if err := res.decode(&out); err != nil {
				return fx, err
			}
			fx.recipientIDs = append(fx.recipientIDs, out.RecipientID)
		}
		return fx, nil
	})
}

// contactsFixture is a contact list with contacts, and an audience built
// over them.
type contactsFixture struct {
	t          tenant
	listID     string
	contactIDs []string
	icpID      string
	audienceID string
}

const fixtureContacts = 500

func contacts(ctx context.Context, e *env) (contactsFixture, error) {
	return fixture("contacts", func() (contactsFixture, error) {
		var fx contactsFixture
		var err error
		if fx.t, err = e.newTenant(ctx, "fx-contacts", 1_000_000_000); err != nil {
			return fx, err
		}
		if fx.listID, err = e.createList(ctx, fx.t, "Contacts fixture"); err != nil {
			return fx, err
		}
		if fx.contactIDs, _, err = e.importContacts(ctx, fx.t, fx.listID, fx.t.orgID, 0, fixtureContacts, 1); err != nil {
			return fx, err
		}
		if fx.icpID, err = e.createPersona(ctx, fx.t); err != nil {
			return fx, err
		}
		fx.audienceID, err = e.buildAudience(ctx, fx.t, fx.icpID)
		return fx, err
	})
}

// createPersona creates the benchmark's persona and returns its id.
func (e *env) createPersona(ctx context.Context, t tenant) (string, error) {
	res, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/icp-personas", personaBody())
	if err != nil {
		return "", err
	}
	var out struct {
		ICPPersona struct {
			ICPID string `json:"icpId"`
		} `json:"icpPersona"`
	}
	return out.ICPPersona.ICPID, res.decode(&out)
}

// buildAudience creates an audience list of persona icpID and waits until
// its build (a background job) is done.
func (e *env) buildAudience(ctx context.Context, t tenant, icpID string) (string, error) {
	res, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/audience-lists",
		map[string]any{"name": "Bench audience", "icpId": icpID, "creditsPerContact": 10})
	if err != nil {
		return "", err
	}
	var out struct {
		Data struct {
			AudienceID string `json:"audienceId"`
		} `json:"data"`
	}
	if err := res.decode(&out); err != nil {
		return "", err
	}
	e.queue.Wait()
	return out.Data.AudienceID, nil
}

// createdID posts body and returns the id at data.<field>.
func (e *env) createdID(ctx context.Context, t tenant, path, field string, body any) (string, error) {
	res, err := e.expect(ctx, t, http.StatusCreated, "POST", path, body)
	if err != nil {
		return "", err
	}
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := res.decode(&out); err != nil {
		return "", err
	}
	id, _ := out.Data[field].(string)
	if id == "" {
		return "", fmt.Errorf("POST %s: no data.%s in %.200s", path, field, res.body)
	}
	return id, nil
}

func eventBody(i int) map[string]any {
	return map[string]any{
		"name": fmt.Sprintf("Bench Summit %d", i), "type": "conference", "description": "An event of the benchmark",
		"eventDates": map[string]any{"start": "2026-09-09T08:00:00Z", "end": "2026-09-11T18:00:00Z"},
		"location":   map[string]any{"type": "physical", "venueName": "Event Center", "address": "2 Convention Way"},
		"topics":     []string{"gifting", "marketing"},
	}
}

func prepareListCampaigns(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	for i := range 30 {
		if _, err := e.newCampaign(ctx, t, fmt.Sprintf("Campaign %d", i), nil, 10); err != nil {
			return nil, err
		}
	}
	return same("GET", "/api/campaigns/campaigns", nil), nil
}

// prepareReport reads the report across campaigns by month over a year
// (twelve or thirteen month items, whatever the campaigns: 30 of the
// tenant's, and any its other cases created).
func prepareReport(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	for i := range 30 {
		if _, err := e.newCampaign(ctx, t, fmt.Sprintf("Reported %d", i), nil, 10); err != nil {
			return nil, err
		}
	}
	from := time.Now().UTC().AddDate(0, 0, -365).Format("2006-01-02")
	return same("GET", "/api/campaigns/reports/summary?groupBy=month&from="+from, nil), nil
}

// prepareRecipientList reads page 1 of a recipient list at pathFormat
// (with the campaign id) of the recipients fixture.
func prepareRecipientList(pathFormat string) func(context.Context, *env, tenant, int) (func(int) call, error) {
	return func(ctx context.Context, e *env, _ tenant, _ int) (func(int) call, error) {
		fx, err := recipients(ctx, e)
		if err != nil {
			return nil, err
		}
		path := fmt.Sprintf(pathFormat, fx.campaignID)
		return func(int) call { return call{method: "GET", path: path, as: &fx.t} }, nil
	}
}

func prepareAddRecipient(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	id, err := e.newCampaign(ctx, t, "Add-recipient campaign", nil, 10)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "POST", path: "/api/campaigns/campaigns/" + id + "/add-recipient", body: recipientBody(t.orgID, i)}
	}, nil
}

// fromContacts returns a prepare that calls path (formatted from the
// contacts fixture) as the fixture's organization.
func fromContacts(method string, path func(contactsFixture) string, body func(contactsFixture) any) func(context.Context, *env, tenant, int) (func(int) call, error) {
	return func(ctx context.Context, e *env, _ tenant, _ int) (func(int) call, error) {
		fx, err := contacts(ctx, e)
		if err != nil {
			return nil, err
		}
		var b any
		if body != nil {
			b = body(fx)
		}
		p := path(fx)
		return func(int) call { return call{method: method, path: p, body: b, as: &fx.t} }, nil
	}
}

var (
	prepareListContacts = fromContacts("GET", func(contactsFixture) string { return "/api/campaigns/contacts" }, nil)
	prepareGetContact   = fromContacts("GET", func(fx contactsFixture) string { return "/api/campaigns/contacts/" + fx.contactIDs[0] }, nil)
	prepareGetList      = fromContacts("GET", func(fx contactsFixture) string { return "/api/campaigns/contact-lists/" + fx.listID }, nil)
	prepareGetAudience  = fromContacts("GET", func(fx contactsFixture) string { return "/api/campaigns/audience-lists/" + fx.audienceID }, nil)

	prepareAudienceContacts = fromContacts("GET", func(fx contactsFixture) string {
		return "/api/campaigns/audience-lists/" + fx.audienceID + "/contacts"
	}, nil)
	prepareEnrich = fromContacts("POST", func(contactsFixture) string { return "/api/campaigns/enrichment/enrich" },
		func(fx contactsFixture) any {
			p := person(fx.t.orgID, 7)
			return map[string]any{"firstname": p["firstName"], "lastname": p["lastName"], "company_name": p["companyName"], "linkedin_url": p["linkedinUrl"]}
		})
)

func prepareGetPersona(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	id, err := e.createPersona(ctx, t)
	return same("GET", "/api/campaigns/icp-personas/"+id, nil), err
}

func prepareGetEvent(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	id, err := e.createdID(ctx, t, "/api/campaigns/events", "id", eventBody(0))
	return same("GET", "/api/campaigns/events/"+id, nil), err
}

func prepareListContactLists(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	for i := range 20 {
		if _, err := e.createList(ctx, t, fmt.Sprintf("List %d", i)); err != nil {
			return nil, err
		}
	}
	return same("GET", "/api/campaigns/contact-lists", nil), nil
}

func prepareCreateList(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	return func(i int) call {
		return call{method: "POST", path: "/api/campaigns/contact-lists", body: map[string]any{"name": fmt.Sprintf("List %d", i), "description": "made by make bench"}}
	}, nil
}

// prepareBulkAdd imports 100 new contacts per call: the original interface's
// chunk.
func prepareBulkAdd(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	listID, err := e.createList(ctx, t, "Bulk add")
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		contacts := make([]map[string]any, 100)
		for k := range contacts {
			contacts[k] = person(t.orgID, i*100+k)
		}
		return call{method: "POST", path: "/api/campaigns/contact-lists/" + listID + "/contacts", body: map[string]any{"contacts": contacts}}
	}, nil
}

func prepareCreateCampaign(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	listID, err := e.createList(ctx, t, "Campaign list")
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		body, _ := campaignBody(fmt.Sprintf("Campaign %d", i), []string{listID}, 10)
		return call{method: "POST", path: "/api/campaigns", body: body}
	}, nil
}

// prepareGetCampaign reads pathFormat of one campaign.
func prepareGetCampaign(pathFormat string) func(context.Context, *env, tenant, int) (func(int) call, error) {
	return func(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
		id, err := e.newCampaign(ctx, t, "Read me", nil, 10)
		return same("GET", fmt.Sprintf(pathFormat, id), nil), err
	}
}

// prepareLaunch makes one campaign per call over a list of 10 contacts.
func prepareLaunch(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	listID, err := e.createList(ctx, t, "Launch list")
	if err != nil {
		return nil, err
	}
	if _, _, err := e.importContacts(ctx, t, listID, t.orgID, 0, 10, 1); err != nil {
		return nil, err
	}
	ids := make([]string, n)
	for i := range ids {
		if ids[i], err = e.newCampaign(ctx, t, fmt.Sprintf("Launch %d", i), []string{listID}, 10); err != nil {
			return nil, err
		}
	}
	return func(i int) call { return call{method: "POST", path: "/api/campaigns/" + ids[i] + "/launch"} }, nil
}

func prepareGetRecipient(ctx context.Context, e *env, _ tenant, _ int) (func(int) call, error) {
	fx, err := recipients(ctx, e)
	if err != nil {
		return nil, err
	}
	path := "/api/campaigns/campaigns/" + fx.campaignID + "/recipients/" + fx.recipientIDs[0]
	return func(int) call { return call{method: "GET", path: path, as: &fx.t} }, nil
}

func prepareWallet(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	return same("GET", "/api/campaigns/wallet", nil), nil
}

func prepareCreatePersona(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	return same("POST", "/api/campaigns/icp-personas", personaBody()), nil
}

func prepareCreateEvent(_ context.Context, _ *env, _ tenant, _ int) (func(int) call, error) {
	return func(i int) call { return call{method: "POST", path: "/api/campaigns/events", body: eventBody(i)} }, nil
}

// preparePatchContact changes one contact's notes, to a new text each call.
func preparePatchContact(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	listID, err := e.createList(ctx, t, "Patch")
	if err != nil {
		return nil, err
	}
	ids, _, err := e.importContacts(ctx, t, listID, t.orgID, 0, 1, 1)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/contacts/" + ids[0], body: map[string]any{"notes": fmt.Sprintf("Met at the summit, take %d", i)}}
	}, nil
}

// preparePatchCampaign changes one draft's description, to a new text each
// call.
func preparePatchCampaign(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	id, err := e.newCampaign(ctx, t, "Patch me", nil, 10)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/" + id, body: map[string]any{"description": fmt.Sprintf("Revision %d", i)}}
	}, nil
}
