package deployhook

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/giftcampaign/service/shared/awsenv"
)

// Start runs the hook of phase as a Lambda function, configured from the
// environment: FUNCTION_NAME_PREFIX (the stage's function names),
// CANARY_API_KEY_PARAMETER (the canary key's SSM parameter, or empty) and
// DEPLOY_HOOK_AWS_ENDPOINT (empty in AWS; the RIE test points the hook's
// Lambda, CodeDeploy and SSM clients at its stand-in for them).
func Start(phase Phase) {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	cfg, err := awsenv.Lambda()
	if err != nil {
		log.Error("start deploy hook", slog.String("phase", string(phase)), slog.String("error", err.Error()))
		os.Exit(1)
	}
	if endpoint := os.Getenv("DEPLOY_HOOK_AWS_ENDPOINT"); endpoint != "" {
		cfg.BaseEndpoint = aws.String(endpoint)
	}
	h := &Hook{
		Phase:              phase,
		FunctionPrefix:     os.Getenv("FUNCTION_NAME_PREFIX"),
		CanaryKeyParameter: os.Getenv("CANARY_API_KEY_PARAMETER"),
		Lambda:             awslambda.NewFromConfig(cfg),
		CodeDeploy:         codedeploy.NewFromConfig(cfg),
		SSM:                ssm.NewFromConfig(cfg),
		Log:                log,
	}
	lambda.Start(h.Handle)
}
