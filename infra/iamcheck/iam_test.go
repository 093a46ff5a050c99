package main

import (
	"testing"
)

// TestResourceMatches applies IAM's wildcard rules for resources: * and ?
// within an ARN segment (between colons), a * that ends a segment reaching
// past the colons after it, case kept.
func TestResourceMatches(t *testing.T) {
	table := "arn:aws:dynamodb:us-east-1:123456789012:table/gift-campaigns-prod"
	for _, tt := range []struct {
		pattern, arn string
		want         bool
	}{
		{"*", table + "/index/Slim", true},
		{table, table, true},
		{table, table + "/index/Slim", false},
		{table + "/index/*", table + "/index/Slim", true},
		{table + "/index/*", table, false},
		{table + "/index/S?im", table + "/index/Slim", true},
		{table + "/index/slim", table + "/index/Slim", false},
		{"arn:aws:dynamodb:*:123456789012:table/gift-campaigns-prod", table, true},
		// A * inside a segment stays in it; one that ends a segment may
		// reach past its colon.
		{"arn:aws:dynamodb:us-*-1:table/gift-campaigns-prod", table, false},
		{"arn:aws:dynamodb:us-*:table/gift-campaigns-prod", table, true},
		{"arn:aws:dynamodb:us-east-?:123456789012:table/gift-campaigns-prod", table, true},
		{"arn:aws:dynamodb:us-east-1:123456789012:table/*", table + "/stream/2000-01-01T00:00:00.000", true},
		{"arn:aws:sqs:us-east-1:123456789012:gift-campaigns-prod-jobs", "arn:aws:sqs:us-east-1:123456789012:gift-campaigns-prod-jobs-dlq", false},
		{"arn:aws:sqs:*", "arn:aws:sqs:us-east-1:123456789012:q", true},
		{"arn:aws:lambda:us-east-1:123456789012:function:f", "arn:aws:lambda:us-east-1:123456789012:function:f:live", false},
	} {
		if got := resourceMatches(tt.pattern, tt.arn); got != tt.want {
			t.Errorf("resourceMatches(%q, %q) = %v, want %v", tt.pattern, tt.arn, got, tt.want)
		}
	}
}

// TestActionMatches: actions compare without regard to case, with
// wildcards (SAM's SQSSendMessagePolicy grants sqs:SendMessage*).
func TestActionMatches(t *testing.T) {
	for _, tt := range []struct {
		pattern, action string
		want            bool
	}{
		{"dynamodb:Query", "dynamodb:Query", true},
		{"DynamoDB:query", "dynamodb:Query", true},
		{"dynamodb:Query", "dynamodb:PartiQLSelect", false},
		{"sqs:SendMessage*", "sqs:SendMessage", true},
		{"sqs:SendMessage*", "sqs:SendMessageBatch", true},
		{"dynamodb:*Item", "dynamodb:PutItem", true},
		{"dynamodb:*Item", "dynamodb:Query", false},
		{"*", "ses:SendEmail", true},
	} {
		if got := actionMatches(tt.pattern, tt.action); got != tt.want {
			t.Errorf("actionMatches(%q, %q) = %v, want %v", tt.pattern, tt.action, got, tt.want)
		}
	}
}

// TestDenyWins: an explicit Deny takes away what an Allow grants.
func TestDenyWins(t *testing.T) {
	arn := "arn:aws:dynamodb:us-east-1:123456789012:table/t"
	sts := []Statement{
		{Allow: true, Actions: []string{"dynamodb:*"}, Resources: []string{"*"}},
		{Allow: false, Actions: []string{"dynamodb:DeleteItem"}, Resources: []string{arn}},
	}
	if !allowed(sts, "dynamodb:GetItem", arn) || allowed(sts, "dynamodb:DeleteItem", arn) || allowed(sts[1:], "dynamodb:GetItem", arn) {
		t.Error("want GetItem allowed, DeleteItem denied, nothing allowed without an Allow")
	}
}

// TestStatementsRefuseWhatTheCheckCannotJudge: NotAction and NotResource
// turn a statement inside out; the check fails on them rather than guess.
// A condition is taken as holding, and the statement says it has one.
func TestStatementsRefuseWhatTheCheckCannotJudge(t *testing.T) {
	cond := map[string]any{"Statement": map[string]any{"Effect": "Allow", "Action": "kms:Decrypt", "Resource": "*", "Condition": map[string]any{}}}
	if sts, err := statements("P", cond); err != nil || len(sts) != 1 || !sts[0].Conditional {
		t.Errorf("a statement with a condition: %v, %v; want it read, conditional", sts, err)
	}
	for _, k := range []string{"NotAction", "NotResource"} {
		doc := map[string]any{"Statement": []any{map[string]any{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*", k: "x"}}}
		if _, err := statements("P", doc); err == nil {
			t.Errorf("a statement with %s was read", k)
		}
	}
}

// TestResolver resolves the intrinsic functions the converted template's
// policies and environments use, in a scenario's parameters.
func TestResolver(t *testing.T) {
	tpl, err := LoadTemplate("testdata/planted.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		sc   Scenario
		expr any
		want string
	}{
		{mailOff, map[string]any{"Fn::GetAtt": []any{"Table", "Arn"}}, "arn:aws:dynamodb:us-east-1:123456789012:table/gift-campaigns-prod"},
		{mailOff, map[string]any{"Fn::Sub": "${Table.Arn}/index/Slim"}, "arn:aws:dynamodb:us-east-1:123456789012:table/gift-campaigns-prod/index/Slim"},
		{mailOff, map[string]any{"Ref": "JobsQueue"}, "https://sqs.us-east-1.amazonaws.com/123456789012/gift-campaigns-prod-jobs"},
		{mailOff, map[string]any{"Fn::GetAtt": "JobsQueue.QueueName"}, "gift-campaigns-prod-jobs"},
		{mailOff, map[string]any{"Fn::Sub": []any{"${A}-${!Literal}-${AWS::Region}", map[string]any{"A": map[string]any{"Ref": "Stage"}}}}, "prod-${Literal}-us-east-1"},
		{mailOff, map[string]any{"Fn::If": []any{"SendsMail", "on", "off"}}, "off"},
		{mailOn, map[string]any{"Fn::If": []any{"SendsMail", "on", "off"}}, "on"},
		{Scenario{Params: map[string]string{"Stage": "dev"}}, map[string]any{"Ref": "Table"}, "gift-campaigns-dev"},
		{mailOff, map[string]any{"Fn::Join": []any{"/", []any{"a", map[string]any{"Ref": "Stage"}}}}, "a/prod"},
	} {
		got, err := newResolver(tpl, tt.sc).str(tt.expr)
		if err != nil || got != tt.want {
			t.Errorf("%v in %q: %q, %v; want %q", tt.expr, tt.sc.Name, got, err, tt.want)
		}
	}
	// AWS::NoValue leaves its place in a list.
	got, err := newResolver(tpl, mailOff).value([]any{"a", map[string]any{"Fn::If": []any{"SendsMail", "b", map[string]any{"Ref": "AWS::NoValue"}}}})
	if err != nil || len(got.([]any)) != 1 {
		t.Errorf("NoValue: %v, %v; want [a]", got, err)
	}
	if _, err := newResolver(tpl, mailOff).str(map[string]any{"Fn::GetAtt": []any{"Table", "Nothing"}}); err == nil {
		t.Error("an attribute the resolver does not know resolved")
	}
}
