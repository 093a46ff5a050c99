// Command recipients is the Lambda function of the recipients resource group.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
)

func main() {
	h, err := web.Handler(context.Background(), httpapi.Recipients, web.Core(app.WithMailer(sesmail.New),
		app.WithSuppressionKey(kmssecrets.NewSuppression))) // add-recipient looks its address up on the suppression list
	if err != nil {
		slog.Error("start recipients function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
