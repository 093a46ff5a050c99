// Command worker is the Lambda function that runs background jobs
// (campaign launches, audience builds) from the jobs queue.
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
	srv, queue, err := app.NewServer(ctx, cfg)
	if err != nil {
		slog.Error("start worker", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(jobs.SQSHandler(srv.RunJob, queue, slog.Default()))
}
