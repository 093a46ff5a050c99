package deployhook

import (
	"strings"
	"testing"
)

func TestParseAppSpec(t *testing.T) {
	t.Parallel()
	// CloudFormation's deployments carry the AppSpec as JSON.
	const cloudFormation = `{"version":0.0,"Resources":[{"gift-campaigns-prod-catalog":{"Type":"AWS::Lambda::Function",` +
		`"Properties":{"Name":"gift-campaigns-prod-catalog","Alias":"live","CurrentVersion":"6","TargetVersion":"7"}}}],` +
		`"Hooks":[{"BeforeAllowTraffic":"CodeDeployHook_gift-campaigns-prod-pre-traffic"},{"AfterAllowTraffic":"CodeDeployHook_gift-campaigns-prod-post-traffic"}]}`
	want := Target{Function: "gift-campaigns-prod-catalog", Alias: "live", CurrentVersion: "6", TargetVersion: "7"}
	for _, tt := range []struct {
		name, content string
		want          Target
		err           string
	}{
		{"CloudFormation's JSON", cloudFormation, want, ""},
		{"YAML", "version: 0.0\nResources:\n  - fn:\n      Type: AWS::Lambda::Function\n      Properties:\n        Name: gift-campaigns-prod-catalog\n" +
			"        Alias: live\n        CurrentVersion: \"6\"\n        TargetVersion: \"7\"\n", want, ""},
		{"no target version", `{"Resources":[{"fn":{"Type":"AWS::Lambda::Function","Properties":{"Name":"f","Alias":"live"}}}]}`, Target{}, "lacks"},
		{"two functions", `{"Resources":[{"a":{"Type":"AWS::Lambda::Function","Properties":{"Name":"a","Alias":"live","TargetVersion":"2"}}},` +
			`{"b":{"Type":"AWS::Lambda::Function","Properties":{"Name":"b","Alias":"live","TargetVersion":"3"}}}]}`, Target{}, "2 functions"},
		{"an ECS service", `{"Resources":[{"svc":{"Type":"AWS::ECS::Service","Properties":{}}}]}`, Target{}, "not a Lambda function"},
		{"no resources", `{"version":0.0}`, Target{}, "names no Lambda function"},
		{"not an AppSpec", `[1, 2`, Target{}, "read the AppSpec"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseAppSpec(tt.content)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %+v, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
