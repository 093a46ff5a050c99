// Command worker is the Lambda function that runs background work: job
// slices from the jobs queue (campaign launches, audience builds), the
// scheduler's tick from its EventBridge schedule (launches whose job
// stopped, scheduled emails), and SES's bounces and complaints from the
// mail-events SNS topic, and the table's stream of change records (webhook
// deliveries).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/s3files"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/app/sqsjobs"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
)

func main() {
	ctx := context.Background()
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		slog.Error("start worker", slog.String("error", err.Error()))
		os.Exit(1)
	}
	svc, queue, sched, err := app.NewWorker(ctx, cfg, app.WithQueue(sqsjobs.New), app.WithLocalJobs((*service.Service).RunJob), app.WithMailer(sesmail.New),
		app.WithSecrets(kmssecrets.New),                   // deliveries open the endpoints' sealed secrets
		app.WithCodeSecrets(kmssecrets.NewCodes),          // a delivered email opens its code, for an organization that opted in
		app.WithSuppressionKey(kmssecrets.NewSuppression), // sends, bounces and erasure key suppressed addresses
		app.WithFiles(s3files.New))                        // imports read their uploaded files
	if err != nil {
		slog.Error("start worker", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(jobs.WithChanges(jobs.WorkerHandler(svc.RunJob, queue, sched.Tick, svc.HandleMailEvents, slog.Default()), app.ChangeStreamHandler(svc)))
}
