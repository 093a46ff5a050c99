package deployhook

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/httpapi"
)

// answer is a function's HTTP answer as the Lambda adapter encodes it.
func answer(status int, contentType, body string, base64Body bool) []byte {
	if base64Body {
		body = base64.StdEncoding.EncodeToString([]byte(body))
	}
	raw, _ := json.Marshal(map[string]any{"statusCode": status, "headers": map[string]string{"Content-Type": contentType},
		"body": body, "isBase64Encoded": base64Body})
	return raw
}

const documented401 = `{"success":false,"statusCode":401,"message":"Unauthorized","error":"Invalid or missing API key"}`

func TestProbeChecks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		check   func([]byte) error
		payload []byte
		ok      bool
	}{
		{"the documented 401", refusedUnauthenticated, answer(401, "application/json", documented401, false), true},
		{"the documented 401, base64", refusedUnauthenticated, answer(401, "application/json", documented401, true), true},
		{"a 401 with a code", refusedUnauthenticated, answer(401, "application/json",
			`{"success":false,"statusCode":401,"message":"Unauthorized","error":"Invalid or missing API key","code":"UNAUTHORIZED"}`, false), false},
		{"a 401 saying why", refusedUnauthenticated, answer(401, "application/json",
			`{"success":false,"statusCode":401,"message":"Unauthorized","error":"API key revoked"}`, false), false},
		{"a 200 to a request without a key", refusedUnauthenticated, answer(200, "application/json", `{"success":true}`, false), false},
		{"API Gateway's own 404", refusedUnauthenticated, answer(404, "application/json", `{"message":"Not Found"}`, false), false},
		{"not an HTTP answer", refusedUnauthenticated, []byte(`null`), false},
		{"a read answered", answeredOK, answer(200, "application/json", `{"success":true,"data":[]}`, false), true},
		{"a read refused", answeredOK, answer(401, "application/json", documented401, false), false},
		{"a read failing", answeredOK, answer(503, "application/json", `{"success":false,"statusCode":503}`, false), false},
		{"the 404 page", pageNotFound, answer(404, "text/html; charset=utf-8", "<!doctype html><html><p>Not found</p></html>", false), true},
		{"a 404 in JSON", pageNotFound, answer(404, "application/json", `{"success":false}`, false), false},
		{"a page for an unknown id", pageNotFound, answer(200, "text/html; charset=utf-8", "<html></html>", false), false},
		{"the operator's 401", refusedUnsigned, answer(401, "application/json",
			`{"success":false,"statusCode":401,"message":"Unauthorized","error":"signed request needed","code":"UNAUTHORIZED"}`, false), true},
		{"the operator serving an unsigned request", refusedUnsigned, answer(200, "application/json", `{"success":true,"data":[]}`, false), false},
		{"API Gateway's 403 in place of the operator's", refusedUnsigned, answer(403, "application/json", `{"message":"Forbidden"}`, false), false},
		{"a 401 that is not the error shape", refusedUnsigned, answer(401, "text/plain", "no", false), false},
		{"an empty batch taken", batchTaken, []byte(`{"batchItemFailures":null}`), true},
		{"an empty batch failing", batchTaken, []byte(`{"batchItemFailures":[{"itemIdentifier":"x"}]}`), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.check(tt.payload); (err == nil) != tt.ok {
				t.Errorf("got %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

// TestSmokePathsAreReadsOfTheirGroup: each API function's smoke path is a
// GET route it serves, without path parameters.
func TestSmokePathsAreReadsOfTheirGroup(t *testing.T) {
	t.Parallel()
	for _, g := range httpapi.Groups {
		path, ok := SmokePaths[g.String()]
		if !ok {
			t.Errorf("no smoke path for the %s function", g)
			continue
		}
		if !slices.Contains(httpapi.Routes(g), "GET "+path) || strings.Contains(path, "{") {
			t.Errorf("the %s function's smoke path %s is not one of its GET routes without parameters", g, path)
		}
	}
}

// TestEveryDeployedFunctionHasProbes: every function template.yaml deploys
// through CodeDeploy has smoke probes, or its every deployment would fail.
func TestEveryDeployedFunctionHasProbes(t *testing.T) {
	t.Parallel()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Resources map[string]struct {
			Properties struct {
				FunctionName         yaml.Node `yaml:"FunctionName"`
				DeploymentPreference *struct {
					Hooks map[string]yaml.Node `yaml:"Hooks"`
				} `yaml:"DeploymentPreference"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := doc.Decode(&tmpl); err != nil {
		t.Fatal(err)
	}
	deployed := 0
	for id, r := range tmpl.Resources {
		if r.Properties.DeploymentPreference == nil {
			continue
		}
		deployed++
		group, ok := strings.CutPrefix(r.Properties.FunctionName.Value, "gift-campaigns-${Stage}-")
		if !ok {
			t.Errorf("%s is named %q, not gift-campaigns-${Stage}-<group>", id, r.Properties.FunctionName.Value)
			continue
		}
		if _, err := Probes(group, "gcs_key"); err != nil {
			t.Errorf("%s: %v", id, err)
		}
		if len(r.Properties.DeploymentPreference.Hooks) != 2 {
			t.Errorf("%s's deployment runs the hooks %v, want PreTraffic and PostTraffic", id, r.Properties.DeploymentPreference.Hooks)
		}
	}
	if deployed == 0 {
		t.Fatal("no function with a DeploymentPreference in template.yaml")
	}
}
