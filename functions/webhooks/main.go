// Command webhooks is the Lambda function of the webhooks resource group (webhook endpoints and the change feed).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
)

func main() {
	// Creating and rotating an endpoint seals its secret, and the test
	// message opens it: the KMS client.
	h, err := web.Handler(context.Background(), httpapi.Webhooks, web.Core(app.WithSecrets(kmssecrets.New)))
	if err != nil {
		slog.Error("start webhooks function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
