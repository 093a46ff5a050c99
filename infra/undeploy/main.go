// Command undeploy removes what a failed first create of the stack leaves
// behind, so the next `make deploy` can create it again (make
// undeploy-failed runs it):
//
//	go run ./infra/undeploy [-stack gift-campaign-service] [-stage prod] [-dry-run]
//
// A create that fails rolls back and leaves the stack in ROLLBACK_COMPLETE,
// which cannot be updated, only deleted, and the table, which is retained
// and deletion-protected because it holds every tenant's money, under the
// fixed name gift-campaigns-<Stage> that the next create needs. Everything
// else of the stack is deleted by the rollback (the queues and the backup
// vault are RetainExceptOnCreate, the log groups have no fixed names).
//
// It checks first and deletes nothing unless all checks pass: the stack
// must be ROLLBACK_COMPLETE or ROLLBACK_FAILED (or gone), and the table
// must carry this stack's CloudFormation tag and hold no item. Then it
// deletes the stack, the table (turning its protection off), and any of
// the stage's queues and fixed-name log groups that an older template or
// an early invocation left. AWS credentials and region come from the
// usual chain (AWS_PROFILE, AWS_REGION, ...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/cloudformation"
	"github.com/aws/aws-sdk-go-v2/service/cloudwatchlogs"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, runs the cleanup and returns the exit code: 0
// done, 1 failed or refused, 2 wrong usage.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("undeploy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stack := fs.String("stack", "gift-campaign-service", "the stack whose create failed")
	stage := fs.String("stage", "prod", "its Stage parameter (the table is gift-campaigns-<stage>)")
	dryRun := fs.Bool("dry-run", false, "say what would be deleted, delete nothing")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *stack == "" || *stage == "" {
		fmt.Fprintln(stderr, "usage: undeploy [-stack NAME] [-stage STAGE] [-dry-run]")
		return 2
	}
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "undeploy:", err)
		return 1
	}
	fmt.Fprintf(stderr, "undeploy: stack %s, stage %s, region %s\n", *stack, *stage, cfg.Region)
	c := &Cleanup{
		Stack: *stack, Stage: *stage, DryRun: *dryRun, Out: stdout,
		Poll: 10 * time.Second, Timeout: 30 * time.Minute,
		CloudFormation: cloudformation.NewFromConfig(cfg),
		DynamoDB:       dynamodb.NewFromConfig(cfg),
		SQS:            sqs.NewFromConfig(cfg),
		Logs:           cloudwatchlogs.NewFromConfig(cfg),
	}
	if err := c.Run(ctx); err != nil {
		fmt.Fprintln(stderr, "undeploy:", err)
		if errors.Is(err, errRefused) {
			fmt.Fprintln(stderr, "undeploy: nothing was deleted")
		}
		return 1
	}
	return 0
}
