package httpapi_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
)

// TestEnrichFindsAContactBehindManyLookalikes: enrichment answers "the
// newest contact by LinkedIn URL, else by first name, last name and company"
// (docs/resources.md, Enrichment). A contact that exists must be found even when more
// than a hundred newer contacts merely contain the query's text (Alan Ngo
// contains Al Ng; the handle /in/raj-k-1 contains /in/raj-k): before, only
// the first hundred such lookalikes were read and the answer was "no match".
func TestEnrichFindsAContactBehindManyLookalikes(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	importContacts(t, api, createList(t, api, "Old"),
		map[string]any{"mailId": "al@acme.com", "firstName": "Al", "lastName": "Ng", "companyName": "Acme"},
		map[string]any{"mailId": "raj@acme.com", "firstName": "Raj", "lastName": "K", "companyName": "Acme",
			"linkedinUrl": "https://www.linkedin.com/in/raj-k"},
	)
	newer := createList(t, api, "New")
	var lookalikes []map[string]any
	for i := range 110 {
		lookalikes = append(lookalikes, map[string]any{"mailId": fmt.Sprintf("alan%d@acme.com", i), "firstName": "Alan",
			"lastName": fmt.Sprintf("Ngo%d", i), "companyName": "Acme", "linkedinUrl": fmt.Sprintf("https://linkedin.com/in/raj-k-%d", i)})
	}
	importContacts(t, api, newer, lookalikes[:100]...)
	importContacts(t, api, newer, lookalikes[100:]...)

	for _, tt := range []struct {
		name, wantMail, wantBy string
		body                   map[string]any
	}{
		{"by name and company", "al@acme.com", contact.MatchedByNameCompany, map[string]any{"firstname": "Al", "lastname": "Ng", "company_name": "Acme"}},
		{"by linkedin url", "raj@acme.com", contact.MatchedByLinkedin, map[string]any{"linkedin_url": "https://linkedin.com/in/raj-k/"}},
		{"linkedin beats a name", "raj@acme.com", contact.MatchedByLinkedin,
			map[string]any{"linkedin_url": "https://linkedin.com/in/raj-k", "firstname": "Al", "lastname": "Ng", "company_name": "Acme"}},
		{"a lookalike is found by its own url", "alan7@acme.com", contact.MatchedByLinkedin, map[string]any{"linkedin_url": "https://linkedin.com/in/raj-k-7"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/enrichment/enrich", tt.body)
			var a struct {
				Data enrichmentBody `json:"data"`
			}
			res.JSON(t, &a)
			if res.Status != http.StatusOK || !a.Data.Matched || a.Data.Person == nil ||
				a.Data.Person.Email != tt.wantMail || a.Data.MatchedBy != tt.wantBy {
				t.Errorf("status %d, answer %+v (person %+v); want %s matched by %s", res.Status, a.Data, a.Data.Person, tt.wantMail, tt.wantBy)
			}
		})
	}
}
