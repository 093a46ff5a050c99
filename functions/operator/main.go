// Command operator is the Lambda function of the operator API (/api/operator/...): organizations,
// their first admin key, top-ups, rate limits and usage. template.yaml creates it only with
// OperatorApi=on, behind API Gateway's AWS_IAM authorizer (docs/operator.md).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
)

func main() {
	// No token: the handler serves only the requests API Gateway's IAM authorizer signed in.
	h, err := web.Handler(context.Background(), httpapi.Operator)
	if err != nil {
		slog.Error("start operator function", slog.String("error", err.Error()))
		os.Exit(1)
	}
	lambda.Start(httpadapter.NewV2(h).ProxyWithContext)
}
