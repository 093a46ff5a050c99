package dynamo_test

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// plainHash is what the store keyed a suppression by before the
// suppression key: the SHA-256 of the address, which anyone can compute
// for a list of likely addresses.
func plainHash(email string) string {
	sum := sha256.Sum256([]byte(email))
	return hex.EncodeToString(sum[:])
}

// suppressionItems reads org's suppression items as stored.
func suppressionItems(t *testing.T, table, orgID string) []map[string]types.AttributeValue {
	t.Helper()
	out, err := testenv.Client(t).Query(t.Context(), &dynamodb.QueryInput{
		TableName:              aws.String(table),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID},
			":p":  &types.AttributeValueMemberS{Value: "SUPPRESS#"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Items
}

// TestSuppressionsKeyedAndMigrated: addresses suppressed before the
// suppression key (under a plain SHA-256, one of them since erased) stay
// suppressed when the store keys with it, and suppressing one again adds
// nothing; the migration step rekeys both, after which no stored item
// holds the plain hash of either address, every function's store (a cold
// start opening the sealed key) still finds them, another organization
// does not, and a second run changes nothing.
func TestSuppressionsKeyedAndMigrated(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := testenv.Store(t)
	acme, _ := testenv.Org(t, s, "acme", 0)
	other, _ := testenv.Org(t, s, "other", 0)
	before := dynamo.New(testenv.Client(t), s.Table()) // the store as it was: no suppression key
	const jane, gone = "jane@example.com", "gone@example.com"
	for _, e := range []string{jane, gone} {
		if err := before.Suppress(ctx, acme, e, "bounced"); err != nil {
			t.Fatal(err)
		}
	}
	// Erasure blanked gone's address: only the plain hash in its key is left.
	if _, err := testenv.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.Table()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "ORG#" + acme},
			"SK": &types.AttributeValueMemberS{Value: "SUPPRESS#" + plainHash(gone)}},
		UpdateExpression: aws.String("SET email = :x"), ExpressionAttributeValues: map[string]types.AttributeValue{
			":x": &types.AttributeValueMemberS{Value: "erased"}}}); err != nil {
		t.Fatal(err)
	}

	suppressed := func(st *dynamo.Store, org, email string, want bool) {
		t.Helper()
		if got, err := st.IsSuppressed(ctx, org, email); err != nil || got != want {
			t.Errorf("IsSuppressed(%s, %s) = %v, %v; want %v", org, email, got, err, want)
		}
	}
	suppressed(s, acme, jane, true)
	suppressed(s, acme, gone, true)
	if err := s.Suppress(ctx, acme, "JANE@example.com", "complained"); err != nil {
		t.Fatal(err)
	}
	if n := len(suppressionItems(t, s.Table(), acme)); n != 2 {
		t.Fatalf("%d suppression items after suppressing a legacy address again; want the 2 there were", n)
	}

	res, err := s.Migrate(ctx, acme, []string{"suppression-keys"})
	if err != nil || len(res) != 1 || res[0].Changed != 2 {
		t.Fatalf("migrate: %+v, %v; want 2 changed", res, err)
	}
	items := suppressionItems(t, s.Table(), acme)
	if len(items) != 2 {
		t.Fatalf("%d suppression items after the migration; want 2", len(items))
	}
	for _, it := range items {
		for name, v := range it {
			sv, _ := v.(*types.AttributeValueMemberS)
			if sv != nil && (strings.Contains(sv.Value, plainHash(jane)) || strings.Contains(sv.Value, plainHash(gone))) {
				t.Errorf("attribute %s = %q holds the plain SHA-256 of an address", name, sv.Value)
			}
		}
		if it["hmac"] == nil {
			t.Errorf("item %v is not marked as keyed", it["SK"])
		}
		if r := it["reason"].(*types.AttributeValueMemberS).Value; r != "bounced" {
			t.Errorf("reason %q after the migration; want the first one, bounced", r)
		}
	}

	// A cold start: a new store opens the sealed key from the table.
	cold := dynamo.New(testenv.Client(t), s.Table(), testenv.SuppressionKey(t))
	for _, st := range []*dynamo.Store{s, cold} {
		suppressed(st, acme, jane, true)
		suppressed(st, acme, gone, true)
		suppressed(st, acme, "john@example.com", false)
		suppressed(st, other, jane, false)
	}
	// The stored key is sealed, not in clear.
	key, err := testenv.Client(t).GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.Table()),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "STACK"},
			"SK": &types.AttributeValueMemberS{Value: "SUPPRESSIONKEY"}}})
	if err != nil || key.Item == nil || !strings.HasPrefix(key.Item["sealed"].(*types.AttributeValueMemberS).Value, "sealed.v1.") {
		t.Errorf("the suppression key's item: %v, %v; want a sealed value", key.Item, err)
	}
	if res, err := s.Migrate(ctx, acme, []string{"suppression-keys"}); err != nil || res[0].Changed != 0 {
		t.Errorf("second migration run: %+v, %v; want nothing changed", res, err)
	}
}

// TestSuppressionKeyMadeOnce: stores of a new table that all need the
// suppression key at once (a deployment's first cold starts) make one key
// between them: eight suppressing the same address at once leave one item,
// which a ninth finds.
func TestSuppressionKeyMadeOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	table := testenv.Table(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := dynamo.New(testenv.Client(t), table, testenv.SuppressionKey(t))
			if err := st.Suppress(ctx, "acme", "jane@example.com", "bounced"); err != nil {
				t.Errorf("store %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if got := suppressionItems(t, table, "acme"); len(got) != 1 {
		t.Errorf("%d suppression items; want 1: the stores made more than one key", len(got))
	}
	ninth := dynamo.New(testenv.Client(t), table, testenv.SuppressionKey(t))
	if got, err := ninth.IsSuppressed(ctx, "acme", "jane@example.com"); err != nil || !got {
		t.Errorf("IsSuppressed = %v, %v; want true", got, err)
	}
}
