package rie_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/rie"
)

// The deploy hooks call Lambda, CodeDeploy and SSM, which have no emulator here: fakeAWS stands in for
// the three at the hooks' DEPLOY_HOOK_AWS_ENDPOINT, serving one deployment's AppSpec, recording the
// hooks' reports, holding the canary key, and passing each Invoke on to the emulator of the function it
// names, so the hooks' real bootstraps check the other functions' real bootstraps.

const canaryKeyParameter = "/gift-campaigns/rie/canary-api-key"

type fakeAWS struct {
	st     *stack
	server *httptest.Server
	mu     sync.Mutex
	// appSpec is the deployment's AppSpec; reports are the hooks' statuses.
	appSpec string
	reports []string
}

func newFakeAWS(t *testing.T, st *stack) *fakeAWS {
	f := &fakeAWS{st: st}
	f.server = httptest.NewServer(f)
	t.Cleanup(f.server.Close)
	return f
}

// configure gives a hook function the fake's endpoint and the canary key's parameter; other
// functions are returned as they are.
func (f *fakeAWS) configure(fn rie.Function) rie.Function {
	if !slices.Contains(fn.Sources, "CodeDeployHook") {
		return fn
	}
	fn.Env = maps.Clone(fn.Env)
	fn.Env["DEPLOY_HOOK_AWS_ENDPOINT"] = f.server.URL
	fn.Env["CANARY_API_KEY_PARAMETER"] = canaryKeyParameter
	return fn
}

func (f *fakeAWS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var in map[string]any
	_ = json.Unmarshal(body, &in)
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(v)
	}
	revision := map[string]any{"revisionType": "AppSpecContent", "appSpecContent": map[string]any{"sha256": "rie"}}
	switch target := r.Header.Get("X-Amz-Target"); {
	case target == "CodeDeploy_20141006.GetDeployment":
		reply(map[string]any{"deploymentInfo": map[string]any{"deploymentId": in["deploymentId"], "applicationName": "rie-app",
			"computePlatform": "Lambda", "revision": revision}})
	case target == "CodeDeploy_20141006.GetApplicationRevision":
		f.mu.Lock()
		content := f.appSpec
		f.mu.Unlock()
		reply(map[string]any{"applicationName": "rie-app", "revision": map[string]any{"revisionType": "AppSpecContent",
			"appSpecContent": map[string]any{"content": content}}})
	case target == "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus":
		f.mu.Lock()
		f.reports = append(f.reports, fmt.Sprint(in["status"]))
		f.mu.Unlock()
		reply(map[string]any{"lifecycleEventHookExecutionId": in["lifecycleEventHookExecutionId"]})
	case target == "AmazonSSM.GetParameter" && in["Name"] == canaryKeyParameter:
		reply(map[string]any{"Parameter": map[string]any{"Name": canaryKeyParameter, "Type": "SecureString", "Value": f.st.key}})
	case strings.HasPrefix(r.URL.Path, "/2015-03-31/functions/"):
		f.lambda(w, r, body)
	default:
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"__type":"ValidationException","message":"the RIE test's stand-in does not serve %s %s"}`, target, r.URL.Path)
	}
}

// lambda serves Invoke (POST …/functions/{name}/invocations) by passing the payload to the named
// function's emulator, and GetAlias (GET …/functions/{name}/aliases/{alias}) as an alias naming version
// 1 alone: under the emulator every function has the one version.
func (f *fakeAWS) lambda(w http.ResponseWriter, r *http.Request, body []byte) {
	rest := strings.TrimPrefix(r.URL.Path, "/2015-03-31/functions/")
	name, op, _ := strings.Cut(rest, "/")
	var proc *rie.Process
	for _, fn := range f.st.functions {
		if fn.FunctionName == name {
			proc = f.st.procs[fn.Name]
		}
	}
	if proc == nil {
		w.Header().Set("X-Amzn-Errortype", "ResourceNotFoundException")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"Type":"User","message":"Function not found: %s"}`, name)
		return
	}
	if strings.HasPrefix(op, "aliases/") {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"Name":%q,"FunctionVersion":"1"}`, strings.TrimPrefix(op, "aliases/"))
		return
	}
	ans, err := proc.Invoke(r.Context(), body)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	if ans.FunctionError() != "" {
		w.Header().Set("X-Amz-Function-Error", "Unhandled")
	}
	w.Header().Set("X-Amz-Executed-Version", "1")
	_, _ = w.Write(ans.Payload)
}

// runHooks has the hooks check a deployment of version 1 of each of the stack's functions: before
// traffic the pre-traffic hook, after it the post-traffic hook, each invoking the function's emulator
// through its smoke probes (for an API function, the documented 401 without a key and a 200 with the
// canary key). A deployment of a function of another stage is refused without an invocation.
func (st *stack) runHooks(t *testing.T) {
	var pre, post *rie.Function
	for i, fn := range st.functions {
		switch fn.LogicalID {
		case "PreTrafficHookFunction":
			pre = &st.functions[i]
		case "PostTrafficHookFunction":
			post = &st.functions[i]
		}
	}
	if pre == nil || post == nil {
		t.Fatal("template.yaml has no PreTrafficHookFunction and PostTrafficHookFunction")
	}
	check := func(t *testing.T, hook *rie.Function, function, want string) {
		t.Helper()
		st.aws.mu.Lock()
		st.aws.appSpec = fmt.Sprintf(`{"version":0.0,"Resources":[{"fn":{"Type":"AWS::Lambda::Function","Properties":`+
			`{"Name":%q,"Alias":"live","CurrentVersion":"0","TargetVersion":"1"}}}]}`, function)
		st.aws.reports = nil
		st.aws.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), hook.Timeout+10*time.Second)
		defer cancel()
		ans, err := st.procs[hook.Name].Invoke(ctx, []byte(`{"DeploymentId":"d-RIE","LifecycleEventHookExecutionId":"hook-rie"}`))
		if err != nil || ans.Status != 200 || ans.FunctionError() != "" {
			t.Fatalf("%s: %v, %d: %s", hook.LogicalID, err, ans.Status, ans.Payload)
		}
		st.mu.Lock()
		st.reached[hook.Name] = true
		st.mu.Unlock()
		st.aws.mu.Lock()
		defer st.aws.mu.Unlock()
		if !slices.Equal(st.aws.reports, []string{want}) {
			t.Errorf("%s reported %v for %s, want %s:\n%s", hook.LogicalID, st.aws.reports, function, want, st.procs[hook.Name].Logs())
		}
	}
	for _, fn := range st.functions {
		if slices.Contains(fn.Sources, "CodeDeployHook") || !fn.Canaried {
			continue
		}
		t.Run(fn.Name, func(t *testing.T) {
			check(t, pre, fn.FunctionName, "Succeeded")
			check(t, post, fn.FunctionName, "Succeeded")
		})
	}
	t.Run("a function of another stage", func(t *testing.T) {
		check(t, pre, "gift-campaigns-prod-catalog", "Failed")
	})
}
