// Command contacts is the Lambda function of the contacts resource group.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/s3files"
	"github.com/giftcampaign/service/shared/app/sqsjobs"
	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
)

func main() {
	h, err := web.Handler(context.Background(), httpapi.Contacts, web.Core(app.WithQueue(sqsjobs.New),
		app.WithLocalJobs((*service.Service).RunContactJobs), app.WithFiles(s3files.New),
		app.WithSuppressionKey(kmssecrets.NewSuppression))) // the suppression list keys its addresses
	if err != nil {
		slog.Error("start contacts function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
