package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// admin runs one CLI command against the test's table and decodes its JSON.
func admin(t *testing.T, want int, args ...string) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if got := run(context.Background(), args, &stdout, &stderr); got != want {
		t.Fatalf("admin %s: exit %d, want %d; stderr %s", strings.Join(args, " "), got, want, stderr.String())
	}
	if want != 0 {
		if stderr.Len() == 0 {
			t.Errorf("admin %s: failed without saying why", strings.Join(args, " "))
		}
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("admin %s: output is not JSON: %v\n%s", strings.Join(args, " "), err, stdout.String())
	}
	return out
}

func field(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		obj, _ := v.(map[string]any)
		v = obj[p]
	}
	return v
}

// TestOperatorCLI walks an operator through an organization's life: create
// it, give it a key, top it up, show it, revoke the key.
func TestOperatorCLI(t *testing.T) {
	t.Setenv("TABLE_NAME", testenv.Table(t))
	ctx := context.Background()

	org := admin(t, 0, "create-org", "-id", "acme", "-name", "Acme Inc", "-domain", "acme.com", "-credits", "500", "-budget", "500")
	if field(org, "organization", "orgId") != "acme" || field(org, "wallet", "balance") != float64(500) {
		t.Fatalf("create-org printed %v", org)
	}
	admin(t, 1, "create-org", "-id", "acme", "-name", "Again") // taken
	admin(t, 2, "create-org", "-id", "Bad Id!", "-name", "x")  // invalid

	key := admin(t, 0, "create-key", "-org", "acme", "-user", "alice")
	secret, _ := key["apiKey"].(string)
	keyID, _ := field(key, "key", "keyId").(string)
	if !strings.HasPrefix(secret, "gcs_") || keyID == "" || field(key, "key", "userId") != "alice" {
		t.Fatalf("create-key printed %v", key)
	}
	admin(t, 1, "create-key", "-org", "nobody")

	topUp := admin(t, 0, "top-up", "-org", "acme", "-credits", "250", "-reason", "invoice 42")
	if field(topUp, "wallet", "balance") != float64(750) || field(topUp, "ledgerEntry", "balanceAfter") != float64(750) {
		t.Fatalf("top-up printed %v", topUp)
	}
	admin(t, 2, "top-up", "-org", "acme", "-credits", "0")
	admin(t, 2, "top-up", "-org", "acme", "-credits", "1000000001") // above the most one top-up adds
	admin(t, 2, "create-org", "-id", "midas", "-name", "Midas", "-credits", "1000000001")

	verified := admin(t, 0, "verify-ledger", "-org", "acme")
	if verified["organizationId"] != "acme" || verified["balance"] != float64(750) || verified["ledgerSum"] != float64(750) ||
		verified["entries"] != float64(2) || verified["ok"] != true {
		t.Fatalf("verify-ledger printed %v; want 750 = 750 over 2 entries, ok", verified)
	}
	admin(t, 1, "verify-ledger", "-org", "nobody")
	admin(t, 2, "verify-ledger")

	shown := admin(t, 0, "show-org", "-org", "acme")
	if field(shown, "organization", "domain") != "acme.com" || field(shown, "wallet", "balance") != float64(750) {
		t.Fatalf("show-org printed %v", shown)
	}

	store, _, _, err := newStore(ctx, mustConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := store.ResolveAPIKey(ctx, secret); err != nil || p.OrgID != "acme" {
		t.Fatalf("the new key resolves to %+v, %v", p, err)
	}
	if revoked := admin(t, 0, "revoke-key", "-org", "acme", "-key-id", keyID); field(revoked, "key", "revokedAt") == nil {
		t.Fatalf("revoke-key printed %v", revoked)
	}
	if _, err := store.ResolveAPIKey(ctx, secret); err == nil {
		t.Fatal("a revoked key still resolves")
	}

	if seeded := admin(t, 0, "seed-catalog"); seeded["gifts"] == float64(0) {
		t.Errorf("seed-catalog printed %v", seeded)
	}
	admin(t, 2, "no-such-command")
	admin(t, 2)

	t.Run("verify-ledger exits 1 on a balance changed behind the ledger", func(t *testing.T) {
		// Credits from nowhere: the balance changed without a ledger entry.
		_, err := testenv.Client(t).UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: aws.String(mustConfig(t).TableName),
			Key: map[string]types.AttributeValue{
				"PK": &types.AttributeValueMemberS{Value: "ORG#acme"}, "SK": &types.AttributeValueMemberS{Value: "WALLET"},
			},
			UpdateExpression:          aws.String("SET balance = :b"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":b": &types.AttributeValueMemberN{Value: "1750"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		if code := run(ctx, []string{"verify-ledger", "-org", "acme"}, &stdout, &stderr); code != 1 || stderr.Len() == 0 {
			t.Fatalf("exit %d, stderr %q; want 1 with a reason", code, stderr.String())
		}
		var got map[string]any
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
		}
		if got["balance"] != float64(1750) || got["ledgerSum"] != float64(750) || got["ok"] != false {
			t.Errorf("verify-ledger printed %v; want balance 1750, ledgerSum 750, not ok", got)
		}
	})
}

func mustConfig(t *testing.T) app.Config {
	t.Helper()
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestMigrateCommand runs `admin migrate` over every organization, then
// over one, with an unknown step refused.
func TestMigrateCommand(t *testing.T) {
	t.Setenv("TABLE_NAME", testenv.Table(t))
	admin(t, 0, "create-org", "-id", "acme", "-name", "Acme Inc")
	admin(t, 0, "create-org", "-id", "globex", "-name", "Globex")
	all := admin(t, 0, "migrate")
	if all["organizations"] != float64(2) {
		t.Fatalf("migrate printed %v; want both organizations", all)
	}
	one := admin(t, 0, "migrate", "-org", "acme", "-steps", "contacts-slots")
	results, _ := one["results"].([]any)
	if len(results) != 1 || field(results[0].(map[string]any), "step") != "contacts-slots" || field(results[0].(map[string]any), "changed") != float64(0) {
		t.Fatalf("migrate -org acme printed %v", one)
	}
	admin(t, 2, "migrate", "-steps", "no-such-step")
}

// TestTopUpRerun: an operator whose top-up timed out runs the same command
// again with the same -request-id; the credits are added once, the re-run
// prints the first run's ledger entry, and the ledger sums to the balance.
func TestTopUpRerun(t *testing.T) {
	t.Setenv("TABLE_NAME", testenv.Table(t))
	admin(t, 0, "create-org", "-id", "acme", "-name", "Acme Inc", "-credits", "500")

	first := admin(t, 0, "top-up", "-org", "acme", "-credits", "250", "-reason", "invoice 42", "-request-id", "inv-42")
	if first["requestId"] != "inv-42" || first["replayed"] != false || field(first, "wallet", "balance") != float64(750) {
		t.Fatalf("top-up printed %v; want inv-42 applied, balance 750", first)
	}
	again := admin(t, 0, "top-up", "-org", "acme", "-credits", "250", "-reason", "invoice 42", "-request-id", "inv-42")
	if again["replayed"] != true || field(again, "wallet", "balance") != float64(750) ||
		field(again, "ledgerEntry", "entryId") != field(first, "ledgerEntry", "entryId") {
		t.Fatalf("re-run printed %v; want a replay of %v, balance 750", again, field(first, "ledgerEntry", "entryId"))
	}

	cases := []struct {
		name string
		want int
		args []string
	}{
		{"other credits under a used id", 1, []string{"-credits", "300", "-reason", "invoice 42", "-request-id", "inv-42"}},
		{"request id with a space", 2, []string{"-credits", "250", "-request-id", "inv 42"}},
		{"request id too long", 2, []string{"-credits", "250", "-request-id", strings.Repeat("x", 129)}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			admin(t, tt.want, append([]string{"top-up", "-org", "acme"}, tt.args...)...)
		})
	}

	// Without -request-id every run is a new top-up, and says which id to
	// re-run with.
	fresh := admin(t, 0, "top-up", "-org", "acme", "-credits", "10")
	if id, _ := fresh["requestId"].(string); id == "" || id == "inv-42" || field(fresh, "wallet", "balance") != float64(760) {
		t.Fatalf("top-up without -request-id printed %v; want a new id, balance 760", fresh)
	}

	verified := admin(t, 0, "verify-ledger", "-org", "acme")
	if verified["balance"] != float64(760) || verified["ledgerSum"] != float64(760) || verified["entries"] != float64(3) {
		t.Errorf("verify-ledger printed %v; want 760 = 760 over 3 entries", verified)
	}
}

// lostAnswerDB commits every TransactWriteItems and then reports a
// timeout, as a lost answer does.
type lostAnswerDB struct{ dynamo.DB }

func (l lostAnswerDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if _, err := l.DB.TransactWriteItems(ctx, in, opts...); err != nil {
		return nil, err
	}
	return nil, errors.New("read tcp: i/o timeout")
}

// TestTopUpTimeoutNamesTheRequestID: a top-up whose outcome is unknown
// tells the operator the request id that finishes it safely, and running
// with it adds nothing more.
func TestTopUpTimeoutNamesTheRequestID(t *testing.T) {
	table := testenv.Table(t)
	t.Setenv("TABLE_NAME", table)
	ctx := context.Background()
	admin(t, 0, "create-org", "-id", "acme", "-name", "Acme Inc", "-credits", "500")

	lost := dynamo.New(lostAnswerDB{testenv.Client(t)}, table)
	_, err := execute(ctx, lost, "top-up", options{orgID: "acme", credits: 100, reason: "invoice 43"})
	if err == nil {
		t.Fatal("the lost answer was not reported")
	}
	m := regexp.MustCompile(`-request-id (\S+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error %q names no request id to re-run with", err)
	}
	again := admin(t, 0, "top-up", "-org", "acme", "-credits", "100", "-reason", "invoice 43", "-request-id", m[1])
	if again["replayed"] != true || field(again, "wallet", "balance") != float64(600) {
		t.Fatalf("re-run printed %v; want a replay, balance 600", again)
	}
	if verified := admin(t, 0, "verify-ledger", "-org", "acme"); verified["ok"] != true || verified["balance"] != float64(600) {
		t.Errorf("verify-ledger printed %v; want 600, ok", verified)
	}
}

// TestStrayArgumentsRefused: an argument the command would ignore is
// refused before anything is written. Go's flag parsing stops at the first
// non-flag, so an unquoted reason used to drop the -request-id after it and
// add the credits under a new id.
func TestStrayArgumentsRefused(t *testing.T) {
	t.Setenv("TABLE_NAME", testenv.Table(t))
	admin(t, 0, "create-org", "-id", "acme", "-name", "Acme Inc", "-credits", "500")
	cases := []struct {
		name string
		args []string
	}{
		{"unquoted reason before -request-id", []string{"top-up", "-org", "acme", "-credits", "100", "-reason", "invoice", "42", "-request-id", "inv-42"}},
		{"argument after the flags", []string{"top-up", "-org", "acme", "-credits", "100", "now"}},
		{"flag of another command", []string{"top-up", "-org", "acme", "-credits", "100", "-key-id", "01J"}},
		{"flag verify-ledger does not read", []string{"verify-ledger", "-org", "acme", "-credits", "5"}},
		{"second organization name", []string{"create-org", "-id", "globex", "-name", "Globex", "Corp"}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			admin(t, 2, tt.args...)
		})
	}
	if shown := admin(t, 0, "show-org", "-org", "acme"); field(shown, "wallet", "balance") != float64(500) {
		t.Errorf("show-org printed %v; want the balance untouched at 500", shown)
	}
	admin(t, 1, "show-org", "-org", "globex")
}

// TestSaysWhichTable: every run names the table and where it is, so an
// operator sees a DYNAMODB_ENDPOINT left over from local work before
// trusting a result as production's.
func TestSaysWhichTable(t *testing.T) {
	table := testenv.Table(t)
	t.Setenv("TABLE_NAME", table)
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"create-org", "-id", "acme", "-name", "Acme Inc"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "admin: table " + table + " at " + mustConfig(t).Endpoint; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q; want it to say %q", stderr.String(), want)
	}
}
