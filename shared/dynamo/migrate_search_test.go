package dynamo_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// writtenBeforeSearch makes org's contacts as the code before search
// entries left them: no sx, the old search text (contact.SearchText and
// the LinkedIn URL's path) and no TOK#/LI# entries. It returns the sort
// keys of the contact items it changed, in key order.
func writtenBeforeSearch(t *testing.T, s *dynamo.Store, org string) []string {
	t.Helper()
	ctx, db, table := context.Background(), testenv.Client(t), s.Table()
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	changed := eachIndexedContact(t, s, org, func(it map[string]types.AttributeValue, c contact.Contact, sx, sk string) {
		oldSrch := c.SearchText()
		if li := contact.LinkedinKey(c.LinkedinURL); li != "" {
			oldSrch += " " + strings.TrimPrefix(li, "linkedin.com")
		}
		for _, key := range namedEntries(org, c, sx, sk) {
			if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: key}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table,
			Key:                       map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]},
			UpdateExpression:          aws.String("REMOVE sx SET srch = :s"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":s": str(oldSrch)}}); err != nil {
			t.Fatal(err)
		}
	})
	// An organization of that code has no record of a done
	// contacts-search step, which organizations get now.
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table,
		Key: map[string]types.AttributeValue{"PK": str("ORG#" + org), "SK": str("MIGRATE#contacts-search")}}); err != nil {
		t.Fatal(err)
	}
	return changed
}

// eachIndexedContact calls f with each of org's contact items that names
// its search entries (sx), the contact, its sx and the entries' sort key
// (<LSK>#<id>), and returns those items' sort keys, in key order: the walk
// both tests of earlier entry forms rewrite contacts from.
func eachIndexedContact(t *testing.T, s *dynamo.Store, org string, f func(it map[string]types.AttributeValue, c contact.Contact, sx, sk string)) []string {
	t.Helper()
	ctx, db, table := context.Background(), testenv.Client(t), s.Table()
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	var keys []string
	p := dynamodb.NewQueryPaginator(db, &dynamodb.QueryInput{TableName: &table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :c)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("ORG#" + org), ":c": str("CONTACT#")}})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			sx, ok := it["sx"].(*types.AttributeValueMemberS)
			if !ok {
				continue
			}
			id := strings.TrimPrefix(it["SK"].(*types.AttributeValueMemberS).Value, "CONTACT#")
			keys = append(keys, "CONTACT#"+id)
			c, err := s.Contact(ctx, org, id)
			if err != nil {
				t.Fatal(err)
			}
			f(it, c, sx.Value, it["LSK"].(*types.AttributeValueMemberS).Value+"#"+id)
		}
	}
	return keys
}

// TestMigrateSearchEntries: contacts written before the search entries
// are found by no token search; the contacts-search step writes their
// entries (and the legacy contacts' of the model before slots, once
// contacts-slots moved them), after which searches and enrichments answer
// as for contacts written now. It resumes from its cursor, a second run
// changes nothing, and a run from the start puts back a missing entry.
func TestMigrateSearchEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	list := leadsList(t, s, org)
	inputs := make([]contact.Input, 120)
	for k := range inputs {
		inputs[k] = benchPerson(k)
	}
	app := contact.NewApp(s, nil)
	if res, err := app.AddToList(ctx, org, list.ListID, inputs, importSource); err != nil || res.Created != len(inputs) {
		t.Fatalf("import: %+v, %v", res, err)
	}
	writtenBeforeSearch(t, s, org)
	old := &legacyTable{t: t, s: s, org: org}
	old.beforeSlots()
	legacy := old.add(7, list.ListID)

	search := func(q string) ([]string, int) {
		t.Helper()
		page, total, err := app.Contacts(ctx, org, q, gifting.PageRequest{Page: 1, Limit: 200})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, len(page))
		for i, c := range page {
			ids[i] = c.ContactID
		}
		return ids, total
	}
	// Before the step the organization's searches read the whole index,
	// as before the entries: no contact is missing meanwhile.
	before, beforeTotal := search("first11")
	if beforeTotal == 0 {
		t.Fatal("before the step, a search found none of the contacts written before the entries")
	}
	if _, total := search("irst11"); total != beforeTotal {
		t.Errorf("before the step, a search inside a word found %d contacts, want %d (a substring, as before the entries)", total, beforeTotal)
	}
	// The search step first: the legacy contact's entries are at its
	// legacy place; then contacts-slots moves them with it.
	res, err := s.Migrate(ctx, org, []string{"contacts-search"})
	if err != nil || res[0].Changed != len(inputs)+1 {
		t.Fatalf("migrate: %+v, %v; want contacts-search to change %d contacts", res, err, len(inputs)+1)
	}
	if res, err = s.Migrate(ctx, org, nil); err != nil || len(res) < 2 || res[0].Changed != 1 || res[1].Step != "contacts-search" || res[1].Changed != 0 {
		t.Fatalf("migrate: %+v, %v; want contacts-slots to move the legacy contact, contacts-search done", res, err)
	}
	// Every contact, in the contacts page's order: the answers to compare
	// with.
	all, _, err := app.Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 200})
	if err != nil || len(all) != len(inputs)+1 {
		t.Fatalf("%d contacts, %v", len(all), err)
	}
	for _, q := range []string{"first11", "first11 person", "company 4", "legacy7", "old corp", "person11.run1@ex", "example.com", "fi"} {
		var want []string
		terms := contact.SearchTerms(q)
		for _, c := range all {
			if contact.Matches(c.SearchWords(), terms) {
				want = append(want, c.ContactID)
			}
		}
		if got, total := search(q); !slices.Equal(got, want) || total != len(want) || len(want) == 0 {
			t.Errorf("search %q after the step: %v (total %d), want %v", q, got, total, want)
		}
	}
	for _, q := range []contact.Query{{LinkedinURL: "https://linkedin.com/in/person-42-run1/"}, {FirstName: "legacy7", LastName: "PERSON", CompanyName: "old corp"}} {
		e, err := app.Enrich(ctx, org, q)
		if err != nil || !e.Matched {
			t.Errorf("enrich %+v after the step: %+v, %v", q, e, err)
		}
		if q.FirstName != "" && e.Person != nil && e.Person.ContactID != legacy.ContactID {
			t.Errorf("enrich by name found %s, want the legacy contact %s", e.Person.ContactID, legacy.ContactID)
		}
	}

	if res, err := s.Migrate(ctx, org, []string{"contacts-search"}); err != nil || res[0].Changed != 0 {
		t.Fatalf("second run: %+v, %v; want nothing changed", res, err)
	}
	// Stopped after the 60th contact, the step resumes there: only the
	// rest change; from the start again, the first 60.
	stripped := writtenBeforeSearch(t, s, org)
	table := s.Table()
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	setCursor := func(after string) {
		t.Helper()
		if _, err := testenv.Client(t).PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
			"PK": str("ORG#" + org), "SK": str("MIGRATE#contacts-search"), "after": str(after),
			"form": &types.AttributeValueMemberN{Value: "2"}}}); err != nil {
			t.Fatal(err)
		}
	}
	step := func(want int) {
		t.Helper()
		res, err := s.Migrate(ctx, org, []string{"contacts-search"})
		if err != nil || res[0].Changed != want {
			t.Fatalf("run: %+v, %v; want %d changed", res, err, want)
		}
	}
	setCursor(stripped[59])
	step(len(stripped) - 60)
	setCursor("")
	step(60)
	// A lost entry (a write that stopped between a new contact and its
	// entries) is put back by a run from the start, and only it.
	ids, total := search("first11")
	if total == 0 || len(ids) != total {
		t.Fatalf("after the runs, first11 finds %v (total %d)", ids, total)
	}
	if !slices.Equal(ids, before) {
		t.Errorf("first11 finds %v through the entries, %v before the step", ids, before)
	}
	c, err := s.Contact(ctx, org, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.Client(t).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": str("ORG#" + org + "#TOK#fir"), "SK": str(strings.ToLower(c.FirstName) + " " + c.Stored.Place + "#" + c.ContactID)}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := search("first11"); slices.Contains(got, c.ContactID) {
		t.Fatal("the entry was not deleted")
	}
	setCursor("")
	step(1)
	if got, _ := search("first11"); !slices.Equal(got, ids) {
		t.Errorf("after the repair: %v, want %v", got, ids)
	}
}

// namedEntries are the keys of the search entries sx names for contact c
// at entry sort key sk: "#W" its word entries (one per entry word of its
// words), any other name a partition suffix at sk.
func namedEntries(org string, c contact.Contact, sx, sk string) []map[string]types.AttributeValue {
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	var keys []map[string]types.AttributeValue
	for _, name := range strings.Split(sx, "\n")[1:] {
		if name != "#W" {
			keys = append(keys, map[string]types.AttributeValue{"PK": str("ORG#" + org + name), "SK": str(sk)})
			continue
		}
		for _, w := range contact.EntryWords(c.SearchWords()) {
			keys = append(keys, map[string]types.AttributeValue{"PK": str("ORG#" + org + "#TOK#" + contact.Token(w)), "SK": str(w + " " + sk)})
		}
	}
	return keys
}
