package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cftypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	logtypes "github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// The table is a real one in DynamoDB Local, created from template.yaml
// and deletion-protected as in AWS. DynamoDB Local has no tagging, so its
// client answers ListTagsOfResource from the test; CloudFormation, SQS and
// CloudWatch Logs, which no emulator here provides, are fakes that record
// what was deleted.

// taggedTables is DynamoDB Local with the CloudFormation tag of each table.
type taggedTables struct {
	*dynamodb.Client
	owner map[string]string // table ARN → stack
}

func (t taggedTables) ListTagsOfResource(_ context.Context, in *dynamodb.ListTagsOfResourceInput, _ ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error) {
	out := &dynamodb.ListTagsOfResourceOutput{}
	if stack, ok := t.owner[aws.ToString(in.ResourceArn)]; ok {
		out.Tags = []ddbtypes.Tag{{Key: aws.String(stackTag), Value: aws.String(stack)}, {Key: aws.String("service"), Value: aws.String("gift-campaign-service")}}
	}
	return out, nil
}

type fakeStacks struct {
	mu      sync.Mutex
	status  cftypes.StackStatus // "" means no stack
	deleted bool
}

func (f *fakeStacks) DescribeStacks(_ context.Context, in *cloudformation.DescribeStacksInput, _ ...func(*cloudformation.Options)) (*cloudformation.DescribeStacksOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.status == "" {
		return nil, errors.New("api error ValidationError: Stack with id " + aws.ToString(in.StackName) + " does not exist")
	}
	return &cloudformation.DescribeStacksOutput{Stacks: []cftypes.Stack{{StackName: in.StackName, StackStatus: f.status}}}, nil
}

func (f *fakeStacks) DeleteStack(context.Context, *cloudformation.DeleteStackInput, ...func(*cloudformation.Options)) (*cloudformation.DeleteStackOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status, f.deleted = "", true
	return &cloudformation.DeleteStackOutput{}, nil
}

type fakeQueues struct {
	messages map[string]string // queue name → ApproximateNumberOfMessages
	deleted  []string
}

func (f *fakeQueues) GetQueueUrl(_ context.Context, in *sqs.GetQueueUrlInput, _ ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error) {
	if _, ok := f.messages[aws.ToString(in.QueueName)]; !ok {
		return nil, &sqstypes.QueueDoesNotExist{Message: aws.String("The specified queue does not exist.")}
	}
	return &sqs.GetQueueUrlOutput{QueueUrl: aws.String("https://sqs.test/123456789012/" + aws.ToString(in.QueueName))}, nil
}

func (f *fakeQueues) GetQueueAttributes(_ context.Context, in *sqs.GetQueueAttributesInput, _ ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error) {
	name := aws.ToString(in.QueueUrl)[strings.LastIndex(aws.ToString(in.QueueUrl), "/")+1:]
	return &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"ApproximateNumberOfMessages": f.messages[name], "ApproximateNumberOfMessagesNotVisible": "0", "ApproximateNumberOfMessagesDelayed": "0"}}, nil
}

func (f *fakeQueues) DeleteQueue(_ context.Context, in *sqs.DeleteQueueInput, _ ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error) {
	f.deleted = append(f.deleted, aws.ToString(in.QueueUrl))
	return &sqs.DeleteQueueOutput{}, nil
}

type fakeLogs struct {
	groups  []string
	deleted []string
}

func (f *fakeLogs) DescribeLogGroups(_ context.Context, in *cloudwatchlogs.DescribeLogGroupsInput, _ ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.DescribeLogGroupsOutput, error) {
	out := &cloudwatchlogs.DescribeLogGroupsOutput{}
	for _, g := range f.groups {
		if strings.HasPrefix(g, aws.ToString(in.LogGroupNamePrefix)) {
			out.LogGroups = append(out.LogGroups, logtypes.LogGroup{LogGroupName: aws.String(g)})
		}
	}
	return out, nil
}

func (f *fakeLogs) DeleteLogGroup(_ context.Context, in *cloudwatchlogs.DeleteLogGroupInput, _ ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.DeleteLogGroupOutput, error) {
	f.deleted = append(f.deleted, aws.ToString(in.LogGroupName))
	return &cloudwatchlogs.DeleteLogGroupOutput{}, nil
}

// leftovers is what a failed first create of one stage left: its table
// (owned by owner, with an item when data), a retained job queue, the log
// group Lambda made for the worker invoked before its own group existed.
type leftovers struct {
	cleanup *Cleanup
	stacks  *fakeStacks
	queues  *fakeQueues
	logs    *fakeLogs
	table   string
	out     *bytes.Buffer
}

func leftoversOf(t *testing.T, status cftypes.StackStatus, owner string, data bool) leftovers {
	t.Helper()
	ctx := context.Background()
	stage := "t" + strings.ToLower(gifting.NewID())[:12]
	table := "gift-campaigns-" + stage
	client := testenv.Client(t)
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := localstack.CreateTable(ctx, client, root, table, localstack.WithoutStream()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &table, DeletionProtectionEnabled: aws.Bool(false)})
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: &table})
	})
	if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &table, DeletionProtectionEnabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if data {
		_, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: map[string]ddbtypes.AttributeValue{
			"PK": &ddbtypes.AttributeValueMemberS{Value: "ORG#acme"}, "SK": &ddbtypes.AttributeValueMemberS{Value: "WALLET"}}})
		if err != nil {
			t.Fatal(err)
		}
	}
	d, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	l := leftovers{
		stacks: &fakeStacks{status: status},
		queues: &fakeQueues{messages: map[string]string{table + "-jobs": "0"}},
		logs:   &fakeLogs{groups: []string{"/aws/lambda/" + table + "-worker", "/aws/lambda/gift-campaigns-other-worker"}},
		table:  table,
		out:    &bytes.Buffer{},
	}
	l.cleanup = &Cleanup{Stack: "gift-campaign-service", Stage: stage, Poll: time.Millisecond, Timeout: time.Minute, Out: l.out,
		CloudFormation: l.stacks, SQS: l.queues, Logs: l.logs,
		DynamoDB: taggedTables{Client: client, owner: map[string]string{aws.ToString(d.Table.TableArn): owner}}}
	return l
}

// tableExists reports whether the table is still in DynamoDB Local.
func (l leftovers) tableExists(t *testing.T) bool {
	t.Helper()
	_, err := testenv.Client(t).DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: &l.table})
	var missing *ddbtypes.ResourceNotFoundException
	if errors.As(err, &missing) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// TestUndeployRemovesAFailedCreatesLeftovers: after a rolled-back first
// create, the stack, its empty protected table, the retained queue and the
// stage's fixed-name log group are removed, and nothing of another stage.
func TestUndeployRemovesAFailedCreatesLeftovers(t *testing.T) {
	t.Parallel()
	for _, status := range failedCreate {
		t.Run(string(status), func(t *testing.T) {
			t.Parallel()
			l := leftoversOf(t, status, "gift-campaign-service", false)
			if err := l.cleanup.Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			if !l.stacks.deleted {
				t.Error("the stack was not deleted")
			}
			if l.tableExists(t) {
				t.Error("the table is still there")
			}
			if len(l.queues.deleted) != 1 || !strings.HasSuffix(l.queues.deleted[0], l.table+"-jobs") {
				t.Errorf("deleted the queues %v, want the stage's job queue", l.queues.deleted)
			}
			if !slices.Equal(l.logs.deleted, []string{"/aws/lambda/" + l.table + "-worker"}) {
				t.Errorf("deleted the log groups %v, want only the stage's worker group", l.logs.deleted)
			}
		})
	}
}

// TestUndeployRefusesWhatIsNotAFailedCreate: a stack that was created, a
// table that holds data or that another stack made, a queue with
// messages: the run stops before deleting anything.
func TestUndeployRefusesWhatIsNotAFailedCreate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		status cftypes.StackStatus
		owner  string
		data   bool
		queued string
		says   string
	}{
		{"a created stack", cftypes.StackStatusCreateComplete, "gift-campaign-service", false, "0", "is CREATE_COMPLETE"},
		{"a stack being updated", cftypes.StackStatusUpdateRollbackComplete, "gift-campaign-service", false, "0", "is UPDATE_ROLLBACK_COMPLETE"},
		{"a table holding data", cftypes.StackStatusRollbackComplete, "gift-campaign-service", true, "0", "holds data"},
		{"another stack's table", cftypes.StackStatusRollbackComplete, "gift-campaign-staging", false, "0", `made by stack "gift-campaign-staging"`},
		{"a table of no stack", "", "", false, "0", `made by stack ""`},
		{"a queue holding jobs", cftypes.StackStatusRollbackComplete, "gift-campaign-service", false, "3", "holds messages"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := leftoversOf(t, tt.status, tt.owner, tt.data)
			l.queues.messages[l.table+"-jobs"] = tt.queued
			err := l.cleanup.Run(t.Context())
			if !errors.Is(err, errRefused) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Run = %v, want a refusal saying %q", err, tt.says)
			}
			if l.stacks.deleted || !l.tableExists(t) || len(l.queues.deleted) > 0 || len(l.logs.deleted) > 0 {
				t.Errorf("deleted something: stack %v, table gone %v, queues %v, log groups %v",
					l.stacks.deleted, !l.tableExists(t), l.queues.deleted, l.logs.deleted)
			}
			_, err = testenv.Client(t).DeleteTable(t.Context(), &dynamodb.DeleteTableInput{TableName: &l.table})
			if err == nil || !strings.Contains(err.Error(), "protected against deletion") {
				t.Errorf("the table's deletion protection is off: delete answered %v", err)
			}
		})
	}
}

// TestUndeployDryRunDeletesNothing: -dry-run says what it would delete.
func TestUndeployDryRunDeletesNothing(t *testing.T) {
	t.Parallel()
	l := leftoversOf(t, cftypes.StackStatusRollbackComplete, "gift-campaign-service", false)
	l.cleanup.DryRun = true
	if err := l.cleanup.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if l.stacks.deleted || !l.tableExists(t) || len(l.queues.deleted) > 0 || len(l.logs.deleted) > 0 {
		t.Error("a dry run deleted something")
	}
	for _, want := range []string{"would delete stack gift-campaign-service", "would turn off deletion protection of table " + l.table,
		"would delete queue", "would delete log group /aws/lambda/" + l.table + "-worker"} {
		if !strings.Contains(l.out.String(), want) {
			t.Errorf("the dry run does not say %q:\n%s", want, l.out)
		}
	}
}

// TestUndeployAgainFindsNothing: once the leftovers are gone (or were
// never there), a run deletes nothing and succeeds.
func TestUndeployAgainFindsNothing(t *testing.T) {
	t.Parallel()
	l := leftoversOf(t, cftypes.StackStatusRollbackComplete, "gift-campaign-service", false)
	if err := l.cleanup.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.queues.messages, l.logs.groups, l.queues.deleted, l.logs.deleted = nil, nil, nil, nil
	if err := l.cleanup.Run(t.Context()); err != nil {
		t.Fatalf("a second run: %v", err)
	}
	if len(l.queues.deleted) > 0 || len(l.logs.deleted) > 0 {
		t.Error("a second run deleted something")
	}
}
