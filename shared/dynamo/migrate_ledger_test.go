package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestMigrateLedgerIndex: `admin migrate`'s ledger step gives the entries
// of a ledger written before ledger entries had Slim entries theirs, in a
// run that stops part-way and is run again (it continues where it
// stopped), marks the ledger indexed, and finds nothing to do on a third
// run; the pages read the same entries before and after.
func TestMigrateLedgerIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	orgID, _ := testenv.Org(t, s, "oldledger", 1000)
	c := giftCampaign(t, s, orgID, 10)
	const adds = 12
	for i := range adds {
		if _, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, fmt.Sprintf("r%d@example.com", i))); err != nil {
			t.Fatal(err)
		}
	}
	const entries = adds + 1
	pages := func() [][]string {
		var out [][]string
		for p := 1; p <= 4; p++ {
			st, err := s.WalletStatement(ctx, orgID, gifting.PageRequest{Page: p, Limit: 4})
			if err != nil {
				t.Fatal(err)
			}
			if st.Total != entries {
				t.Errorf("page %d: total %d; want %d", p, st.Total, entries)
			}
			var ids []string
			for _, e := range st.Entries {
				ids = append(ids, e.EntryID)
			}
			out = append(out, ids)
		}
		return out
	}
	want := pages()
	testenv.UnindexLedger(t, s, orgID)
	if got := pages(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("pages of the ledger written before the index: %v; want %v", got, want)
	}

	// A run that stopped after the 5 oldest entries (the walk goes oldest
	// first): their keys written, its progress saved after them.
	table, db := s.Table(), testenv.Client(t)
	sv := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	all := slices.Concat(want...)
	slices.Sort(all)
	for _, id := range all[:5] {
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &table,
			Key:              map[string]types.AttributeValue{"PK": sv("ORG#" + orgID), "SK": sv("LEDGER#" + id)},
			UpdateExpression: aws.String("SET LPK = :lpk, LSK = :sk"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":lpk": sv("ORG#" + orgID + "#LEDGER"), ":sk": sv("LEDGER#" + id)}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{
		"PK": sv("ORG#" + orgID), "SK": sv("MIGRATE#ledger-index"), "after": sv("LEDGER#" + all[4]),
		"done": &types.AttributeValueMemberBOOL{Value: false}}}); err != nil {
		t.Fatal(err)
	}
	u := &meter.Usage{Record: true}
	stop := m.Observe(u)
	res, err := s.Migrate(ctx, orgID, []string{"ledger-index"})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Changed != entries-5 {
		t.Errorf("the resumed run indexed %d entries; want the %d the stopped one had not", res[0].Changed, entries-5)
	}
	for _, call := range u.Calls() {
		if q, ok := call.Input.(*dynamodb.QueryInput); ok {
			if start := q.ExclusiveStartKey["SK"]; start == nil || start.(*types.AttributeValueMemberS).Value != "LEDGER#"+all[4] {
				t.Errorf("the resumed run read the ledger from %v; want after the stopped run's last entry", start)
			}
			break
		}
	}
	if got := pages(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("pages after the migration: %v; want %v", got, want)
	}
	again, err := s.Migrate(ctx, orgID, []string{"ledger-index"})
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Changed != 0 {
		t.Errorf("a run after a complete one changed %d items; want none", again[0].Changed)
	}
	// New entries keep being indexed, and the pages stay exact.
	if _, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "late@example.com")); err != nil {
		t.Fatal(err)
	}
	st, err := s.WalletStatement(ctx, orgID, gifting.PageRequest{Page: 4, Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Entries) != 2 || st.Entries[1].EntryID != all[0] || st.Total != entries+1 {
		t.Errorf("page 4 after a new entry: %d entries, the last %v, total %d; want 2, the oldest %s, %d", len(st.Entries), st.Entries, st.Total, all[0], entries+1)
	}
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: map[string]types.AttributeValue{"PK": sv("ORG#" + orgID), "SK": sv("WALLET")}})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := out.Item["lidx"].(*types.AttributeValueMemberBOOL); !ok || !b.Value {
		t.Errorf("the wallet is not marked indexed after the migration: %v", out.Item["lidx"])
	}
}
