package calls_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/giftcampaign/service/infra/iamcheck/calls"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/lambdafn"
	"github.com/giftcampaign/service/shared/testenv"
)

type brief struct{ function, op, action, kind, name string }

func briefs(t *testing.T, dir string) []brief {
	t.Helper()
	got, err := calls.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []brief
	for _, c := range got {
		out = append(out, brief{c.Function, c.Operation, c.Action, c.Resource.Kind, c.Resource.Name})
	}
	return out
}

// TestRecorderRecordsDynamoDBCalls sends real calls to DynamoDB Local
// through a client carrying the recorder: each call made under a
// function's name is written once, with the permissions IAM checks for it;
// a call under no function's name (a test's own setup) is not.
func TestRecorderRecordsDynamoDBCalls(t *testing.T) {
	t.Parallel()
	table := testenv.Table(t)
	dir := t.TempDir()
	rec := calls.New(dir)
	cfg, err := app.AWSConfig("DynamoDB Local", os.Getenv("DYNAMODB_ENDPOINT"))
	if err != nil {
		t.Fatal(err)
	}
	// This recorder alone: the test environment's (testenv.Calls) must not
	// take these made-up calls for the service's.
	cfg.APIOptions = []func(*middleware.Stack) error{rec.Middleware}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(os.Getenv("DYNAMODB_ENDPOINT")) })
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

	ctx := context.Background()
	if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]types.AttributeValue{"PK": s("a"), "SK": s("setup")}}); err != nil {
		t.Fatal(err)
	}
	worker := lambdafn.With(ctx, lambdafn.Worker)
	for range 2 { // the same calls again add nothing
		if _, err := db.Query(worker, &dynamodb.QueryInput{TableName: &table, IndexName: aws.String("Slim"),
			KeyConditionExpression: aws.String("LPK = :p"), ExpressionAttributeValues: map[string]types.AttributeValue{":p": s("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	// A transaction that fails its condition still needed its permissions.
	_, err = db.TransactWriteItems(lambdafn.With(ctx, "campaigns"), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: &table, Item: map[string]types.AttributeValue{"PK": s("a"), "SK": s("b")}}},
		{ConditionCheck: &types.ConditionCheck{TableName: &table, Key: map[string]types.AttributeValue{"PK": s("a"), "SK": s("none")},
			ConditionExpression: aws.String("attribute_exists(PK)")}},
	}})
	if err == nil {
		t.Fatal("the transaction's condition held; want it to fail")
	}

	want := []brief{
		{"campaigns", "TransactWriteItems", "dynamodb:ConditionCheckItem", "table", ""},
		{"campaigns", "TransactWriteItems", "dynamodb:PutItem", "table", ""},
		{"worker", "Query", "dynamodb:Query", "index", "Slim"},
	}
	if got := briefs(t, dir); !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != 1 {
		t.Errorf("files %v, want one of this process", files)
	}
}

// TestRecorderRecordsJobs: an enqueue is the calling function's SQS
// message, and a job slice that continues is the worker's.
func TestRecorderRecordsJobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := calls.New(dir)
	local := jobs.NewLocal(testenv.Quiet)
	q := rec.Queue(local)
	local.Start(rec.Runner(func(_ context.Context, j jobs.Job) (*jobs.Job, error) {
		if j.Cursor == "" {
			return &jobs.Job{Kind: j.Kind, Cursor: "1"}, nil
		}
		return nil, nil
	}))
	if err := q.Enqueue(lambdafn.With(context.Background(), "audiences"), jobs.Job{Kind: "k"}); err != nil {
		t.Fatal(err)
	}
	local.Wait()
	want := []brief{
		{"audiences", "SendMessage", "sqs:SendMessage", "queue", ""},
		{"worker", "SendMessage", "sqs:SendMessage", "queue", ""},
	}
	if got := briefs(t, dir); !slices.Equal(got, want) {
		t.Errorf("recorded %v, want %v", got, want)
	}
}

// TestLoadMergesProcesses: every test process writes a file of its own;
// Load reads them all, each call once.
func TestLoadMergesProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	line := `{"function":"worker","operation":"Query","action":"dynamodb:Query","resource":{"kind":"index","name":"Due"},"seen":"%s"}` + "\n"
	for _, name := range []string{"a.test-1", "b.test-2"} {
		if err := os.WriteFile(filepath.Join(dir, name+".jsonl"), []byte(fmt.Sprintf(line, name)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := calls.Load(dir)
	if err != nil || len(got) != 1 || got[0].Resource.Name != "Due" {
		t.Errorf("Load: %v, %v; want the one call", got, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.jsonl"), []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := calls.Load(dir); err == nil {
		t.Error("Load read a broken line")
	}
}
