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
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// The audience tests' shapes of the API's answers, and their fixtures.

// audienceEnvelope is the enveloped audience of create and get.
type audienceEnvelope struct {
	Success    bool          `json:"success"`
	StatusCode int           `json:"statusCode"`
	Data       wire.Audience `json:"data"`
}

// icpPersona is a persona as the API answers it.
type icpPersona struct {
	ICPID          string `json:"icpId"`
	OrganizationID string `json:"organizationId"`
	CreatedBy      string `json:"createdBy"`
	Persona        struct {
		Name             string              `json:"name"`
		Description      string              `json:"description"`
		JobTitles        []string            `json:"job_titles"`
		Departments      []string            `json:"departments"`
		SeniorityLevels  []string            `json:"seniority_levels"`
		ContactLocations []map[string]string `json:"contact_locations"`
	} `json:"persona"`
	Company   map[string]any `json:"company"`
	Status    string         `json:"status"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
	Metadata  struct {
		Tags     []string `json:"tags"`
		Priority string   `json:"priority"`
	} `json:"metadata"`
}

// audienceMember is a member as the audience contacts endpoint lists it.
type audienceMember struct {
	AudienceID  string    `json:"audienceId"`
	ContactID   string    `json:"contactId"`
	MailID      string    `json:"mailId"`
	FirstName   string    `json:"firstName"`
	LastName    string    `json:"lastName"`
	FullName    string    `json:"fullName"`
	JobTitle    string    `json:"jobTitle"`
	CompanyName string    `json:"companyName"`
	City        string    `json:"city"`
	State       string    `json:"state"`
	Country     string    `json:"country"`
	Seniority   string    `json:"seniority"`
	Departments []string  `json:"departments"`
	MatchedOn   matchedOn `json:"matchedOn"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	MatchedAt   time.Time `json:"matchedAt"`
}

// matchedOn says which of the persona's values a member matched.
type matchedOn struct {
	JobTitle   string `json:"jobTitle,omitempty"`
	Department string `json:"department,omitempty"`
	Seniority  string `json:"seniority,omitempty"`
	Location   string `json:"location,omitempty"`
}

// audienceContactsBody is the body of GET /audience-lists/{id}/contacts.
type audienceContactsBody struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Data    struct {
		Audience   wire.Audience    `json:"audience"`
		Items      []audienceMember `json:"items"`
		Pagination map[string]int   `json:"pagination"`
	} `json:"data"`
}

// person is a contact to seed: email, job title, country, state.
type person struct{ email, title, country, state string }

// seedContacts creates the people as contacts of org and returns their ids
// by email.
func seedContacts(t *testing.T, s *dynamo.Store, orgID string, people []person) map[string]string {
	t.Helper()
	ctx := context.Background()
	l, err := s.CreateContactList(ctx, orgID, "user-"+orgID, "seed", "")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for start := 0; start < len(people); start += 100 {
		var in []contact.Input
		for i, p := range people[start:min(start+100, len(people))] {
			in = append(in, contact.Input{MailID: p.email, FirstName: fmt.Sprintf("Name%02d", start+i), LastName: "Test",
				JobTitle: p.title, Address: contact.Address{City: "Town", Country: p.country, State: p.state}})
		}
		res, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: contact.SourceImport, Provider: "test"})
		if err != nil || res.Created != len(in) {
			t.Fatalf("seed contacts: %v, %+v", err, res)
		}
		for _, it := range res.Items {
			ids[it.MailID] = it.ContactID
		}
	}
	return ids
}

// createPersona posts persona (the `persona` object) and returns its id.
func createPersona(t *testing.T, api *testenv.API, persona map[string]any) string {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/icp-personas", map[string]any{"persona": persona})
	var body struct {
		ICPPersona icpPersona `json:"icpPersona"`
	}
	res.JSON(t, &body)
	if res.Status != http.StatusCreated || body.ICPPersona.ICPID == "" {
		t.Fatalf("create persona: %d %s", res.Status, res.Body)
	}
	return body.ICPPersona.ICPID
}

// buildAudience creates an audience list from body, waits for its build
// and returns it as GET shows it.
func buildAudience(t *testing.T, api *testenv.API, body map[string]any) wire.Audience {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/audience-lists", body)
	var env audienceEnvelope
	res.JSON(t, &env)
	if res.Status != http.StatusCreated || env.Data.Status != string(audience.Building) || env.Data.TotalMatch != 0 {
		t.Fatalf("create audience: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()
	return getAudience(t, api, env.Data.AudienceID)
}

func getAudience(t *testing.T, api *testenv.API, id string) wire.Audience {
	t.Helper()
	res := api.Do("GET", "/api/campaigns/audience-lists/"+id, nil)
	var env audienceEnvelope
	res.JSON(t, &env)
	if res.Status != http.StatusOK {
		t.Fatalf("get audience: %d %s", res.Status, res.Body)
	}
	return env.Data
}

// audienceEmails returns the emails of every member of an audience.
func audienceEmails(t *testing.T, api *testenv.API, id string) []string {
	t.Helper()
	var body audienceContactsBody
	res := api.Do("GET", "/api/campaigns/audience-lists/"+id+"/contacts?limit=100", nil)
	res.JSON(t, &body)
	if res.Status != http.StatusOK {
		t.Fatalf("audience contacts: %d %s", res.Status, res.Body)
	}
	var out []string
	for _, m := range body.Data.Items {
		out = append(out, m.MailID)
	}
	slices.Sort(out)
	return out
}
