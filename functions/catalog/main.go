// Command catalog is the Lambda function of the catalog resource group.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
)

func main() {
	h, err := web.Handler(context.Background(), httpapi.Catalog, web.Docs(apidocs.New(httpapi.OpenAPIJSON())))
	if err != nil {
		slog.Error("start catalog function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
