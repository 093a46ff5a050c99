package template

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
)

// root returns the repository root, and skips the test when the lint venv
// (the SAM translator, cfn-lint) is not installed: make lint installs it,
// and CI runs make lint before make test.
func root(t *testing.T) string {
	t.Helper()
	r, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LintVenv(r); errors.Is(err, ErrNoTranslator) {
		localstack.Missing(t, err.Error())
	}
	return r
}

// converted converts the SAM template at src (a path, or the template's
// text when it starts with "AWSTemplateFormatVersion") into a file of the
// test's own and returns its path.
func converted(t *testing.T, r, src string) string {
	t.Helper()
	dir := t.TempDir()
	if strings.HasPrefix(src, "AWSTemplateFormatVersion") {
		path := filepath.Join(dir, "template.yaml")
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		src = path
	}
	dst := filepath.Join(dir, "converted.json")
	if err := Convert(t.Context(), r, src, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// lint runs cfn-lint on a converted template as make lint does, and
// returns its findings' rule ids.
func lint(t *testing.T, r, path string) []string {
	t.Helper()
	bin, err := LintVenv(r)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), filepath.Join(bin, "cfn-lint"), "--ignore-checks", "W2001", "--", path).CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("cfn-lint: %v: %s", err, out)
	}
	return regexp.MustCompile(`(?m)^[EWI]\d{4}`).FindAllString(string(out), -1)
}

// apiAlarmTemplate is issue 27's cycle in small: a function's canary
// rolls back on an alarm of the API that routes to the function's live
// alias. With versionAlarm, the alarm watches the new version instead, as
// template.yaml's do.
func apiAlarmTemplate(versionAlarm bool) string {
	dims := `
        - Name: ApiId
          Value: !Ref Api`
	metric := "Namespace: AWS/ApiGateway\n      MetricName: 5xx"
	if versionAlarm {
		dims = `
        - Name: FunctionName
          Value: !Ref Fn
        - Name: Resource
          Value: !Sub "${Fn}:live"
        - Name: ExecutedVersion
          Value: !GetAtt Fn.Version.Version`
		metric = "Namespace: AWS/Lambda\n      MetricName: Errors"
	}
	return `AWSTemplateFormatVersion: "2010-09-09"
Transform: AWS::Serverless-2016-10-31
Resources:
  Api:
    Type: AWS::Serverless::HttpApi
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: .
      Runtime: provided.al2023
      Handler: bootstrap
      AutoPublishAlias: live
      DeploymentPreference:
        Type: Canary10Percent5Minutes
        Alarms: [!Ref Rollback]
      Events:
        Get:
          Type: HttpApi
          Properties:
            ApiId: !Ref Api
            Method: GET
            Path: /x
  Rollback:
    Type: AWS::CloudWatch::Alarm
    Properties:
      ` + metric + `
      Dimensions:` + dims + `
      Statistic: Sum
      Period: 60
      EvaluationPeriods: 1
      Threshold: 1
      ComparisonOperator: GreaterThanOrEqualToThreshold
`
}

// TestLintRefusesCycles: make lint's cfn-lint run on the converted
// template refuses a circular dependency (E3004), which CloudFormation
// refuses at deploy time: between two plain resources, and through the
// resources SAM generates (alias, deployment group) as template.yaml had
// it, where only the converted template shows it. The canary's alarm on the
// new version instead passes.
func TestLintRefusesCycles(t *testing.T) {
	t.Parallel()
	r := root(t)
	t.Run("two queues each other's dead-letter queue", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "cycle.json")
		const cycle = `{"AWSTemplateFormatVersion": "2010-09-09", "Resources": {
			"A": {"Type": "AWS::SQS::Queue", "Properties": {"RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["B", "Arn"]}, "maxReceiveCount": 5}}},
			"B": {"Type": "AWS::SQS::Queue", "Properties": {"RedrivePolicy": {"deadLetterTargetArn": {"Fn::GetAtt": ["A", "Arn"]}, "maxReceiveCount": 5}}}}}`
		if err := os.WriteFile(path, []byte(cycle), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := lint(t, r, path); !slices.Contains(got, "E3004") {
			t.Errorf("cfn-lint found %v in a template with a cycle, want E3004", got)
		}
	})
	t.Run("a canary rolled back by an alarm of its own API", func(t *testing.T) {
		t.Parallel()
		if got := lint(t, r, converted(t, r, apiAlarmTemplate(false))); !slices.Contains(got, "E3004") {
			t.Errorf("cfn-lint found %v in the converted template, want E3004", got)
		}
	})
	t.Run("a canary rolled back by an alarm of its new version", func(t *testing.T) {
		t.Parallel()
		if got := lint(t, r, converted(t, r, apiAlarmTemplate(true))); len(got) != 0 {
			t.Errorf("cfn-lint found %v in the converted template, want nothing", got)
		}
	})
}

// The repository's template, converted once for the tests that read it.
var repoStack struct {
	once sync.Once
	tmpl *Template
	err  error
}

// stack returns template.yaml converted.
func stack(t *testing.T) *Template {
	t.Helper()
	r := root(t)
	repoStack.once.Do(func() {
		dir, err := os.MkdirTemp("", "converted-")
		if err != nil {
			repoStack.err = err
			return
		}
		defer os.RemoveAll(dir)
		dst := filepath.Join(dir, "converted.json")
		if repoStack.err = Convert(context.Background(), r, filepath.Join(r, "template.yaml"), dst); repoStack.err == nil {
			repoStack.tmpl, repoStack.err = Load(dst)
		}
	})
	if repoStack.err != nil {
		t.Fatal(repoStack.err)
	}
	return repoStack.tmpl
}

// aliasRef reports whether v refers to one of the template's live aliases.
func aliasRef(tmpl *Template, v any) bool {
	id, ok := Ref(v)
	return ok && tmpl.Resources[id].Type == "AWS::Lambda::Alias"
}

// TestEventSourcesTargetTheLiveAlias: every way into a function (the
// queue's and the stream's mappings, the schedule, the mail-events
// subscription, every invoke permission, the API's integrations) goes
// through its live alias, so a canary's version gets its share of every
// source and the version's alarms see everything it does.
func TestEventSourcesTargetTheLiveAlias(t *testing.T) {
	t.Parallel()
	tmpl := stack(t)
	check := func(t *testing.T, what string, v any) {
		t.Helper()
		if !aliasRef(tmpl, v) {
			t.Errorf("%s targets %v, not a live alias", what, v)
		}
	}
	for _, typ := range []string{"AWS::Lambda::EventSourceMapping", "AWS::Lambda::Permission"} {
		ids := tmpl.OfType(typ)
		if len(ids) == 0 {
			t.Fatalf("no %s in the converted template", typ)
		}
		for _, id := range ids {
			check(t, id, tmpl.Resources[id].Properties["FunctionName"])
		}
	}
	for _, id := range tmpl.OfType("AWS::Events::Rule") {
		targets, _ := tmpl.Resources[id].Properties["Targets"].([]any)
		for _, target := range targets {
			check(t, id, Path(target, "Arn"))
		}
	}
	lambdaSubscriptions := 0
	for _, id := range tmpl.OfType("AWS::SNS::Subscription") {
		if p := tmpl.Resources[id].Properties; p["Protocol"] == "lambda" {
			lambdaSubscriptions++
			check(t, id, p["Endpoint"])
		}
	}
	if lambdaSubscriptions == 0 {
		t.Error("no SNS subscription of a function (the mail events)")
	}
	// The HTTP API's routes are in its OpenAPI body: each integration's
	// URI names the function it invokes.
	uri := regexp.MustCompile(`functions/\$\{(\w+)\}/invocations`)
	body, err := jsonString(Path(tmpl.Resources["HttpApi"].Properties, "Body"))
	if err != nil {
		t.Fatal(err)
	}
	integrations := uri.FindAllStringSubmatch(body, -1)
	if len(integrations) == 0 {
		t.Fatal("no integration in the HTTP API's body")
	}
	for _, m := range integrations {
		if tmpl.Resources[m[1]].Type != "AWS::Lambda::Alias" {
			t.Errorf("an HTTP API route invokes %s, not a live alias", m[1])
		}
	}
}

// TestRollbackAlarmsWatchTheNewVersion: every function's deployment group
// rolls back on an alarm of exactly the version its alias is moving to
// (the alias's FunctionVersion and the alarm's ExecutedVersion are the same
// Version resource's), counted through the alias, and runs both hooks.
func TestRollbackAlarmsWatchTheNewVersion(t *testing.T) {
	t.Parallel()
	tmpl := stack(t)
	aliases := tmpl.OfType("AWS::Lambda::Alias")
	deployed := 0
	for _, aliasID := range aliases {
		alias := tmpl.Resources[aliasID]
		update := Path(alias.UpdatePolicy, "CodeDeployLambdaAliasUpdate")
		if update == nil {
			continue // the hooks' own aliases: not deployed by CodeDeploy
		}
		deployed++
		t.Run(aliasID, func(t *testing.T) {
			function, _ := Ref(alias.Properties["FunctionName"])
			version, _, _ := GetAtt(alias.Properties["FunctionVersion"])
			for _, hook := range []string{"BeforeAllowTrafficHook", "AfterAllowTrafficHook"} {
				if id, ok := Ref(Path(update, hook)); !ok || tmpl.Resources[id].Type != "AWS::Lambda::Function" {
					t.Errorf("no %s function", hook)
				}
			}
			group, _ := Ref(Path(update, "DeploymentGroupName"))
			config := Path(tmpl.Resources[group].Properties, "AlarmConfiguration")
			if branches, ok := Path(config, "Fn::If").([]any); ok && len(branches) == 3 {
				// A conditional function's (the operator's): SAM gives its
				// group no condition, so its alarms are under the function's
				// own, which holds wherever the alias exists.
				config = branches[1]
			}
			alarms, _ := Path(config, "Alarms").([]any)
			watched := false
			for _, a := range alarms {
				id, _ := Ref(Path(a, "Name"))
				dims := dimensions(tmpl.Resources[id].Properties)
				if fn, _ := Ref(dims["FunctionName"]); fn != function {
					continue
				}
				v, attr, _ := GetAtt(dims["ExecutedVersion"])
				sub, _ := Path(dims["Resource"], "Fn::Sub").(string)
				if v == version && attr == "Version" && sub == "${"+function+"}:live" &&
					tmpl.Resources[id].Properties["MetricName"] == "Errors" {
					watched = true
				}
			}
			if !watched {
				t.Errorf("deployment group %s has no Errors alarm on %s's live alias and version %s", group, function, version)
			}
		})
	}
	if deployed != 10 {
		t.Errorf("%d functions deployed through CodeDeploy, want the 10 of the service (the operator's included)", deployed)
	}
}

// dimensions returns an alarm's dimensions by name.
func dimensions(alarm map[string]any) map[string]any {
	out := map[string]any{}
	list, _ := alarm["Dimensions"].([]any)
	for _, d := range list {
		if name, ok := Path(d, "Name").(string); ok {
			out[name] = Path(d, "Value")
		}
	}
	return out
}

// TestAlarmEmailIsRequired: a deploy must name who hears the alarms, or
// say none; the parameter has no default.
func TestAlarmEmailIsRequired(t *testing.T) {
	t.Parallel()
	p := stack(t).Parameters["AlarmEmail"]
	if p.Default != nil {
		t.Errorf("AlarmEmail has the default %v", p.Default)
	}
	re, err := regexp.Compile(p.AllowedPattern)
	if err != nil {
		t.Fatalf("AllowedPattern %q: %v", p.AllowedPattern, err)
	}
	for value, want := range map[string]bool{"none": true, "oncall@example.com": true, "": false, "oncall": false, "a@b": false} {
		if got := re.MatchString(value); got != want {
			t.Errorf("AlarmEmail=%q allowed: %v, want %v", value, got, want)
		}
	}
}

// jsonString is v as JSON text.
func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}
