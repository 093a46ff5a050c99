package rie_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/rie"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Every fixture under events/ reaches exactly the function API Gateway or the event source would hand
// it to: literal path segments win over path variables (GET /api/campaigns/wallet is the Recipients
// function's, not GET /api/campaigns/{campaignId}).
func TestEventsReachTheirFunctions(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	tmpl, err := rie.LoadTemplate(root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fns, err := tmpl.Functions()
	if err != nil {
		t.Fatal(err)
	}
	evs, err := rie.LoadEvents(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"get-wallet.json":                  "RecipientsFunction",
		"create-contact-list.json":         "ContactsFunction",
		"list-gifts.json":                  "CatalogFunction",
		"list-campaigns.json":              "CampaignsFunction",
		"get-unknown-gift-page.json":       "PagesFunction",
		"list-operator-organizations.json": "OperatorFunction",
		"scheduler-tick.json":              "WorkerFunction",
		"job-message.json":                 "WorkerFunction",
		"mail-bounce.json":                 "WorkerFunction",
	}
	for _, ev := range evs {
		fn, err := rie.Target(fns, ev)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if w, ok := want[ev.File]; ok && fn.LogicalID != w {
			t.Errorf("events/%s reaches %s, want %s", ev.File, fn.LogicalID, w)
		}
		delete(want, ev.File)
	}
	for file := range want {
		t.Errorf("no fixture events/%s: run `make events`", file)
	}
}

func TestFillEscapesAndRefusesWhatIsLeft(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"body":"{{JOB}}","key":"{{API_KEY}}"}`)
	out, err := rie.Fill(raw, map[string]string{"JOB": `{"kind":"campaign.launch"}`, "API_KEY": "k"})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Body, Key string }
	if err := json.Unmarshal(out, &doc); err != nil || doc.Body != `{"kind":"campaign.launch"}` || doc.Key != "k" {
		t.Errorf("filled %s (%v): want the job as the body string and the key", out, err)
	}
	if _, err := rie.Fill(raw, map[string]string{"API_KEY": "k"}); err == nil || !strings.Contains(err.Error(), "{{JOB}}") {
		t.Errorf("error %v, want one naming the unfilled {{JOB}}", err)
	}
}
