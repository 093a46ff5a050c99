package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// legacyTable writes items exactly as the model before slots did
// (contacts.go, contactlists.go and counters.go at commit 2ac8e85): the
// contact item under its ULID with LSK=CONTACT#<id> and every entry
// stored, an EMAIL#<email> marker naming it, a MEMBER#<list>#<id> item per
// list, the lists' contactCount and the contacts counter.
type legacyTable struct {
	t   *testing.T
	s   *dynamo.Store
	org string
}

func (l *legacyTable) put(it map[string]types.AttributeValue) {
	l.t.Helper()
	table := l.s.Table()
	if _, err := testenv.Client(l.t).PutItem(context.Background(), &dynamodb.PutItemInput{TableName: &table, Item: it}); err != nil {
		l.t.Fatal(err)
	}
}

func (l *legacyTable) add(k int, lists ...string) gifting.Contact {
	l.t.Helper()
	in := contact.Input{MailID: fmt.Sprintf("legacy%d@example.com", k), FirstName: fmt.Sprintf("Legacy%d", k), LastName: "Person",
		CompanyName: "Old Corp", Address: contact.Address{Line1: "1 Old Road", City: "Springfield", Country: "US"}}
	if err := in.Validate(); err != nil {
		l.t.Fatal(err)
	}
	cc := contact.New(l.s.NewID(), l.org, contact.Stored{}, in, importSource, time.Now().UTC().Truncate(time.Millisecond))
	cc.ListIDs = lists
	c := dynamo.BridgeOf(cc)
	it, err := attributevalue.MarshalMapWithOptions(c, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		l.t.Fatal(err)
	}
	pk := "ORG#" + l.org
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	it["PK"], it["SK"] = s(pk), s("CONTACT#"+c.ContactID)
	it["LPK"], it["LSK"] = s(pk+"#CONTACT"), s("CONTACT#"+c.ContactID)
	it["srch"] = s(cc.SearchText())
	it["ver"] = &types.AttributeValueMemberN{Value: "1"}
	l.put(it)
	l.put(map[string]types.AttributeValue{"PK": s(pk), "SK": s("EMAIL#" + c.MailID), "contactId": s(c.ContactID)})
	for _, list := range lists {
		l.put(map[string]types.AttributeValue{"PK": s(pk), "SK": s("MEMBER#" + list + "#" + c.ContactID)})
		l.addTo("LIST#"+list, "contactCount", 1)
	}
	l.addTo("COUNT#CONTACT", "n", 1)
	return c
}

// beforeSlots makes the organization one the code before slots created:
// without the record of a done contacts step that organizations get now.
func (l *legacyTable) beforeSlots() {
	l.t.Helper()
	table := l.s.Table()
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	if _, err := testenv.Client(l.t).DeleteItem(context.Background(), &dynamodb.DeleteItemInput{TableName: &table,
		Key: map[string]types.AttributeValue{"PK": s("ORG#" + l.org), "SK": s("MIGRATE#contacts-slots")}}); err != nil {
		l.t.Fatal(err)
	}
}

// addTo adds d to attribute attr of item sk of the organization.
func (l *legacyTable) addTo(sk, attr string, d int) {
	l.t.Helper()
	table := l.s.Table()
	_, err := testenv.Client(l.t).UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: &table,
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + l.org}, "SK": &types.AttributeValueMemberS{Value: sk},
		},
		UpdateExpression:          aws.String("ADD #a :d"),
		ExpressionAttributeNames:  map[string]string{"#a": attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": &types.AttributeValueMemberN{Value: fmt.Sprint(d)}},
	})
	if err != nil {
		l.t.Fatal(err)
	}
}

// partition returns the sort keys of every item of the organization's
// partition.
func partition(t *testing.T, s *dynamo.Store, org string) []string {
	t.Helper()
	table := s.Table()
	p := dynamodb.NewQueryPaginator(testenv.Client(t), &dynamodb.QueryInput{
		TableName:                 &table,
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": &types.AttributeValueMemberS{Value: "ORG#" + org}},
		ConsistentRead:            aws.Bool(true),
	})
	var sks []string
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			sks = append(sks, it["SK"].(*types.AttributeValueMemberS).Value)
		}
	}
	return sks
}

func TestMigrateLegacyContacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	l1, err := s.CreateContactList(ctx, org, "u", "One", "")
	if err != nil {
		t.Fatal(err)
	}
	l2, err := s.CreateContactList(ctx, org, "u", "Two", "")
	if err != nil {
		t.Fatal(err)
	}
	old := &legacyTable{t: t, s: s, org: org}
	old.beforeSlots()
	const n = 30
	var legacy []gifting.Contact
	var in1, in2 []string
	for k := range n {
		var lists []string
		switch k % 3 {
		case 0:
			lists = []string{l1.ListID}
		case 1:
			lists = []string{l1.ListID, l2.ListID}
		}
		c := old.add(k, lists...)
		legacy = append(legacy, c)
		if len(lists) > 0 {
			in1 = append(in1, c.ContactID)
		}
		if len(lists) > 1 {
			in2 = append(in2, c.ContactID)
		}
	}
	// An import that stopped between its writes and its counter update
	// left the contacts counter short.
	old.addTo("COUNT#CONTACT", "n", -3)

	t.Run("before the migration, an import of a stored email merges", func(t *testing.T) {
		res, err := contact.NewApp(s, nil).AddToList(ctx, org, l2.ListID, []contact.Input{{MailID: legacy[0].MailID, JobTitle: "CTO"}}, importSource)
		if err != nil || res.Items[0].Status != contact.StatusMerged || res.Items[0].ContactID != legacy[0].ContactID {
			t.Fatalf("import: %+v, %v; want merged into %s", res, err, legacy[0].ContactID)
		}
		in2 = append(in2, legacy[0].ContactID)
	})

	res, err := s.Migrate(ctx, org, []string{"contacts-slots"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Changed != n || len(res[0].Problems) != 0 || len(res[0].Fixed) != 1 {
		t.Fatalf("migration: %+v; want %d contacts changed and the contacts counter fixed", res, n)
	}

	t.Run("pages and totals", func(t *testing.T) {
		page, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 100})
		if err != nil || total != n || len(page) != n {
			t.Fatalf("contacts: %d of %d, %v; want %d", len(page), total, err, n)
		}
		for _, tc := range []struct {
			list gifting.ContactList
			want []string
		}{{l1, in1}, {l2, in2}} {
			ids, err := contact.NewApp(s, nil).MemberIDs(ctx, org, tc.list.ListID)
			slices.Sort(ids)
			want := slices.Sorted(slices.Values(tc.want))
			if err != nil || !slices.Equal(ids, want) {
				t.Errorf("list %s: %d members, %v; want %d", tc.list.Name, len(ids), err, len(want))
			}
			members, total, err := contact.NewApp(s, nil).Members(ctx, org, tc.list.ListID, "", gifting.PageRequest{Page: 1, Limit: 100})
			if err != nil || total != len(want) || len(members) != len(want) {
				t.Errorf("list %s page: %d of %d, %v; want %d", tc.list.Name, len(members), total, err, len(want))
			}
		}
		got, err := contact.NewApp(s, nil).Contact(ctx, org, legacy[4].ContactID)
		if err != nil || got.MailID != legacy[4].MailID || len(got.Emails) != 1 || len(got.Addresses) != 1 || !slices.Equal(got.ListIDs, []string{l1.ListID, l2.ListID}) {
			t.Errorf("migrated contact %+v, %v", got, err)
		}
	})
	t.Run("search", func(t *testing.T) {
		found, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "legacy17", gifting.PageRequest{Page: 1, Limit: 10})
		if err != nil || total != 1 || found[0].ContactID != legacy[17].ContactID {
			t.Errorf("search: %d found, %v", total, err)
		}
	})
	t.Run("no marker, no first-list membership item is left", func(t *testing.T) {
		for _, sk := range partition(t, s, org) {
			if slices.Contains([]string{"EMAIL#"}, sk[:min(len(sk), 6)]) {
				t.Errorf("legacy marker %s left", sk)
			}
		}
		for _, c := range legacy {
			if len(c.ListIDs) > 0 && slices.Contains(partition(t, s, org), "MEMBER#"+c.ListIDs[0]+"#"+c.ContactID) {
				t.Errorf("contact %s keeps the MEMBER# item of its first list", c.ContactID)
			}
		}
	})
	t.Run("a second run changes nothing", func(t *testing.T) {
		before := partition(t, s, org)
		again, err := s.Migrate(ctx, org, []string{"contacts-slots"})
		if err != nil || len(again) != 1 || again[0].Changed != 0 || len(again[0].Fixed) != 0 {
			t.Errorf("second run: %+v, %v; want nothing changed", again, err)
		}
		if after := partition(t, s, org); !slices.Equal(before, after) {
			t.Errorf("the second run changed the items: %d before, %d after", len(before), len(after))
		}
	})
	t.Run("emails stay unique", func(t *testing.T) {
		res, err := contact.NewApp(s, nil).AddToList(ctx, org, l1.ListID, []contact.Input{
			{MailID: legacy[5].MailID}, {MailID: "fresh@example.com"},
		}, importSource)
		if err != nil || res.Items[0].Status != contact.StatusAdded && res.Items[0].Status != contact.StatusMerged ||
			res.Items[0].ContactID != legacy[5].ContactID || res.Items[1].Status != contact.StatusCreated {
			t.Errorf("import after migration: %+v, %v; want a merge into %s and a create", res, err, legacy[5].ContactID)
		}
		other := legacy[7].MailID
		if _, err := contact.NewApp(s, nil).UpdateContact(ctx, org, legacy[8].ContactID, contact.Patch{MailID: &other}); gifting.ErrorCode(err) != gifting.CodeConflict {
			t.Errorf("taking a migrated contact's email: %v; want CONFLICT", err)
		}
		if err := contact.NewApp(s, nil).DeleteContact(ctx, org, legacy[9].ContactID); err != nil {
			t.Fatal(err)
		}
		again, err := contact.NewApp(s, nil).AddToList(ctx, org, l1.ListID, []contact.Input{{MailID: legacy[9].MailID}}, importSource)
		if err != nil || again.Items[0].Status != contact.StatusCreated || again.Items[0].ContactID == legacy[9].ContactID {
			t.Errorf("re-import after delete: %+v, %v; want a new contact", again, err)
		}
		if _, total, _ := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 1}); total != n+1 {
			t.Errorf("total %d, want %d", total, n+1)
		}
	})
}
