package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// membersFixture seeds 3 imports of 14 engineers an hour apart (each
// import's contacts share their createdAt: ties broken by contactId), with
// names, companies and email domains that share word prefixes, edits
// every third contact later (its updatedAt moves), builds an audience of
// them all and returns the API, the store and the audience's id.
func membersFixture(t *testing.T, org string) (*testenv.API, *dynamo.Store, string, string) {
	t.Helper()
	ctx := context.Background()
	clock := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	orgID, key := testenv.Org(t, s, org, 0)
	api := testenv.NewAPI(t, s, key)
	l, err := s.CreateContactList(ctx, orgID, "u", "seed", "")
	if err != nil {
		t.Fatal(err)
	}
	first := []string{"Ann", "Anna", "Annette", "Bob", "Lee", "Zoë", "Ángel"}
	last := []string{"Lee", "Annable", "Smith", "O'Brien-Lee"}
	companies := []string{"Acme Corp", "Acme Labs", "Globex", "Annex Partners", ""}
	domains := []string{"acme.io", "globex.com", "mail.example.com"}
	var ids []string
	for batch := range 3 {
		var in []contact.Input
		for i := range 14 {
			n := batch*14 + i
			in = append(in, contact.Input{
				MailID:    fmt.Sprintf("%s.%s%d@%s", strings.ToLower(first[n%len(first)]), strings.ToLower(last[n%len(last)][:3]), n, domains[n%len(domains)]),
				FirstName: first[n%len(first)], LastName: last[n%len(last)], CompanyName: companies[n%len(companies)],
				JobTitle: "Software Engineer",
			})
		}
		res, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: contact.SourceImport, Provider: "test"})
		if err != nil || res.Created != len(in) {
			t.Fatalf("import %d: %v %+v", batch, err, res)
		}
		for _, it := range res.Items {
			ids = append(ids, it.ContactID)
		}
		clock.Advance(time.Hour)
	}
	for i := 0; i < len(ids); i += 3 {
		clock.Advance(time.Minute)
		if res := api.Do("PATCH", "/api/campaigns/contacts/"+ids[i], map[string]any{"notes": fmt.Sprintf("note %d", i)}); res.Status != http.StatusOK {
			t.Fatalf("edit contact: %d %s", res.Status, res.Body)
		}
	}
	icp := createPersona(t, api, map[string]any{"name": "Engineers", "job_titles": []string{"engineer"}})
	aud := buildAudience(t, api, map[string]any{"name": "Engineers", "icpId": icp})
	if aud.TotalMatch != int64(len(ids)) {
		t.Fatalf("audience of %d members, want %d", aud.TotalMatch, len(ids))
	}
	return api, s, orgID, aud.AudienceID
}

// TestAudienceMembersPagesAsWholeRead: every page of an audience's
// contacts in each order and direction, and of a set of searches, is the
// same answer, byte for byte, from the order and search entries as from
// the audience's whole index partition sorted in memory (the read an
// audience built before those entries still gets, made here by taking
// its mark away).
func TestAudienceMembersPagesAsWholeRead(t *testing.T) {
	t.Parallel()
	api, s, orgID, id := membersFixture(t, "members-pages")
	var queries []string
	for _, sortBy := range []string{"createdAt", "updatedAt", "contactId"} {
		for _, order := range []string{"desc", "asc"} {
			for page := 1; page <= 7; page++ {
				queries = append(queries, fmt.Sprintf("sortBy=%s&sortOrder=%s&page=%d&limit=7", sortBy, order, page))
			}
		}
	}
	for _, search := range []string{"ann", "Ann Lee", "an", "acme", "acme.io", "globex.com", "mail.example", "zo", "áng", "lee ann", "o'brien", "zzz"} {
		for _, sortBy := range []string{"createdAt", "updatedAt", "contactId"} {
			for page := 1; page <= 3; page++ {
				queries = append(queries, fmt.Sprintf("search=%s&sortBy=%s&page=%d&limit=5", url.QueryEscape(search), sortBy, page))
			}
		}
	}
	path := "/api/campaigns/audience-lists/" + id + "/contacts?"
	indexed := make([]string, len(queries))
	found := 0
	for i, q := range queries {
		res := api.Do("GET", path+q, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", q, res.Status, res.Body)
		}
		indexed[i] = string(res.Body)
		var body audienceContactsBody
		res.JSON(t, &body)
		found += len(body.Data.Items)
	}
	if found == 0 {
		t.Fatal("no page listed a member")
	}

	_, err := testenv.Client(t).UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName:        aws.String(s.Table()),
		Key:              map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "AUDIENCE#" + id}},
		UpdateExpression: aws.String("REMOVE memberIndex"),
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range queries {
		res := api.Do("GET", path+q, nil)
		if got := string(res.Body); got != indexed[i] {
			t.Errorf("%s:\nfrom the entries %s\nfrom the whole partition %s", q, indexed[i], got)
		}
	}
}

// TestAudienceMembersSearchByWordPrefix: a search finds the members with a
// word of their names, company or email beginning with each of its
// words, case- and punctuation-insensitively; a string inside a word
// finds nothing, and a job title is not searched.
func TestAudienceMembersSearchByWordPrefix(t *testing.T) {
	t.Parallel()
	api, _, _, id := membersFixture(t, "members-search")
	found := func(search string) []audienceMember {
		t.Helper()
		var body audienceContactsBody
		res := api.Do("GET", "/api/campaigns/audience-lists/"+id+"/contacts?limit=100&search="+url.QueryEscape(search), nil)
		res.JSON(t, &body)
		if res.Status != http.StatusOK || body.Data.Pagination["total"] != len(body.Data.Items) {
			t.Fatalf("search %q: %d %s", search, res.Status, res.Body)
		}
		return body.Data.Items
	}
	all := found("")
	for _, tt := range []struct {
		search string
		want   func(m audienceMember) bool
		some   bool
	}{
		{"ANNE", func(m audienceMember) bool { return m.FirstName == "Annette" || m.CompanyName == "Annex Partners" }, true},
		// Its words: "globex" (the domain's, or the company's) and "com".
		{"globex.com", func(m audienceMember) bool {
			return strings.HasSuffix(m.MailID, "@globex.com") || m.CompanyName == "Globex" && strings.HasSuffix(m.MailID, ".com")
		}, true},
		{"annex", func(m audienceMember) bool { return m.CompanyName == "Annex Partners" }, true},
		{"o'brien lee", func(m audienceMember) bool { return m.LastName == "O'Brien-Lee" }, true},
		{"ángel", func(m audienceMember) bool { return m.FirstName == "Ángel" }, true},
		// Inside a word: nothing (it was a substring match before).
		{"nn", func(audienceMember) bool { return false }, false},
		// Every member is an engineer: the job title is not searched.
		{"engineer", func(audienceMember) bool { return false }, false},
	} {
		got := found(tt.search)
		for _, m := range got {
			if !tt.want(m) {
				t.Errorf("search %q found %s (%s %s, %q)", tt.search, m.MailID, m.FirstName, m.LastName, m.CompanyName)
			}
		}
		want := 0
		for _, m := range all {
			if tt.want(m) {
				want++
			}
		}
		if len(got) != want || tt.some && want == 0 {
			t.Errorf("search %q found %d members, want %d", tt.search, len(got), want)
		}
	}
}
