package rie_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/rie"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// unauthorized is the documented answer to a request without a valid API key (openapi.yaml's
// Unauthorized response), byte for byte.
const unauthorized = `{"success":false,"statusCode":401,"message":"Unauthorized","error":"Invalid or missing API key"}`

// stack is every function of template.yaml running under its own emulator, over one fresh table of
// DynamoDB Local and the SES emulator, with an organization and its API key.
type stack struct {
	root          string
	store         *dynamo.Store
	orgID, key    string
	sesEndpoint   string
	functions     []rie.Function
	procs         map[string]*rie.Process
	events        map[string]rie.Event
	mu            sync.Mutex
	sent, reached map[string]bool
	// aws stands in for Lambda, CodeDeploy and SSM for the deploy hooks (functions_hooks_test.go).
	aws *fakeAWS
}

// startStack builds every function's bootstrap for this machine and starts each under the emulator
// with the template's environment for it; the emulators' endpoints and the test's table replace the
// variables that name AWS's.
func startStack(t *testing.T) *stack {
	t.Helper()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rie.Binary(root); err != nil {
		localstack.Missing(t, err.Error())
	}
	st := &stack{root: root, store: testenv.Store(t), sesEndpoint: localstack.SESEndpoint(t), procs: map[string]*rie.Process{},
		events: map[string]rie.Event{}, sent: map[string]bool{}, reached: map[string]bool{}}
	st.orgID, st.key = testenv.Org(t, st.store, "rie", 1000)
	ctx := context.Background()
	local, err := rie.NewLocal(ctx, root, t.TempDir(), st.store.Table())
	if err != nil {
		t.Fatal(err)
	}
	st.functions = local.Functions
	st.checkMakefile(t)
	evs, err := rie.LoadEvents(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		st.events[ev.File] = ev
	}
	st.aws = newFakeAWS(t, st)
	for _, fn := range st.functions {
		p, err := local.Start(ctx, st.aws.configure(fn))
		if err != nil {
			t.Fatal(err)
		}
		st.procs[fn.Name] = p
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("%s under the emulator:\n%s", fn.LogicalID, p.Logs())
			}
			p.Close()
		})
	}
	return st
}

// checkMakefile fails unless the Makefile's FUNCTIONS are the template's functions: sam build builds
// the ones the template names with the Makefile's targets.
func (st *stack) checkMakefile(t *testing.T) {
	t.Helper()
	mk, err := rie.ReadMakefile(st.root)
	if err != nil {
		t.Fatal(err)
	}
	var inTemplate, inMakefile []string
	for _, fn := range st.functions {
		inTemplate = append(inTemplate, fn.LogicalID)
	}
	for _, f := range mk.Functions {
		inMakefile = append(inMakefile, f+"Function")
	}
	slices.Sort(inTemplate)
	slices.Sort(inMakefile)
	if !slices.Equal(inTemplate, inMakefile) {
		t.Fatalf("template.yaml's functions %v, the Makefile's FUNCTIONS %v: they must be the same", inTemplate, inMakefile)
	}
}

// invoke sends the fixture file, its placeholders filled with values, to the function it reaches, and
// returns the answer; the emulator must have delivered it and the function must not have failed.
func (st *stack) invoke(t *testing.T, file string, values map[string]string, edit func(map[string]any)) rie.Answer {
	t.Helper()
	ev, ok := st.events[file]
	if !ok {
		t.Fatalf("no fixture events/%s: run `make events`", file)
	}
	raw, err := rie.Fill(ev.Raw, values)
	if err != nil {
		t.Fatalf("events/%s: %v", file, err)
	}
	if edit != nil {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		edit(doc)
		if raw, err = json.Marshal(doc); err != nil {
			t.Fatal(err)
		}
		if ev, err = rie.ParseEvent(file, raw); err != nil {
			t.Fatal(err)
		}
	}
	fn, err := rie.Target(st.functions, ev)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), fn.Timeout+10*time.Second)
	defer cancel()
	ans, err := st.procs[fn.Name].Invoke(ctx, raw)
	if err != nil {
		t.Fatalf("%s, events/%s: %v", fn.LogicalID, file, err)
	}
	if ans.Status != 200 || ans.FunctionError() != "" {
		t.Fatalf("%s, events/%s: the emulator answered %d: %s", fn.LogicalID, file, ans.Status, ans.Payload)
	}
	st.mu.Lock()
	st.sent[file], st.reached[fn.Name] = true, true
	st.mu.Unlock()
	return ans
}

// httpAnswer decodes a function's answer to an API Gateway request.
func httpAnswer(t *testing.T, ans rie.Answer) (status int, header map[string]string, body string) {
	t.Helper()
	var res events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(ans.Payload, &res); err != nil {
		t.Fatalf("not an API Gateway answer: %v: %s", err, ans.Payload)
	}
	body = res.Body
	if res.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(body)
		if err != nil {
			t.Fatal(err)
		}
		body = string(b)
	}
	header = map[string]string{}
	for k, v := range res.Headers {
		header[strings.ToLower(k)] = v
	}
	return res.StatusCode, header, body
}

// apiCase is what a user of the API sees for one authenticated request fixture: the status, and what
// the body must say.
type apiCase struct {
	status int
	check  func(t *testing.T, body string)
}

// TestFunctionsUnderRIE runs every function's real bootstrap under AWS's Lambda Runtime Interface
// Emulator with the template's environment, and sends each the events under events/: every API
// function answers an authenticated read, and a request without a key with exactly the documented 401;
// the pages function answers an unknown page with its 404 page; the worker runs the scheduler's tick, a
// job message and an SES bounce; the deploy hooks check each function's version through it. Every function of the template must be reached and every fixture sent.
func TestFunctionsUnderRIE(t *testing.T) {
	t.Parallel()
	st := startStack(t)
	w := st.prepareWorker(t)
	cases := st.apiCases(t, w)
	for file, ev := range st.events {
		if ev.Source != "API" || !strings.Contains(string(ev.Raw), "{{API_KEY}}") {
			continue
		}
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			c, ok := cases[file]
			if !ok {
				t.Fatalf("events/%s has no expected answer in apiCases: add one", file)
			}
			status, header, body := httpAnswer(t, st.invoke(t, file, map[string]string{"API_KEY": st.key}, nil))
			if status != c.status || header["content-type"] != "application/json" {
				t.Fatalf("status %d (%s), want %d (application/json): %s", status, header["content-type"], c.status, body)
			}
			c.check(t, body)
			t.Run("without a key", func(t *testing.T) {
				status, _, body := httpAnswer(t, st.invoke(t, file, map[string]string{"API_KEY": ""}, nil))
				if status != 401 || strings.TrimSpace(body) != unauthorized {
					t.Errorf("status %d, body %s; want 401 and exactly %s", status, body, unauthorized)
				}
			})
		})
	}
	t.Run("unknown recipient page", func(t *testing.T) {
		status, header, body := httpAnswer(t, st.invoke(t, "get-unknown-gift-page.json", nil, nil))
		if status != 404 || !strings.HasPrefix(header["content-type"], "text/html") || !strings.Contains(body, "This page does not exist") {
			t.Errorf("status %d (%s), want the 404 page (text/html, \"This page does not exist\"): %.300s", status, header["content-type"], body)
		}
	})
	// The operator function trusts the identity API Gateway's AWS_IAM authorizer puts in the request
	// context, and refuses a request without it.
	t.Run("operator API", func(t *testing.T) {
		status, _, body := httpAnswer(t, st.invoke(t, "list-operator-organizations.json", nil, nil))
		if status != 200 || !strings.Contains(body, `"items":[`) {
			t.Errorf("signed in by the IAM authorizer: status %d, want 200 and the organizations: %.300s", status, body)
		}
		unsigned := func(ev map[string]any) { delete(ev["requestContext"].(map[string]any), "authorizer") }
		if status, _, body := httpAnswer(t, st.invoke(t, "list-operator-organizations.json", nil, unsigned)); status != 401 {
			t.Errorf("without the authorizer's identity: status %d, want 401: %.300s", status, body)
		}
	})
	t.Run("worker", func(t *testing.T) { st.runWorker(t, w) })
	t.Run("deploy hooks", func(t *testing.T) { st.runHooks(t) })
	st.checkCoverage(t)
}

// checkCoverage fails for a fixture never sent, and a function of the template no event reached.
func (st *stack) checkCoverage(t *testing.T) {
	t.Helper()
	if t.Failed() {
		return
	}
	for file := range st.events {
		if !st.sent[file] {
			t.Errorf("events/%s was never sent: give it a case in TestFunctionsUnderRIE", file)
		}
	}
	for _, fn := range st.functions {
		if !st.reached[fn.Name] {
			t.Errorf("%s received no event: add a fixture it takes under events/ (make events) and its expected answer here", fn.LogicalID)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		d, err := st.procs[fn.Name].InitDuration(ctx)
		cancel()
		if err != nil {
			t.Errorf("%s: %v", fn.LogicalID, err)
			continue
		}
		t.Logf("%s: init %v under the emulator (make bench reports the medians)", fn.LogicalID, d.Round(10*time.Microsecond))
	}
}

// apiCases are the expected answers to the authenticated request fixtures, by file; they run after
// prepareWorker, whose campaigns and wallet debits they see.
func (st *stack) apiCases(t *testing.T, w workerWork) map[string]apiCase {
	contains := func(want ...string) func(*testing.T, string) {
		return func(t *testing.T, body string) {
			for _, s := range want {
				if !strings.Contains(body, s) {
					t.Errorf("body %.500s: want %s in it", body, s)
				}
			}
		}
	}
	wallet, err := st.store.Wallet(context.Background(), st.orgID)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]apiCase{
		"list-gifts.json":          {200, contains(`"giftId":"gift-artisan-coffee"`)},
		"list-campaigns.json":      {200, contains(`"campaignId":"`+w.launched.CampaignID+`"`, `"campaignId":"`+w.live.CampaignID+`"`)},
		"get-wallet.json":          {200, contains(fmt.Sprintf(`"balance":%d,`, wallet.Balance))},
		"create-contact-list.json": {201, contains(`"name":"Launch guests"`)},
		"list-personas.json":       {200, contains(`"success":true`)},
		"list-events.json":         {200, contains(`"success":true`)},
		"list-webhooks.json":       {200, contains(`"success":true`)},
	}
}
