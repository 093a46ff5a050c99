// Command worker is the Lambda function that runs background work: job
// slices from the jobs queue (campaign launches, audience builds), the
// scheduler's tick from its EventBridge schedule (launches whose job
// stopped) and the table's stream of change records (webhook deliveries).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/jobs"
)

func main() {
	ctx := context.Background()
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		slog.Error("start worker", slog.String("error", err.Error()))
		os.Exit(1)
	}
	svc, queue, sched, err := app.NewWorker(ctx, cfg)
	if err != nil {
		slog.Error("start worker", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(jobs.WithChanges(jobs.WorkerHandler(svc.RunJob, queue, sched.Tick, slog.Default()), app.ChangeStreamHandler(svc)))
}
