// Command iamcheck holds each Lambda function's IAM policy, in the template
// as `sam deploy` converts it, against the AWS calls the tests recorded for
// that function (infra/iamcheck/calls): it fails on a call a policy does
// not allow, and on a grant no recorded call uses. make test runs it after
// the tests. docs/iam.md explains it.
//
//	go run ./infra/iamcheck -template .aws-sam/converted.json -calls .aws-sam/aws-calls
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/giftcampaign/service/infra/iamcheck/calls"
)

// Scenarios are the deployments the check holds the template in: the
// parameters that change a policy or a function's environment (mail) take
// each of their cases; every other parameter keeps its default.
var Scenarios = []Scenario{
	{Name: "mail off", Params: map[string]string{"Stage": "prod"}},
	// The operator API (OperatorApi=on) adds a function of its own.
	{Name: "mail on, the stack's configuration set, the operator API on", Identity: "example.com", Params: map[string]string{
		"Stage": "prod", "SenderAddress": "gifts@example.com", "SesIdentity": "example.com",
		"PublicBaseURL": "https://gifts.example.com", "OperatorApi": "on"}},
	{Name: "mail on, an own configuration set, the address as identity", Identity: "gifts@example.com", Params: map[string]string{
		"Stage": "prod", "SenderAddress": "gifts@example.com", "SesConfigurationSet": "partner-mail",
		"PublicBaseURL": "https://gifts.example.com"}},
}

func main() {
	template := flag.String("template", ".aws-sam/converted.json", "the converted template (make converted-template)")
	dir := flag.String("calls", ".aws-sam/aws-calls", "the directory of recorded calls (AWS_CALLS_DIR of make test)")
	verbose := flag.Bool("v", false, "also list the calls left out of each scenario")
	flag.Parse()
	os.Exit(run(*template, *dir, *verbose))
}

func run(templatePath, dir string, verbose bool) int {
	t, err := LoadTemplate(templatePath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "iamcheck:", err)
		return 2
	}
	recorded, err := calls.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "iamcheck:", err)
		return 2
	}
	if len(recorded) == 0 {
		fmt.Fprintf(os.Stderr, "iamcheck: no calls recorded in %s: run the whole suite with make test "+
			"(a cached test result records nothing: keep -count=1 in GOTESTFLAGS)\n", dir)
		return 2
	}
	links, err := sdkLinks()
	if err != nil {
		fmt.Fprintln(os.Stderr, "iamcheck:", err)
		return 2
	}
	c := Check{Template: t, Calls: recorded, Links: links}
	failed := false
	for _, sc := range Scenarios {
		rep, err := c.Run(sc)
		if err != nil {
			fmt.Fprintf(os.Stderr, "iamcheck: %s: %v\n", sc.Name, err)
			return 2
		}
		status := "ok"
		if len(rep.Problems) > 0 {
			status, failed = fmt.Sprintf("%d problems", len(rep.Problems)), true
		}
		fmt.Printf("iamcheck: %s (%s): %s\n", sc.Name, params(sc), status)
		for _, p := range rep.Problems {
			fmt.Println("  " + p)
		}
		if verbose {
			for _, n := range rep.Notes {
				fmt.Println("  note: " + n)
			}
		}
	}
	fmt.Printf("iamcheck: %d distinct calls of %s held against %s\n", len(recorded), dir, templatePath)
	if failed {
		fmt.Println("iamcheck: fix template.yaml's Policies (docs/iam.md), or test the call that needs the grant")
		return 1
	}
	return 0
}

func params(sc Scenario) string {
	var out []string
	for _, k := range []string{"Stage", "SenderAddress", "SesIdentity", "SesConfigurationSet", "PublicBaseURL"} {
		if v, ok := sc.Params[k]; ok {
			out = append(out, k+"="+v)
		}
	}
	return strings.Join(out, " ")
}

// sdkPackage is the SDK client package of each IAM service prefix the
// service calls.
var sdkPackage = map[string]string{
	"dynamodb": "github.com/aws/aws-sdk-go-v2/service/dynamodb",
	"ses":      "github.com/aws/aws-sdk-go-v2/service/sesv2",
	"sqs":      "github.com/aws/aws-sdk-go-v2/service/sqs",
	"kms":      "github.com/aws/aws-sdk-go-v2/service/kms",
	"s3":       "github.com/aws/aws-sdk-go-v2/service/s3",
}

// sdkLinks returns, for each function under functions/, the IAM service
// prefixes whose SDK client its binary links (as make bin builds it); a
// prefix the check does not know is taken as linked.
func sdkLinks() (map[string]map[string]bool, error) {
	out, err := exec.Command("go", "list", "-tags", "lambda.norpc", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "./functions/...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list ./functions/...: %w", err)
	}
	links := map[string]map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		name := fields[0][strings.LastIndex(fields[0], "/")+1:]
		linked := map[string]bool{}
		for prefix, pkg := range sdkPackage {
			linked[prefix] = slices.Contains(fields[1:], pkg)
		}
		links[name] = linked
	}
	return links, nil
}
