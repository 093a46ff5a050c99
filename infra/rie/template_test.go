package rie_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/rie"
)

// A template with the intrinsics a function's settings use, in both forms.
const sampleTemplate = `
Parameters:
  Stage: {Type: String, Default: prod}
  SenderAddress: {Type: String, Default: ""}
Conditions:
  SendsMail: !Not [!Equals [!Ref SenderAddress, ""]]
  SendsFromProd: !And [!Condition SendsMail, !Equals [!Ref Stage, prod]]
Globals:
  Function:
    MemorySize: 256
    Timeout: 29
    Environment:
      Variables:
        TABLE_NAME: !Ref Table
        QUEUE_URL: !Ref Jobs
        REGION_NAME: !Sub "${Stage}-${AWS::Region}"
        CONFIG_SET: !If [SendsMail, !Sub "mail-${Stage}", ""]
        FROM_PROD: {"Fn::If": [SendsFromProd, "yes", "no"]}
        LEVEL: INFO
Resources:
  Table:
    Type: AWS::DynamoDB::Table
    Properties: {TableName: !Sub "gifts-${Stage}"}
  Jobs:
    Type: AWS::SQS::Queue
    Properties: {QueueName: !Sub "gifts-${Stage}-jobs"}
  ApiFunction:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: !Sub "gifts-${Stage}-api"
      Environment: {Variables: {LEVEL: DEBUG, LISTED: !Join [",", [a, !Ref Stage]]}}
      DeploymentPreference:
        Hooks: {PreTraffic: !Ref HookFunction}
      Events:
        Wallet: {Type: HttpApi, Properties: {Method: GET, Path: /api/wallet}}
        Item: {Type: HttpApi, Properties: {Method: GET, Path: "/api/{id}"}}
  HookFunction:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: gifts-hook
  WorkerFunction:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: !Sub ["gifts-${S}-worker", {S: !Ref Stage}]
      Timeout: 150
      Events:
        Tick: {Type: Schedule, Properties: {Schedule: rate(1 minute)}}
  Subscription:
    Type: AWS::SNS::Subscription
    Properties: {Protocol: lambda, Endpoint: !Ref WorkerFunction.Alias}
`

func loadSample(t *testing.T, text string, params, refs map[string]string) ([]rie.Function, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "template.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpl, err := rie.LoadTemplate(dir, params, refs)
	if err != nil {
		return nil, err
	}
	return tmpl.Functions()
}

func TestTemplateFunctionsAsDeployed(t *testing.T) {
	t.Parallel()
	fns, err := loadSample(t, sampleTemplate, map[string]string{"Stage": "prod", "SenderAddress": "gifts@example.com"},
		map[string]string{"Table": "t-test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 3 || fns[0].Name != "api" || fns[1].Name != "hook" || fns[2].Name != "worker" {
		t.Fatalf("functions %+v, want api, hook and worker in the template's order", fns)
	}
	api, hook, worker := fns[0], fns[1], fns[2]
	want := map[string]string{
		"TABLE_NAME":  "t-test", // the caller's table, not gifts-prod
		"QUEUE_URL":   "https://sqs.us-east-1.amazonaws.com/123456789012/gifts-prod-jobs",
		"REGION_NAME": "prod-us-east-1",
		"CONFIG_SET":  "mail-prod",
		"FROM_PROD":   "yes",
		"LEVEL":       "DEBUG", // the function's own over the Globals'
		"LISTED":      "a,prod",
	}
	for k, v := range want {
		if api.Env[k] != v {
			t.Errorf("api %s = %q, want %q", k, api.Env[k], v)
		}
	}
	if api.FunctionName != "gifts-prod-api" || api.MemoryMB != 256 || api.Timeout != 29*time.Second {
		t.Errorf("api %s, %d MB, %v; want gifts-prod-api, 256 MB, 29s", api.FunctionName, api.MemoryMB, api.Timeout)
	}
	if worker.FunctionName != "gifts-prod-worker" || worker.Timeout != 150*time.Second || worker.Env["LEVEL"] != "INFO" {
		t.Errorf("worker %s, %v, LEVEL %s; want gifts-prod-worker, its own 150s, the Globals' INFO", worker.FunctionName, worker.Timeout, worker.Env["LEVEL"])
	}
	if strings.Join(api.Routes, ";") != "GET /api/wallet;GET /api/{id}" || strings.Join(worker.Sources, ",") != "Schedule,SNS" ||
		strings.Join(hook.Sources, ",") != "CodeDeployHook" {
		t.Errorf("api routes %v, worker sources %v, hook sources %v", api.Routes, worker.Sources, hook.Sources)
	}

	// The parameters' defaults: no sender, so the conditions turn the other way.
	fns, err = loadSample(t, sampleTemplate, map[string]string{"Stage": "dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if env := fns[0].Env; env["CONFIG_SET"] != "" || env["FROM_PROD"] != "no" || env["TABLE_NAME"] != "gifts-dev" {
		t.Errorf("without a sender: CONFIG_SET %q, FROM_PROD %q, TABLE_NAME %q; want \"\", no, gifts-dev",
			env["CONFIG_SET"], env["FROM_PROD"], env["TABLE_NAME"])
	}
}

func TestTemplateRefusesWhatItCannotResolve(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct{ text, want string }{
		"an intrinsic it does not know": {strings.Replace(sampleTemplate, "LEVEL: INFO", "LEVEL: !Select [0, [a, b]]", 1), "Fn::Select"},
		"a Ref to nothing":              {strings.Replace(sampleTemplate, "!Ref Jobs", "!Ref Nowhere", 1), "Ref Nowhere"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadSample(t, c.text, nil, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %s", err, c.want)
			}
		})
	}
	if _, err := loadSample(t, sampleTemplate, map[string]string{"Stag": "x"}, nil); err == nil {
		t.Errorf("a parameter the template does not have was accepted")
	}
}

// The real Makefile's Lambda build is what Build repeats for this machine.
func TestReadMakefile(t *testing.T) {
	t.Parallel()
	mk, err := rie.ReadMakefile(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(mk.BuildArgs, " "); !strings.Contains(got, "-tags lambda.norpc") || !strings.Contains(got, "-ldflags=-s -w") {
		t.Errorf("build arguments %q: want the tags and the ldflags of the Lambda build", got)
	}
	if got := strings.Join(mk.BuildEnv, " "); !strings.Contains(got, "CGO_ENABLED=0") {
		t.Errorf("build environment %q: want CGO_ENABLED=0", got)
	}
}
