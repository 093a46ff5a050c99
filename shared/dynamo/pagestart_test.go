package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// farPages are the pages by number of a list of n items that the far-end
// walk serves, for each limit: the last (a partial tail unless limit
// divides n), the one before it, and the first whose start lies past the
// middle.
func farPages(n int, limits ...int) []gifting.PageRequest {
	var pages []gifting.PageRequest
	for _, limit := range limits {
		last := (n + limit - 1) / limit
		middle := gifting.PageRequest{Page: 1, Limit: limit}
		for ; ; middle.Page++ {
			if _, ok := middle.FromFarEnd(n); ok {
				break
			}
		}
		pages = append(pages, gifting.PageRequest{Page: last, Limit: limit},
			gifting.PageRequest{Page: last - 1, Limit: limit}, middle)
	}
	return pages
}

// TestLedgerPagesFromTheOldestEnd: over a ledger of 2,537 entries, the
// last page, the page before it and the first page past the middle are
// the entries the newest-first walk of the whole ledger holds there, in
// its order, with the same total and next; the last page of 100 reads a
// few units (the walk from the newest end: about 30 in keys alone).
func TestLedgerPagesFromTheOldestEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "far-ledger", 100)
	const n = 2537
	copyLedgerEntries(t, s, orgID, n)
	all, err := s.LedgerPage(ctx, orgID, "", 10_000)
	if err != nil || len(all) != n {
		t.Fatalf("the whole ledger: %d entries, %v; want %d", len(all), err, n)
	}
	for _, p := range farPages(n, 100, 7) {
		t.Run(fmt.Sprintf("page %d of %d", p.Page, p.Limit), func(t *testing.T) {
			st, err := s.WalletStatement(ctx, orgID, p)
			if err != nil {
				t.Fatal(err)
			}
			lo, hi := p.Window(n)
			if got, want := entryIDs(st.Entries), entryIDs(all[lo:hi]); !slices.Equal(got, want) {
				t.Errorf("entries %v…; want %v…", head(got), head(want))
			}
			wantNext := ""
			if hi < n {
				wantNext = all[hi-1].EntryID
			}
			if st.Total != n || st.Next != wantNext {
				t.Errorf("total %d, next %q; want %d, %q", st.Total, st.Next, n, wantNext)
			}
		})
	}
	u := &meter.Usage{}
	if _, err := s.WalletStatement(meter.WithUsage(ctx, u), orgID, gifting.PageRequest{Page: 26, Limit: 100}); err != nil {
		t.Fatal(err)
	}
	c := u.Counts()
	t.Logf("the last page of 100 over %d entries: %d requests, %.1f read units", n, c.Requests, c.ReadUnits)
	if c.Requests > 3 || c.ReadUnits > 8 {
		t.Errorf("the last page: %d requests, %.1f read units; want at most 3 and 8", c.Requests, c.ReadUnits)
	}
}

// copyLedgerEntries brings org's ledger to n entries: copies of its
// opening entry under new ids, written with BatchWriteItem, counted on
// the wallet as the wallet counts its own, each of amount 0.
func copyLedgerEntries(t *testing.T, s *dynamo.Store, orgID string, n int) {
	t.Helper()
	ctx := context.Background()
	db, table := testenv.Client(t), s.Table()
	open, err := s.LedgerPage(ctx, orgID, "", 10)
	if err != nil || len(open) != 1 {
		t.Fatalf("the opening entry: %v, %v", open, err)
	}
	tpl, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "LEDGER#" + open[0].EntryID},
	}})
	if err != nil || tpl.Item == nil {
		t.Fatalf("the opening entry's item: %v", err)
	}
	var batch []types.WriteRequest
	flush := func() {
		for len(batch) > 0 {
			out, err := db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{table: batch}})
			if err != nil {
				t.Fatal(err)
			}
			batch = out.UnprocessedItems[table]
		}
	}
	for range n - 1 {
		it := map[string]types.AttributeValue{}
		id := s.NewID()
		for k, v := range tpl.Item {
			if sv, ok := v.(*types.AttributeValueMemberS); ok {
				v = &types.AttributeValueMemberS{Value: strings.ReplaceAll(sv.Value, open[0].EntryID, id)}
			}
			it[k] = v
		}
		// Entries of no amount: the ledger still sums to the balance.
		it["amount"] = &types.AttributeValueMemberN{Value: "0"}
		if batch = append(batch, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}); len(batch) == 25 {
			flush()
		}
	}
	flush()
	_, err = db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &table, Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, "SK": &types.AttributeValueMemberS{Value: "WALLET"},
		},
		UpdateExpression:          aws.String("ADD entries :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": &types.AttributeValueMemberN{Value: strconv.Itoa(n - 1)}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

func entryIDs(es []wallet.Entry) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.EntryID
	}
	return ids
}

// head is the first few of ids, for a message.
func head(ids []string) []string { return ids[:min(3, len(ids))] }

// TestContactPagesFromTheOldestEnd: over 1,230 contacts in two lists, the
// last page, the page before it and the first page past the middle are
// the contacts the newest-first walk of the whole index holds there (the
// first page of the whole collection), with the same total; the last page
// of 100 reads a few units. With an import chunk open (its count not
// added: a process that died between its writes and its count, the
// counter short), the pages are still right: they are walked from the
// newest end.
func TestContactPagesFromTheOldestEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	org, _ := testenv.Org(t, s, "far-contacts", 0)
	const n = 1230
	for k, list := range []gifting.ContactList{leadsList(t, s, org), leadsList(t, s, org)} {
		for from := k * n / 2; from < (k+1)*n/2; from += 100 {
			in := make([]contact.Input, 0, 100)
			for i := from; i < min(from+100, (k+1)*n/2); i++ {
				in = append(in, benchPerson(i))
			}
			if res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, in, importSource); err != nil || res.Created != len(in) {
				t.Fatalf("import: %+v, %v", res, err)
			}
		}
	}
	whole, err := s.ContactPage(ctx, org, gifting.PageRequest{Page: 1, Limit: 10 * n})
	if err != nil || len(whole.Contacts) != n {
		t.Fatalf("the whole collection: %d contacts, %v; want %d", len(whole.Contacts), err, n)
	}
	check := func(t *testing.T, p gifting.PageRequest, wantTotal bool) {
		got, err := s.ContactPage(ctx, org, p)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := p.Window(n)
		if g, w := contactIDs(got.Contacts), contactIDs(whole.Contacts[lo:hi]); !slices.Equal(g, w) {
			t.Errorf("contacts %v…; want %v…", head(g), head(w))
		}
		if total := gifting.PageTotal(p, got.Counted, got.Read); wantTotal && total != n {
			t.Errorf("total %d (counted %d, read %d); want %d", total, got.Counted, got.Read, n)
		}
	}
	for _, p := range farPages(n, 100, 7) {
		t.Run(fmt.Sprintf("page %d of %d", p.Page, p.Limit), func(t *testing.T) { check(t, p, true) })
	}
	// Its 30 items cost half a unit each (read eventually consistent);
	// the total and the keys a few units more. Walked from the newest
	// end, the keys alone would cost about 30.
	u := &meter.Usage{}
	last, err := s.ContactPage(meter.WithUsage(ctx, u), org, gifting.PageRequest{Page: 13, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	c := u.Counts()
	t.Logf("the last page of 100 over %d contacts (%d on it): %d requests, %.1f read units", n, len(last.Contacts), c.Requests, c.ReadUnits)
	if limit := float64(len(last.Contacts))/2 + 5; c.Requests > 3 || c.ReadUnits > limit {
		t.Errorf("the last page: %d requests, %.1f read units; want at most 3 and %.1f", c.Requests, c.ReadUnits, limit)
	}

	t.Run("a chunk open, the counter short", func(t *testing.T) {
		if err := s.OpenCounts(ctx, org); err != nil {
			t.Fatal(err)
		}
		_, err := testenv.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(s.Table()), Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "ORG#" + org}, "SK": &types.AttributeValueMemberS{Value: "COUNT#CONTACT"},
			},
			UpdateExpression:          aws.String("ADD n :short"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":short": &types.AttributeValueMemberN{Value: "-30"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		// The items as the walk holds them; the total of the last page
		// is what it read, the others' the short counter's, as always.
		for i, p := range farPages(n, 100) {
			check(t, p, i == 0)
		}
	})
}

func contactIDs(cs []contact.Contact) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ContactID
	}
	return ids
}

// TestCountedPagesFromTheFarEnd: the counted lists (personas here;
// campaigns, audiences and events share orderedPage) serve their pages in
// the older half from the far end, in both orders: the last page, the
// one before it and the first past the middle are what the whole list
// holds there, with the counter's total.
func TestCountedPagesFromTheFarEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "far-personas", 0)
	const n = 47
	app := testenv.Audiences(s)
	for i := range n {
		if _, err := app.CreatePersona(ctx, orgID, "u", audience.Persona{Criteria: audience.Criteria{Name: fmt.Sprintf("p%02d", i), JobTitles: []string{"engineer"}}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, order := range []gifting.SortOrder{gifting.Asc, gifting.Desc} {
		whole, total, err := s.PersonaPage(ctx, orgID, order, gifting.PageRequest{Page: 1, Limit: 100})
		if err != nil || len(whole) != n || total != n {
			t.Fatalf("every persona, %s: %d of %d, %v; want %d", order, len(whole), total, err, n)
		}
		for _, p := range farPages(n, 5, 10) {
			t.Run(fmt.Sprintf("%s page %d of %d", order, p.Page, p.Limit), func(t *testing.T) {
				got, total, err := s.PersonaPage(ctx, orgID, order, p)
				if err != nil || total != n {
					t.Fatalf("total %d, %v; want %d", total, err, n)
				}
				lo, hi := p.Window(n)
				if g, w := personaIDs(got), personaIDs(whole[lo:hi]); !slices.Equal(g, w) {
					t.Errorf("personas %v; want %v", g, w)
				}
			})
		}
	}
}

func personaIDs(ps []audience.Persona) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}
