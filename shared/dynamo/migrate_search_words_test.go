package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// writtenAsTokens makes org's contacts' search entries as the code before
// word entries wrote them: one token entry per token of the contact's
// words (contact.Tokens) at SK <LSK>#<id>, the LinkedIn entry, and sx
// naming them; the contacts-search step done without a form. It returns
// the contact items' sort keys, in key order.
func writtenAsTokens(t *testing.T, s *dynamo.Store, org string) []string {
	t.Helper()
	ctx, db, table := context.Background(), testenv.Client(t), s.Table()
	str := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	keys := eachIndexedContact(t, s, org, func(it map[string]types.AttributeValue, c contact.Contact, sx, sk string) {
		var writes []types.WriteRequest
		for _, key := range namedEntries(org, c, sx, sk) {
			if strings.Contains(key["SK"].(*types.AttributeValueMemberS).Value, " ") { // a word entry; the LinkedIn entry stays
				writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key}})
			}
		}
		words := c.SearchWords()
		names := []string{"old-digest"}
		for _, tok := range contact.Tokens(words) {
			e := map[string]types.AttributeValue{"PK": str("ORG#" + org + "#TOK#" + tok), "SK": str(sk), "w": str(contact.WordsText(words))}
			if len(c.ListIDs) > 0 {
				e["l"] = str(" " + strings.Join(c.ListIDs, " ") + " ")
			}
			writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: e}})
			names = append(names, "#TOK#"+tok)
		}
		if li := contact.LinkedinKey(c.LinkedinURL); li != "" {
			names = append(names, "#LI#"+li)
		}
		for len(writes) > 0 {
			n := min(25, len(writes))
			if _, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: writes[:n]}}); err != nil {
				t.Fatal(err)
			}
			writes = writes[n:]
		}
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table,
			Key:                       map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]},
			UpdateExpression:          aws.String("SET sx = :sx"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":sx": str(strings.Join(names, "\n"))}}); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
		"PK": str("ORG#" + org), "SK": str("MIGRATE#contacts-search"), "after": str(""), "done": &types.AttributeValueMemberBOOL{Value: true}}}); err != nil {
		t.Fatal(err)
	}
	return keys
}

// tokenEntries counts org's search entries of the token form (a sort key
// without a word) in the token partitions of prefixes.
func tokenEntries(t *testing.T, s *dynamo.Store, org string, prefixes ...string) int {
	t.Helper()
	n := 0
	for _, tok := range prefixes {
		out, err := testenv.Client(t).Query(context.Background(), &dynamodb.QueryInput{TableName: aws.String(s.Table()),
			KeyConditionExpression:    aws.String("PK = :pk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "ORG#" + org + "#TOK#" + tok}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			if !strings.Contains(it["SK"].(*types.AttributeValueMemberS).Value, " ") {
				n++
			}
		}
	}
	return n
}

// TestMigrateSearchToWordEntries: contacts whose search entries are of
// the token form (a table filled by the code before word entries) are
// searched correctly before the step (the whole index, as before the
// entries); the step rewrites every contact's entries as word entries
// (stopped half-way, it resumes from its cursor; a second run changes
// nothing), after which searches, list searches and enrichments answer in
// the contacts page's order, each contact once, and a whole email reads
// its own entry only.
func TestMigrateSearchToWordEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	org, _ := testenv.Org(t, s, "tokens", 0)
	lists := []gifting.ContactList{leadsList(t, s, org), leadsList(t, s, org)}
	app := contact.NewApp(s, nil)
	for k, l := range lists {
		in := make([]contact.Input, 0, 80)
		for i := k * 80; i < (k+1)*80; i++ {
			in = append(in, benchPerson(i))
		}
		// Two words of one contact that both start "ann".
		in = append(in, contact.Input{MailID: fmt.Sprintf("annie%d@example.com", k), FirstName: "Annie", LastName: "Annabel"})
		if res, err := app.AddToList(ctx, org, l.ListID, in, importSource); err != nil || res.Created != len(in) {
			t.Fatalf("import: %+v, %v", res, err)
		}
	}
	all, _, err := app.Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 500})
	if err != nil || len(all) != 162 {
		t.Fatalf("%d contacts, %v", len(all), err)
	}
	search := func(q, listID string, p gifting.PageRequest) ([]string, int) {
		t.Helper()
		var page []contact.Contact
		var total int
		var err error
		if listID == "" {
			page, total, err = app.Contacts(ctx, org, q, p)
		} else {
			page, total, err = app.Members(ctx, org, listID, q, p)
		}
		if err != nil {
			t.Fatal(err)
		}
		return contactIDs(page), total
	}
	check := func(when string) {
		t.Helper()
		for _, q := range []string{"first11", "first1 person", "company 4", "ann", "annab", "person42.run1@example.com", "example.com", "pers"} {
			for _, l := range []string{"", lists[1].ListID} {
				var want []string
				for _, c := range all {
					if contact.Matches(c.SearchWords(), contact.SearchTerms(q)) && (l == "" || slices.Contains(c.ListIDs, l)) {
						want = append(want, c.ContactID)
					}
				}
				p := gifting.PageRequest{Page: 2, Limit: 7}
				lo, hi := p.Window(len(want))
				if got, total := search(q, l, p); !slices.Equal(got, want[lo:hi]) || total != len(want) {
					t.Errorf("%s: search %q (list %q) page 2 of 7: %v (total %d), want %v (total %d)", when, q, l, got, total, want[lo:hi], len(want))
				}
			}
		}
		e, err := app.Enrich(ctx, org, contact.Query{FirstName: "First42", LastName: "person", CompanyName: "company 42"})
		if err != nil || !e.Matched || e.Person == nil || e.Person.Email != "person42.run1@example.com" {
			t.Errorf("%s: enrich by name: %+v, %v", when, e, err)
		}
	}
	keys := writtenAsTokens(t, s, org)
	if n := tokenEntries(t, s, org, "per", "ann"); n != 162 {
		t.Fatalf("%d token entries of per and ann; want 162 (the table as the old code filled it)", n)
	}
	if got, total := search("first11", "", gifting.PageRequest{Page: 1, Limit: 100}); total != 11 || len(got) != 11 {
		t.Errorf("before the step: first11 finds %d (total %d), want 11", len(got), total)
	}
	// Stopped after the 60th contact: the run resumes there, then a run
	// from the start rewrites the first 60, then nothing is left.
	if _, err := testenv.Client(t).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table()), Item: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ORG#" + org}, "SK": &types.AttributeValueMemberS{Value: "MIGRATE#contacts-search"},
		"after": &types.AttributeValueMemberS{Value: keys[59]}, "form": &types.AttributeValueMemberN{Value: "2"}}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{len(keys) - 60, 0} {
		if res, err := s.Migrate(ctx, org, []string{"contacts-search"}); err != nil || res[0].Changed != want {
			t.Fatalf("migrate: %+v, %v; want %d changed", res, err, want)
		}
		if want == 0 {
			break
		}
		if _, err := testenv.Client(t).PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.Table()), Item: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + org}, "SK": &types.AttributeValueMemberS{Value: "MIGRATE#contacts-search"},
			"after": &types.AttributeValueMemberS{Value: ""}, "form": &types.AttributeValueMemberN{Value: "2"}}}); err != nil {
			t.Fatal(err)
		}
		if res, err := s.Migrate(ctx, org, []string{"contacts-search"}); err != nil || res[0].Changed != 60 {
			t.Fatalf("migrate from the start: %+v, %v; want the first 60 changed", res, err)
		}
	}
	if n := tokenEntries(t, s, org, "per", "ann", "fir", "com", "exa"); n != 0 {
		t.Errorf("%d token entries left after the step", n)
	}
	check("after the step")

	u := &meter.Usage{Record: true}
	if _, total, err := app.Contacts(meter.WithUsage(ctx, u), org, "person42.run1@example.com", gifting.PageRequest{Page: 1, Limit: 100}); err != nil || total != 1 {
		t.Fatalf("the whole email: total %d, %v", total, err)
	}
	for _, c := range u.Calls() {
		if c.Op == "Query" && c.ReadUnits > 0.5 {
			t.Errorf("the whole email's Query read %.1f units; want its own entry's (0.5), not the per… token's 160 entries", c.ReadUnits)
		}
	}
}
