package dynamo_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// updatesStopDB fails every UpdateItem after the first `left`, as a run
// of `admin migrate` stopped halfway would, and passes everything else to
// DynamoDB Local.
type updatesStopDB struct {
	dynamo.DB
	left atomic.Int64
}

var errStopped = errors.New("stopped")

func (f *updatesStopDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	if f.left.Add(-1) < 0 {
		return nil, errStopped
	}
	return f.DB.UpdateItem(ctx, in, opts...)
}

// TestMigrateAudienceMembers: an audience whose members were written by
// the code before the Order index and member entries (no Order keys, no
// entries, the oldest form of the Slim sort key, no mark) answers every
// page from its whole index partition; the audience-members step, stopped
// halfway and run again, goes on where it stopped, gives every member its
// keys and entries and marks the audience, after which every page is the
// same answer (read from the entries) as before the step and as the
// audience had when it was built; a third run changes nothing.
func TestMigrateAudienceMembers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, table := testenv.Client(t), testenv.Table(t)
	s := dynamo.New(db, table)
	orgID, _ := testenv.Org(t, s, "migrate-audience", 0)
	const n = 250
	aud := builtAudience(t, s, orgID, n)
	app := testenv.Audiences(s)

	queries := []audience.MemberQuery{}
	for _, sortBy := range audience.MemberSorts {
		for _, order := range []gifting.SortOrder{gifting.Desc, gifting.Asc} {
			for _, page := range []int{1, 2, 9} {
				queries = append(queries, audience.MemberQuery{SortBy: sortBy, Order: order, Page: gifting.PageRequest{Page: page, Limit: 25}})
			}
		}
		queries = append(queries, audience.MemberQuery{SortBy: sortBy, Search: "p01", Order: gifting.Desc, Page: gifting.PageRequest{Page: 1, Limit: 5}},
			audience.MemberQuery{SortBy: sortBy, Search: "example P2", Order: gifting.Asc, Page: gifting.PageRequest{Page: 2, Limit: 20}})
	}
	type answer struct {
		ids   []string
		total int
	}
	answers := func(when string) []answer {
		t.Helper()
		out := make([]answer, len(queries))
		for i, q := range queries {
			_, members, total, err := app.Members(ctx, orgID, aud.ID, q)
			if err != nil {
				t.Fatalf("%s, %+v: %v", when, q, err)
			}
			out[i].total = total
			for _, m := range members {
				out[i].ids = append(out[i].ids, m.ContactID)
			}
		}
		return out
	}
	built := answers("built")
	entries := len(withPrefix(t, s, orgID, "AMIDX#"+aud.ID+"#"))
	if entries < 2*n {
		t.Fatalf("%d member entries for %d members", entries, n)
	}

	// The old code's members: rewritten without what this code adds.
	for _, sk := range withPrefix(t, s, orgID, "AMEMBER#"+aud.ID+"#") {
		if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &table, Key: orgKey(orgID, sk), UpdateExpression: aws.String("SET LSK = SK REMOVE OPK, OSK, srt"),
		}); err != nil {
			t.Fatal(err)
		}
	}
	for _, sk := range withPrefix(t, s, orgID, "AMIDX#"+aud.ID+"#") {
		if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: orgKey(orgID, sk)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &table, Key: orgKey(orgID, "AUDIENCE#"+aud.ID), UpdateExpression: aws.String("REMOVE memberIndex"),
	}); err != nil {
		t.Fatal(err)
	}
	// The oldest form of the Slim entry holds no createdAt (its members
	// list oldest first by contactId): only the other orders and the
	// searches answer as built.
	old := answers("old")
	for i, q := range queries {
		if q.SortBy != "createdAt" && !reflect.DeepEqual(old[i], built[i]) {
			t.Errorf("an audience of the old code answers %+v with %v, want %v", q, old[i], built[i])
		}
	}

	stopping := &updatesStopDB{DB: db}
	stopping.left.Store(150)
	if _, err := dynamo.New(stopping, table).Migrate(ctx, orgID, []string{"audience-members"}); !errors.Is(err, errStopped) {
		t.Fatalf("a stopped run: %v", err)
	}
	res, err := s.Migrate(ctx, orgID, []string{"audience-members"})
	if err != nil || len(res) != 1 || res[0].Changed != n-100 || len(res[0].Problems) != 0 {
		t.Fatalf("the run after it: %+v, %v; want the %d members after the first page of 100 changed", res, err, n-100)
	}
	if st, err := s.Audience(ctx, orgID, aud.ID); err != nil || !st.Indexed {
		t.Fatalf("migrated audience %+v, %v; want it marked", st, err)
	}
	if got := len(withPrefix(t, s, orgID, "AMIDX#"+aud.ID+"#")); got != entries {
		t.Errorf("%d member entries after the step, want %d as its build wrote", got, entries)
	}
	for i, got := range answers("migrated") {
		if !reflect.DeepEqual(got, built[i]) {
			t.Errorf("the migrated audience answers %+v with %v, want %v", queries[i], got, built[i])
		}
	}
	if res, err := s.Migrate(ctx, orgID, []string{"audience-members"}); err != nil || res[0].Changed != 0 || len(res[0].Problems) != 0 {
		t.Errorf("a third run: %+v, %v; want nothing changed", res, err)
	}
}

// withPrefix returns the sort keys of org's items that begin with prefix.
func withPrefix(t *testing.T, s *dynamo.Store, org, prefix string) []string {
	t.Helper()
	var out []string
	for _, sk := range partition(t, s, org) {
		if strings.HasPrefix(sk, prefix) {
			out = append(out, sk)
		}
	}
	return out
}

// orgKey is the table key of org's item sk.
func orgKey(org, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{
		"PK": &types.AttributeValueMemberS{Value: "ORG#" + org}, "SK": &types.AttributeValueMemberS{Value: sk},
	}
}
