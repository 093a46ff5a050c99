// Command deployhook is the canary's lifecycle hook, deployed twice
// (template.yaml's PreTrafficHookFunction and PostTrafficHookFunction, told
// apart by HOOK_PHASE): CodeDeploy invokes it in every function's
// deployment, and it invokes the new version through its smoke probes
// (shared/deployhook) and reports the outcome.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/giftcampaign/service/shared/awsenv"
	"github.com/giftcampaign/service/shared/deployhook"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	phase, err := deployhook.ParsePhase(os.Getenv("HOOK_PHASE"))
	if err != nil {
		log.Error("start deploy hook", slog.String("error", err.Error()))
		os.Exit(1)
	}
	cfg, err := awsenv.Lambda()
	if err != nil {
		log.Error("start deploy hook", slog.String("error", err.Error()))
		os.Exit(1)
	}
	h := &deployhook.Hook{
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
