package dynamo_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

var importSource = contact.Source{Type: contact.SourceImport, Provider: contact.ProviderAPI}

// benchPerson is a contact with the fields a CRM export typically fills, as
// the benchmark imports them (bench/fixtures.go).
func benchPerson(k int) contact.Input {
	return contact.Input{
		MailID: fmt.Sprintf("person%d.run1@example.com", k), FirstName: fmt.Sprintf("First%d", k), LastName: "Person",
		CompanyName: fmt.Sprintf("Company %d", k%500), JobTitle: "Director of Brand Marketing",
		PhoneNumber: fmt.Sprintf("+1-555-%07d", k), LinkedinURL: fmt.Sprintf("https://www.linkedin.com/in/person-%d-run1", k),
		Tags:    []string{"bench", fmt.Sprintf("cohort-%d", k%10)},
		Address: contact.Address{Line1: fmt.Sprintf("%d Main Street", k%9000+1), City: "Springfield", State: "IL", Zip: "62701", Country: "US"},
	}
}

// TestImportWriteUnitsPerNewContact: a new contact is a plain write (no
// transaction, which bills twice) of an item under 1 KB plus its Slim
// entry, 2 write units; 100 of them go in 4 batches of inserts, and the
// chunk's counters add one unit each for the whole chunk, in one more
// batch: 7 requests in all. Then its search entries (issue 30), a plain
// put each, in batches of 25: one per word of 3 characters or more and one
// for its LinkedIn URL, 6 here (first<k>, person, company, the email, the
// domain, the URL), so 8 units a contact (docs/performance.md and decision
// 0008 say why the searches they save are worth it).
func TestImportWriteUnitsPerNewContact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	org, _ := testenv.Org(t, s, "acme", 0)
	list := leadsList(t, s, org)
	inputs := make([]contact.Input, 100)
	for k := range inputs {
		inputs[k] = benchPerson(k)
	}
	u := meter.Usage{Record: true}
	stop := m.Observe(&u)
	res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, inputs, importSource)
	stop()
	if err != nil || res.Created != 100 {
		t.Fatalf("import: %d created, %v", res.Created, err)
	}
	// DynamoDB Local reports no units for a batch of statements: an
	// insert costs what its item and its index entry bill, a counter's
	// update one unit (a small item).
	units, ops, inserted, counted := 0.0, map[string]int{}, 0, 0
	for _, c := range u.Calls() {
		ops[c.Op]++
		bs, ok := c.Input.(*dynamodb.BatchExecuteStatementInput)
		if !ok {
			units += c.WriteUnits
			continue
		}
		for _, st := range bs.Statements {
			if _, ok := dynamo.UpdatedKey(st); ok {
				units++
				counted++
				continue
			}
			it, ok := dynamo.InsertedItem(st)
			if !ok {
				t.Fatalf("a statement that is no insert or counter: %s", aws.ToString(st.Statement))
			}
			if size := dynamo.ItemSize(it); size > 1024 {
				t.Errorf("a new contact of %d bytes: more than one write unit", size)
			}
			if it["LPK"] == nil || it["dueShard"] != nil || it["pg"] != nil {
				t.Errorf("a new contact's index keys: %v; want its Slim entry only", slices.Sorted(maps.Keys(it)))
			}
			units += 2
			inserted++
		}
	}
	// The list and the organization's migration record, then the slots
	// (no legacy markers in an organization created with slots), then 4
	// batches of 25 inserts, then both counters in one batch.
	entries := 0
	for _, in := range inputs {
		entries += len(contact.EntryWords(contact.SearchWords(in.FirstName, in.LastName, "", in.MailID, in.CompanyName))) + 1
	}
	// And the chunk's opening of the contacts count before its writes
	// (Store.OpenCounts: one UpdateItem, one unit).
	want := map[string]int{"BatchGetItem": 2, "BatchExecuteStatement": 5, "BatchWriteItem": (entries + 24) / 25, "UpdateItem": 1}
	if inserted != 100 || counted != 2 || !maps.Equal(ops, want) {
		t.Errorf("requests %v, %d inserts, %d counter updates; want %v, 100 and 2", ops, inserted, counted, want)
	}
	t.Logf("%.0f write units for %d new contacts, requests %v", units, len(inputs), ops)
	const counters = 3 // the org's contacts counter (opened and counted) and the list's count, once for the chunk
	if limit := float64(2*len(inputs) + entries + counters); units > limit {
		t.Errorf("%.0f write units for %d new contacts (%.2f each); want at most %.0f (2 each, a unit per search entry, plus the chunk's counters)",
			units, len(inputs), units/float64(len(inputs)), limit)
	}
	if entries != 6*len(inputs) {
		t.Errorf("%d search entries for %d contacts; want 6 each", entries, len(inputs))
	}
	page, total, err := contact.NewApp(s, nil).Members(ctx, org, list.ListID, "", gifting.PageRequest{Page: 1, Limit: 100})
	if err != nil || total != 100 || len(page) != 100 {
		t.Fatalf("list page: %d of %d, %v", len(page), total, err)
	}
	// What the item leaves out as derivable comes back on reading.
	got, err := contact.NewApp(s, nil).Contact(ctx, org, res.Items[7].ContactID)
	if err != nil {
		t.Fatal(err)
	}
	if got.OrganizationID != org || len(got.Emails) != 1 || got.Emails[0].Email != inputs[7].MailID || !got.Emails[0].IsPrimary ||
		len(got.Addresses) != 1 || got.Addresses[0].Address != inputs[7].Address || got.Addresses[0].Source.Type != contact.SourceImport {
		t.Errorf("read back %+v", got)
	}
}

// TestRenamedContactEmail: after a contact's email changes, its old email
// is free (imports as a new contact) and its new one is taken (imports
// merge into it, another contact cannot take it).
func TestRenamedContactEmail(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	list := leadsList(t, s, org)
	imp := func(t *testing.T, mail string) contact.Item {
		t.Helper()
		res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, []contact.Input{{MailID: mail}}, importSource)
		if err != nil || len(res.Items) != 1 {
			t.Fatalf("import %s: %+v, %v", mail, res, err)
		}
		return res.Items[0]
	}
	ada := imp(t, "ada@example.com")
	newMail := "ada.lovelace@example.com"
	if _, err := contact.NewApp(s, nil).UpdateContact(ctx, org, ada.ContactID, contact.Patch{MailID: &newMail}); err != nil {
		t.Fatal(err)
	}
	var other contact.Item
	t.Run("the old email imports as a new contact", func(t *testing.T) {
		other = imp(t, "ada@example.com")
		if other.Status != contact.StatusCreated || other.ContactID == ada.ContactID {
			t.Errorf("re-import of the old email: %+v; want a new contact", other)
		}
	})
	t.Run("the new email merges into the renamed contact", func(t *testing.T) {
		if got := imp(t, newMail); got.Status != contact.StatusMerged || got.ContactID != ada.ContactID {
			t.Errorf("import of the new email: %+v; want merged into %s", got, ada.ContactID)
		}
	})
	t.Run("no other contact can take either email", func(t *testing.T) {
		if _, err := contact.NewApp(s, nil).UpdateContact(ctx, org, other.ContactID, contact.Patch{MailID: &newMail}); gifting.ErrorCode(err) != gifting.CodeConflict {
			t.Errorf("taking the renamed contact's email: %v; want CONFLICT", err)
		}
		old := "ada@example.com"
		if _, err := contact.NewApp(s, nil).UpdateContact(ctx, org, ada.ContactID, contact.Patch{MailID: &old}); gifting.ErrorCode(err) != gifting.CodeConflict {
			t.Errorf("taking back the old email: %v; want CONFLICT", err)
		}
	})
	t.Run("a deleted contact's email is free, its id stays gone", func(t *testing.T) {
		if err := contact.NewApp(s, nil).DeleteContact(ctx, org, other.ContactID); err != nil {
			t.Fatal(err)
		}
		again := imp(t, "ada@example.com")
		if again.Status != contact.StatusCreated || again.ContactID == other.ContactID || again.ContactID == ada.ContactID {
			t.Errorf("import after delete: %+v; want a new contact with a new id", again)
		}
		if _, err := contact.NewApp(s, nil).Contact(ctx, org, other.ContactID); gifting.ErrorCode(err) != gifting.CodeNotFound {
			t.Errorf("deleted contact: %v; want NOT_FOUND", err)
		}
		if err := contact.NewApp(s, nil).DeleteContact(ctx, org, again.ContactID); err != nil {
			t.Fatal(err)
		}
		if third := imp(t, "ada@example.com"); third.Status != contact.StatusCreated || third.ContactID == again.ContactID || third.ContactID == other.ContactID {
			t.Errorf("second import after delete: %+v; want yet another contact", third)
		}
	})
	t.Run("the renamed contact takes its old email back once it is free", func(t *testing.T) {
		contacts, _, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range contacts {
			if c.MailID == "ada@example.com" {
				if err := contact.NewApp(s, nil).DeleteContact(ctx, org, c.ContactID); err != nil {
					t.Fatal(err)
				}
			}
		}
		old := "ada@example.com"
		if _, err := contact.NewApp(s, nil).UpdateContact(ctx, org, ada.ContactID, contact.Patch{MailID: &old}); err != nil {
			t.Fatalf("taking back the free email: %v", err)
		}
		if got := imp(t, old); got.Status != contact.StatusMerged || got.ContactID != ada.ContactID {
			t.Errorf("import of the old email: %+v; want merged into %s", got, ada.ContactID)
		}
		if got := imp(t, newMail); got.Status != contact.StatusCreated {
			t.Errorf("import of the released email: %+v; want created", got)
		}
	})
	_, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
	if err != nil || total != 2 {
		t.Errorf("total %d, %v; want 2 (the renamed contact and the last import)", total, err)
	}
}

// TestContactsOrder: GET /contacts lists by first list, newest list first,
// then newest contact first, contacts in no list last; a list's members
// are those whose first list it is (newest first), then the others.
func TestContactsOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := testenv.Store(t, dynamo.WithClock(func() time.Time { clock = clock.Add(time.Second); return clock }))
	org, _ := testenv.Org(t, s, "acme", 0)
	older, err := s.CreateContactList(ctx, org, "u", "Older", "")
	if err != nil {
		t.Fatal(err)
	}
	newer, err := s.CreateContactList(ctx, org, "u", "Newer", "")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	add := func(list, mail string) {
		t.Helper()
		res, err := contact.NewApp(s, nil).AddToList(ctx, org, list, []contact.Input{{MailID: mail + "@example.com"}}, importSource)
		if err != nil || res.Failed != 0 {
			t.Fatalf("import %s: %+v, %v", mail, res, err)
		}
		ids[mail] = res.Items[0].ContactID
	}
	add(older.ListID, "a")
	add(newer.ListID, "c")
	add(older.ListID, "b")
	add(newer.ListID, "d")
	u, err := s.PrepareContactUpsert(ctx, org, gifting.ContactInput{MailID: "e@example.com"}, gifting.Source(importSource))
	if err != nil {
		t.Fatal(err)
	}
	if reasons := applyUpsert(t, u); reasons != nil {
		t.Fatal(reasons)
	}
	ids["e"] = u.Contact.ContactID
	// d joins the older list as its second list.
	if _, err := contact.NewApp(s, nil).AddIDsToList(ctx, org, older.ListID, []string{ids["d"]}); err != nil {
		t.Fatal(err)
	}
	mails := func(cs []contact.Contact) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.MailID[:1])
		}
		return out
	}
	t.Run("contacts page", func(t *testing.T) {
		page, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
		if got, want := mails(page), []string{"d", "c", "b", "a", "e"}; err != nil || total != 5 || !slices.Equal(got, want) {
			t.Errorf("page %v (total %d, %v); want %v", got, total, err, want)
		}
		deep, _, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 2, Limit: 2})
		if got, want := mails(deep), []string{"b", "a"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("page 2 of 2: %v, %v; want %v", got, err, want)
		}
	})
	t.Run("list members", func(t *testing.T) {
		page, total, err := contact.NewApp(s, nil).Members(ctx, org, older.ListID, "", gifting.PageRequest{Page: 1, Limit: 10})
		if got, want := mails(page), []string{"b", "a", "d"}; err != nil || total != 3 || !slices.Equal(got, want) {
			t.Errorf("older list %v (total %d, %v); want %v", got, total, err, want)
		}
		second, _, err := contact.NewApp(s, nil).Members(ctx, org, older.ListID, "", gifting.PageRequest{Page: 2, Limit: 2})
		if got, want := mails(second), []string{"d"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("older list page 2: %v, %v; want %v", got, err, want)
		}
	})
	t.Run("leaving the first list makes the next one first", func(t *testing.T) {
		if err := contact.NewApp(s, nil).RemoveFromList(ctx, org, newer.ListID, ids["d"]); err != nil {
			t.Fatal(err)
		}
		page, total, err := contact.NewApp(s, nil).Members(ctx, org, older.ListID, "", gifting.PageRequest{Page: 1, Limit: 10})
		if got, want := mails(page), []string{"d", "b", "a"}; err != nil || total != 3 || !slices.Equal(got, want) {
			t.Errorf("older list %v (total %d, %v); want %v", got, total, err, want)
		}
		if l, _ := s.ContactList(ctx, org, newer.ListID); l.ContactCount != 1 {
			t.Errorf("newer list count %d, want 1", l.ContactCount)
		}
		// Leaving it again (now as its first list) empties its membership.
		if err := contact.NewApp(s, nil).RemoveFromList(ctx, org, older.ListID, ids["d"]); err != nil {
			t.Fatal(err)
		}
		all, _, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
		if got, want := mails(all), []string{"c", "b", "a", "e", "d"}; err != nil || !slices.Equal(got, want) {
			t.Errorf("contacts %v, %v; want %v (d in no list, newest first)", got, err, want)
		}
	})
}

// TestImportCountsWithoutCounterItem: in an organization created before
// its contacts counter was written with it, the import's batch of counter
// updates cannot move the missing counter; the counter is then moved (and
// created) by an UpdateItem, and the totals are exact.
func TestImportCountsWithoutCounterItem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	table := s.Table()
	if _, err := testenv.Client(t).DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table,
		Key: dynamo.ItemKey("ORG#"+org, "COUNT#CONTACT")}); err != nil {
		t.Fatal(err)
	}
	list := leadsList(t, s, org)
	for round := range 2 {
		inputs := []contact.Input{benchPerson(3 * round), benchPerson(3*round + 1), benchPerson(3*round + 2)}
		if res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, inputs, importSource); err != nil || res.Created != 3 {
			t.Fatalf("import %d: %+v, %v", round, res, err)
		}
		want := 3 * (round + 1)
		if _, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10}); err != nil || total != want {
			t.Errorf("after import %d: %d contacts, %v; want %d", round, total, err, want)
		}
		if l, err := s.ContactList(ctx, org, list.ListID); err != nil || l.ContactCount != int64(want) {
			t.Errorf("after import %d: the list counts %d, %v; want %d", round, l.ContactCount, err, want)
		}
	}
}
