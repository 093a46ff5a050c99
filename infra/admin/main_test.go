package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/app"
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

	store, _, err := newStore(ctx, mustConfig(t))
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
