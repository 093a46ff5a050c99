package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/iamcheck/calls"
	"github.com/giftcampaign/service/infra/localstack"
)

// workerCalls are the calls the tests record for the worker of
// testdata/planted.json: its policies allow all of them but the Query of
// the Slim index, as template.yaml's did before the check existed.
func workerCalls() []calls.Call {
	c := func(op, action, kind, name string) calls.Call {
		return calls.Call{Function: "worker", Operation: op, Action: action, Resource: calls.Resource{Kind: kind, Name: name}, Seen: "dynamo.test"}
	}
	return []calls.Call{
		c("GetItem", "dynamodb:GetItem", calls.KindTable, ""),
		c("TransactWriteItems", "dynamodb:PutItem", calls.KindTable, ""),
		c("Query", "dynamodb:Query", calls.KindTable, ""),
		c("Query", "dynamodb:Query", calls.KindIndex, "Due"),
		c("Query", "dynamodb:Query", calls.KindIndex, "Slim"),
		c("SendMessage", "sqs:SendMessage", calls.KindQueue, ""),
		c("SendEmail", "ses:SendEmail", calls.KindIdentity, ""),
		c("SendEmail", "ses:SendEmail", calls.KindConfigurationSet, ""),
	}
}

var (
	mailOff = Scenario{Name: "mail off"}
	mailOn  = Scenario{Name: "mail on", Identity: "example.com", Params: map[string]string{"SenderAddress": "gifts@example.com", "SesIdentity": "example.com"}}
)

func loadFixture(t *testing.T) *Template {
	t.Helper()
	tpl, err := LoadTemplate("testdata/planted.json")
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func checkRun(t *testing.T, c Check, sc Scenario) Report {
	t.Helper()
	rep, err := c.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// grantSlim adds the Slim index to the worker's Query statement of the
// fixture, as the fix to template.yaml did.
func grantSlim(t *testing.T, tpl *Template) {
	t.Helper()
	policies := tpl.Resources["WorkerFunctionRole"].Properties["Policies"].([]any)
	doc := policies[1].(map[string]any)["PolicyDocument"].(map[string]any)
	st := doc["Statement"].([]any)[1].(map[string]any)
	st["Resource"] = append(st["Resource"].([]any), map[string]any{"Fn::Sub": "${Table.Arn}/index/Slim"})
}

// TestPlantedSlimGapFails is the defect the check was made for: a policy
// that allows Query on the table and the Due index only, against the
// worker's recorded Query of the Slim index, fails in every scenario,
// naming the function, the call and the resource; with Slim granted it
// passes.
func TestPlantedSlimGapFails(t *testing.T) {
	for _, sc := range []Scenario{mailOff, mailOn} {
		tpl := loadFixture(t)
		rep := checkRun(t, Check{Template: tpl, Calls: workerCalls()}, sc)
		if len(rep.Problems) != 1 {
			t.Fatalf("%s: problems %q, want the Slim query alone", sc.Name, rep.Problems)
		}
		want := "worker: DENIED Query (dynamodb:Query) on dynamodb:table/gift-campaigns-prod/index/Slim"
		if !strings.HasPrefix(rep.Problems[0], want) || !strings.Contains(rep.Problems[0], "WorkerFunction") {
			t.Errorf("%s: problem %q, want it to start %q and name WorkerFunction", sc.Name, rep.Problems[0], want)
		}

		grantSlim(t, tpl)
		if rep := checkRun(t, Check{Template: tpl, Calls: workerCalls()}, sc); len(rep.Problems) != 0 {
			t.Errorf("%s with Slim granted: problems %q, want none", sc.Name, rep.Problems)
		}
	}
}

// TestUnusedGrantsFail: least privilege the other way round. A grant no
// recorded call uses fails, as does a wildcard reaching an index no call
// reads; a grant only a scenario without mail makes unused (SES) is not
// there in that scenario, and the calls that do not happen in it are
// left out with the reason.
func TestUnusedGrantsFail(t *testing.T) {
	tpl := loadFixture(t)
	grantSlim(t, tpl)
	without := slices.DeleteFunc(workerCalls(), func(c calls.Call) bool { return c.Action == "dynamodb:PutItem" })
	rep := checkRun(t, Check{Template: tpl, Calls: without}, mailOn)
	want := "worker: UNUSED dynamodb:PutItem on dynamodb:table/gift-campaigns-prod (WorkerFunctionRolePolicy1)"
	if len(rep.Problems) != 1 || !strings.HasPrefix(rep.Problems[0], want) {
		t.Errorf("problems %q, want one starting %q", rep.Problems, want)
	}

	// The Query statement reaching every index: Pages is read by no call.
	st := tpl.Resources["WorkerFunctionRole"].Properties["Policies"].([]any)[1].(map[string]any)["PolicyDocument"].(map[string]any)["Statement"].([]any)[1].(map[string]any)
	st["Resource"] = []any{map[string]any{"Fn::Sub": "${Table.Arn}/index/*"}}
	rep = checkRun(t, Check{Template: tpl, Calls: workerCalls()}, mailOn)
	want = "worker: WIDER dynamodb:table/gift-campaigns-prod/index/* (WorkerFunctionRolePolicy1) reaches dynamodb:table/gift-campaigns-prod/index/Pages,"
	if len(rep.Problems) != 1 || !strings.HasPrefix(rep.Problems[0], want) {
		t.Errorf("problems %q, want one starting %q", rep.Problems, want)
	}

	rep = checkRun(t, Check{Template: loadFixture(t), Calls: slices.DeleteFunc(workerCalls(), func(c calls.Call) bool {
		return c.Resource.Name == "Slim"
	})}, mailOff)
	if len(rep.Problems) != 0 {
		t.Errorf("mail off: problems %q, want none (no SES grant, no email)", rep.Problems)
	}
	if !slices.Contains(rep.Notes, "worker: SendEmail (ses:SendEmail) left out: SENDER_ADDRESS is empty: no mailer, no email") {
		t.Errorf("mail off: notes %q, want the emails left out", rep.Notes)
	}
}

// TestCallsAFunctionCannotMakeAreLeftOut: a function whose binary links no
// client of a service makes none of its calls in AWS (the contacts
// function enqueues nothing), so its recorded enqueues need no grant; a
// function that links it needs one, and a function or resource the check
// cannot place fails.
func TestCallsAFunctionCannotMakeAreLeftOut(t *testing.T) {
	tpl := loadFixture(t)
	grantSlim(t, tpl)
	all := workerCalls()
	rep := checkRun(t, Check{Template: tpl, Calls: all, Links: map[string]map[string]bool{"worker": {"sqs": false, "dynamodb": true, "ses": true}}}, mailOn)
	want := "worker: UNUSED sqs:SendMessage* on sqs:gift-campaigns-prod-jobs (WorkerFunctionRolePolicy0): no recorded call uses any of it"
	if !slices.Equal(rep.Problems, []string{want}) {
		t.Errorf("problems %q, want %q", rep.Problems, want)
	}
	if !slices.Contains(rep.Notes, "worker: SendMessage (sqs:SendMessage) left out: its binary links no sqs client") {
		t.Errorf("notes %q, want the enqueue left out", rep.Notes)
	}

	odd := append(all, calls.Call{Function: "billing", Operation: "GetItem", Action: "dynamodb:GetItem", Resource: calls.Resource{Kind: calls.KindTable}},
		calls.Call{Function: "worker", Operation: "Encrypt", Action: "kms:Encrypt", Resource: calls.Resource{Kind: calls.KindUnknown}})
	rep = checkRun(t, Check{Template: tpl, Calls: odd}, mailOn)
	if len(rep.Problems) != 2 || !strings.Contains(rep.Problems[0], "billing: GetItem (dynamodb:GetItem) is recorded for a function the template does not have") ||
		!strings.Contains(rep.Problems[1], "worker: the recorder does not know the resources of Encrypt (kms:Encrypt)") {
		t.Errorf("problems %q, want the unknown function and the unknown resource", rep.Problems)
	}
}

// TestTemplateWorkerMayQuerySlim holds template.yaml itself, converted as
// sam deploy converts it (make converted-template), against the worker's
// Query of the Slim index: allowed, and denied once index/Slim is taken out
// of the worker's policy. (make test holds it against every recorded call.)
func TestTemplateWorkerMayQuerySlim(t *testing.T) {
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, ".aws-sam", "converted.json")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no converted template (%v): make converted-template writes it, and make test does first", err)
	}
	slim := calls.Call{Function: "worker", Operation: "Query", Action: "dynamodb:Query", Resource: calls.Resource{Kind: calls.KindIndex, Name: "Slim"}}
	tpl, err := LoadTemplate(path)
	if err != nil {
		t.Fatal(err)
	}
	denied := func() []string {
		rep := checkRun(t, Check{Template: tpl, Calls: []calls.Call{slim}}, Scenarios[1])
		return slices.DeleteFunc(rep.Problems, func(p string) bool { return !strings.Contains(p, "DENIED") })
	}
	if got := denied(); len(got) != 0 {
		t.Fatalf("template.yaml: %q, want the worker's Slim query allowed", got)
	}
	removed := 0
	for _, p := range tpl.Resources["WorkerFunctionRole"].Properties["Policies"].([]any) {
		doc, _ := p.(map[string]any)["PolicyDocument"].(map[string]any)
		sts, _ := doc["Statement"].([]any)
		for _, s := range sts {
			st := s.(map[string]any)
			res, _ := st["Resource"].([]any)
			st["Resource"] = slices.DeleteFunc(res, func(r any) bool {
				sub, _ := r.(map[string]any)["Fn::Sub"].(string)
				if strings.HasSuffix(sub, "/index/Slim") {
					removed++
					return true
				}
				return false
			})
		}
	}
	if removed == 0 {
		t.Fatal("the worker's policies name no index/Slim to take out")
	}
	if got := denied(); len(got) != 1 || !strings.Contains(got[0], "worker: DENIED Query (dynamodb:Query) on dynamodb:table/gift-campaigns-prod/index/Slim") {
		t.Errorf("without index/Slim: %q, want the worker's Slim query denied", got)
	}
}
