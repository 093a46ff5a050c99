// Command catalog is the Lambda function of the catalog resource group.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
)

func main() {
	// Uploading a digital gift's codes seals each of them (and the pool's
	// key): the KMS client.
	h, err := web.Handler(context.Background(), httpapi.Catalog, web.Docs(apidocs.New(httpapi.OpenAPIJSON())),
		web.Core(app.WithCodeSecrets(kmssecrets.NewCodes)))
	if err != nil {
		slog.Error("start catalog function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
