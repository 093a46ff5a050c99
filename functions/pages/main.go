// Command pages is the Lambda function of the recipient pages: the public
// landing and claim pages, reachable only through their page ids.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app"
)

func main() {
	ctx := context.Background()
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		slog.Error("start pages function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	store, err := app.NewStore(ctx, cfg)
	if err != nil {
		slog.Error("start pages function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	h := app.PagesHandler(store, app.NewLogger(cfg.LogLevel))
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
