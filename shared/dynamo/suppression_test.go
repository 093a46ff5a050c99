package dynamo_test

import (
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/testenv"
)

func TestSuppression(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := testenv.Store(t)
	acme, _ := testenv.Org(t, s, "acme", 0)
	other, _ := testenv.Org(t, s, "other", 0)
	if err := s.Suppress(ctx, acme, " Jane.Doe@Example.com", "bounced"); err != nil {
		t.Fatal(err)
	}
	// Again, for another reason: idempotent, and the first reason stays.
	if err := s.Suppress(ctx, acme, "jane.doe@example.com", "unsubscribed"); err != nil {
		t.Fatalf("suppressing again: %v", err)
	}

	tests := []struct {
		name, org, email string
		want             bool
	}{
		{name: "same address", org: acme, email: "jane.doe@example.com", want: true},
		{name: "other case", org: acme, email: "JANE.DOE@EXAMPLE.COM", want: true},
		{name: "other address", org: acme, email: "john@example.com", want: false},
		{name: "other organization", org: other, email: "jane.doe@example.com", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.IsSuppressed(ctx, tt.org, tt.email)
			if err != nil || got != tt.want {
				t.Fatalf("IsSuppressed(%s) = %v, %v; want %v", tt.email, got, err, tt.want)
			}
		})
	}

	t.Run("stored once, key without the address", func(t *testing.T) {
		out, err := testenv.Client(t).Query(ctx, &dynamodb.QueryInput{
			TableName:              aws.String(s.Table()),
			KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":pk": &types.AttributeValueMemberS{Value: "ORG#" + acme},
				":p":  &types.AttributeValueMemberS{Value: "SUPPRESS#"},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Items) != 1 {
			t.Fatalf("%d suppression items; want 1", len(out.Items))
		}
		it := out.Items[0]
		sk := it["SK"].(*types.AttributeValueMemberS).Value
		if strings.Contains(strings.ToLower(sk), "jane") || strings.Contains(sk, "@") {
			t.Errorf("key %q carries the address", sk)
		}
		if r := it["reason"].(*types.AttributeValueMemberS).Value; r != "bounced" {
			t.Errorf("reason = %q; want the first one, bounced", r)
		}
		if e := it["email"].(*types.AttributeValueMemberS).Value; e != "jane.doe@example.com" {
			t.Errorf("email = %q; want it lower-cased and trimmed", e)
		}
	})

	t.Run("address and reason required", func(t *testing.T) {
		if err := s.Suppress(ctx, acme, " ", "bounced"); err == nil {
			t.Error("Suppress with no address succeeded")
		}
		if err := s.Suppress(ctx, acme, "a@example.com", ""); err == nil {
			t.Error("Suppress with no reason succeeded")
		}
	})
}
