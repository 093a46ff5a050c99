// Command pages is the Lambda function of the recipient pages: the public
// landing and claim pages, reachable only through their page ids.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app/site"
)

func main() {
	h, err := site.Handler(context.Background())
	if err != nil {
		slog.Error("start pages function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
