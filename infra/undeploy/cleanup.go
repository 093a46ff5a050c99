package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	cftypes "github.com/aws/aws-sdk-go-v2/service/cloudformation/types"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// CloudFormationAPI is what the cleanup asks of CloudFormation.
type CloudFormationAPI interface {
	DescribeStacks(ctx context.Context, in *cloudformation.DescribeStacksInput, opts ...func(*cloudformation.Options)) (*cloudformation.DescribeStacksOutput, error)
	DeleteStack(ctx context.Context, in *cloudformation.DeleteStackInput, opts ...func(*cloudformation.Options)) (*cloudformation.DeleteStackOutput, error)
}

// TableAPI is what the cleanup asks of DynamoDB.
type TableAPI interface {
	DescribeTable(ctx context.Context, in *dynamodb.DescribeTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DescribeTableOutput, error)
	ListTagsOfResource(ctx context.Context, in *dynamodb.ListTagsOfResourceInput, opts ...func(*dynamodb.Options)) (*dynamodb.ListTagsOfResourceOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, opts ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
	UpdateTable(ctx context.Context, in *dynamodb.UpdateTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateTableOutput, error)
	DeleteTable(ctx context.Context, in *dynamodb.DeleteTableInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteTableOutput, error)
}

// QueueAPI is what the cleanup asks of SQS.
type QueueAPI interface {
	GetQueueUrl(ctx context.Context, in *sqs.GetQueueUrlInput, opts ...func(*sqs.Options)) (*sqs.GetQueueUrlOutput, error)
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, opts ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
	DeleteQueue(ctx context.Context, in *sqs.DeleteQueueInput, opts ...func(*sqs.Options)) (*sqs.DeleteQueueOutput, error)
}

// LogsAPI is what the cleanup asks of CloudWatch Logs.
type LogsAPI interface {
	DescribeLogGroups(ctx context.Context, in *cloudwatchlogs.DescribeLogGroupsInput, opts ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.DescribeLogGroupsOutput, error)
	DeleteLogGroup(ctx context.Context, in *cloudwatchlogs.DeleteLogGroupInput, opts ...func(*cloudwatchlogs.Options)) (*cloudwatchlogs.DeleteLogGroupOutput, error)
}

// Cleanup removes what a failed first create of the stack left behind.
type Cleanup struct {
	Stack, Stage   string
	CloudFormation CloudFormationAPI
	DynamoDB       TableAPI
	SQS            QueueAPI
	Logs           LogsAPI
	// Poll is how often the stack's deletion is checked; Timeout bounds
	// the wait.
	Poll, Timeout time.Duration
	// DryRun says what would be done and does nothing.
	DryRun bool
	Out    io.Writer
}

// errRefused is a leftover the cleanup will not remove: the run stops
// before anything is deleted.
var errRefused = errors.New("refused")

// failedCreate is the stack states a failed first create leaves: the
// rollback done (or failed), the stack kept only so its events can be read.
var failedCreate = []cftypes.StackStatus{cftypes.StackStatusRollbackComplete, cftypes.StackStatusRollbackFailed}

// stackTag is the tag CloudFormation puts on the resources it makes.
const stackTag = "aws:cloudformation:stack-name"

// Run checks everything first and deletes nothing unless every check
// passes: the stack must be a failed create (or gone), and the table (the
// one leftover that may hold money) must be this stack's and empty. Then
// it deletes the stack, the table, the queues and the log groups of the
// stage that remain.
func (c *Cleanup) Run(ctx context.Context) error {
	status, err := c.stackStatus(ctx)
	if err != nil {
		return err
	}
	if status != "" && !slices.Contains(failedCreate, status) {
		return fmt.Errorf("%w: stack %s is %s; this removes only what a failed first create leaves (ROLLBACK_COMPLETE, ROLLBACK_FAILED)", errRefused, c.Stack, status)
	}
	table := "gift-campaigns-" + c.Stage
	tableFound, err := c.checkTable(ctx, table)
	if err != nil {
		return err
	}
	queues, err := c.emptyQueues(ctx)
	if err != nil {
		return err
	}
	groups, err := c.logGroups(ctx)
	if err != nil {
		return err
	}
	if status != "" {
		if err := c.deleteStack(ctx); err != nil {
			return err
		}
	}
	if tableFound {
		if err := c.deleteTable(ctx, table); err != nil {
			return err
		}
	}
	for _, q := range queues {
		c.say("delete queue %s", q)
		if !c.DryRun {
			if _, err := c.SQS.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(q)}); err != nil {
				return fmt.Errorf("delete queue %s: %w", q, err)
			}
		}
	}
	for _, g := range groups {
		c.say("delete log group %s", g)
		if !c.DryRun {
			if _, err := c.Logs.DeleteLogGroup(ctx, &cloudwatchlogs.DeleteLogGroupInput{LogGroupName: aws.String(g)}); err != nil {
				return fmt.Errorf("delete log group %s: %w", g, err)
			}
		}
	}
	c.say("done: a new create of %s (Stage=%s) will not collide with leftovers", c.Stack, c.Stage)
	return nil
}

func (c *Cleanup) say(format string, args ...any) {
	if c.DryRun {
		format = "would " + format
	}
	fmt.Fprintf(c.Out, format+"\n", args...)
}

// stackStatus is the stack's status, or "" when there is no such stack.
func (c *Cleanup) stackStatus(ctx context.Context) (cftypes.StackStatus, error) {
	out, err := c.CloudFormation.DescribeStacks(ctx, &cloudformation.DescribeStacksInput{StackName: aws.String(c.Stack)})
	if err != nil {
		// CloudFormation answers a missing stack with a ValidationError.
		if strings.Contains(err.Error(), "does not exist") {
			return "", nil
		}
		return "", fmt.Errorf("describe stack %s: %w", c.Stack, err)
	}
	if len(out.Stacks) == 0 || out.Stacks[0].StackStatus == cftypes.StackStatusDeleteComplete {
		return "", nil
	}
	return out.Stacks[0].StackStatus, nil
}

// checkTable reports whether the stage's table exists, and refuses one
// another stack made or one holding any item: a failed first create's
// table is this stack's and empty (nobody had a key to write with).
func (c *Cleanup) checkTable(ctx context.Context, table string) (bool, error) {
	d, err := c.DynamoDB.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var missing *ddbtypes.ResourceNotFoundException
	if errors.As(err, &missing) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("describe table %s: %w", table, err)
	}
	tags, err := c.DynamoDB.ListTagsOfResource(ctx, &dynamodb.ListTagsOfResourceInput{ResourceArn: d.Table.TableArn})
	if err != nil {
		return false, fmt.Errorf("read the tags of table %s: %w", table, err)
	}
	owner := ""
	for _, t := range tags.Tags {
		if aws.ToString(t.Key) == stackTag {
			owner = aws.ToString(t.Value)
		}
	}
	if owner != c.Stack {
		return false, fmt.Errorf("%w: table %s was made by stack %q, not %s: not this create's leftover", errRefused, table, owner, c.Stack)
	}
	items, err := c.DynamoDB.Scan(ctx, &dynamodb.ScanInput{TableName: aws.String(table), Limit: aws.Int32(1), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return false, fmt.Errorf("read table %s: %w", table, err)
	}
	if len(items.Items) > 0 {
		return false, fmt.Errorf("%w: table %s holds data: keep it (deploy with the same Stage to use it) or delete it yourself", errRefused, table)
	}
	return true, nil
}

// emptyQueues returns the URLs of the stage's queues that remain (an older
// template retained them on a failed create), refusing any that holds a
// message.
func (c *Cleanup) emptyQueues(ctx context.Context) ([]string, error) {
	var urls []string
	for _, suffix := range []string{"jobs", "jobs-dlq", "changes-dlq", "mail-events-dlq"} {
		name := "gift-campaigns-" + c.Stage + "-" + suffix
		q, err := c.SQS.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
		var missing *sqstypes.QueueDoesNotExist
		if errors.As(err, &missing) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("find queue %s: %w", name, err)
		}
		attrs, err := c.SQS.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{
			sqstypes.QueueAttributeNameApproximateNumberOfMessages, sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
			sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed}})
		if err != nil {
			return nil, fmt.Errorf("read queue %s: %w", name, err)
		}
		for attr, n := range attrs.Attributes {
			if n != "0" {
				return nil, fmt.Errorf("%w: queue %s holds messages (%s %s)", errRefused, name, attr, n)
			}
		}
		urls = append(urls, aws.ToString(q.QueueUrl))
	}
	return urls, nil
}

// logGroups returns the stage's log groups under fixed names that remain:
// the ones Lambda made itself for a function invoked before its group
// existed, and the fixed-name groups of older templates.
func (c *Cleanup) logGroups(ctx context.Context) ([]string, error) {
	var names []string
	for _, prefix := range []string{"/aws/lambda/gift-campaigns-" + c.Stage + "-", "/aws/lambda/CodeDeployHook_gift-campaigns-" + c.Stage + "-",
		"/gift-campaigns/" + c.Stage + "/"} {
		p := cloudwatchlogs.NewDescribeLogGroupsPaginator(c.Logs, &cloudwatchlogs.DescribeLogGroupsInput{LogGroupNamePrefix: aws.String(prefix)})
		for p.HasMorePages() {
			page, err := p.NextPage(ctx)
			if err != nil {
				return nil, fmt.Errorf("list log groups %s*: %w", prefix, err)
			}
			for _, g := range page.LogGroups {
				names = append(names, aws.ToString(g.LogGroupName))
			}
		}
	}
	return names, nil
}

// deleteStack deletes the failed stack and waits until it is gone.
func (c *Cleanup) deleteStack(ctx context.Context) error {
	c.say("delete stack %s", c.Stack)
	if c.DryRun {
		return nil
	}
	if _, err := c.CloudFormation.DeleteStack(ctx, &cloudformation.DeleteStackInput{StackName: aws.String(c.Stack)}); err != nil {
		return fmt.Errorf("delete stack %s: %w", c.Stack, err)
	}
	deadline := time.Now().Add(c.Timeout)
	for {
		status, err := c.stackStatus(ctx)
		if err != nil {
			return err
		}
		switch {
		case status == "":
			return nil
		case status == cftypes.StackStatusDeleteFailed:
			return fmt.Errorf("stack %s is DELETE_FAILED: read its events (aws cloudformation describe-stack-events --stack-name %s)", c.Stack, c.Stack)
		case time.Now().After(deadline):
			return fmt.Errorf("stack %s is still %s after %s", c.Stack, status, c.Timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(c.Poll):
		}
	}
}

// deleteTable turns the table's deletion protection off and deletes it.
func (c *Cleanup) deleteTable(ctx context.Context, table string) error {
	c.say("turn off deletion protection of table %s (empty) and delete it", table)
	if c.DryRun {
		return nil
	}
	if _, err := c.DynamoDB.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(table), DeletionProtectionEnabled: aws.Bool(false)}); err != nil {
		return fmt.Errorf("turn off deletion protection of %s: %w", table, err)
	}
	// A table being updated cannot be deleted: wait for it to be ACTIVE.
	if err := dynamodb.NewTableExistsWaiter(c.DynamoDB).Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, c.Timeout); err != nil {
		return fmt.Errorf("wait for table %s: %w", table, err)
	}
	if _, err := c.DynamoDB.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)}); err != nil {
		return fmt.Errorf("delete table %s: %w", table, err)
	}
	return nil
}
