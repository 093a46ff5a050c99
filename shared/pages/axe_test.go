package pages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/infra/localstack"
)

// axeSource is axe-core's script, as `make tools` installs it (npm
// axe-core, AXE_CORE_VERSION in the Makefile). Without it the test skips,
// except under make test or in CI, where it fails (localstack.Missing).
func axeSource(t *testing.T) string {
	t.Helper()
	path := filepath.Join("..", "..", ".tools", "node_modules", "axe-core", "axe.min.js")
	src, err := os.ReadFile(path)
	if err != nil {
		localstack.Missing(t, "axe-core is not installed ("+path+"; make tools)")
	}
	return string(src)
}

// axeViolation is one rule axe-core found broken, with the elements that
// break it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target         []any  `json:"target"`
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

// wcag21AA are the axe-core rule tags of WCAG 2.1 levels A and AA.
const wcag21AA = `["wcag2a","wcag2aa","wcag21a","wcag21aa"]`

// checkAccessible runs axe-core over the page Chromium shows, with the
// rules of WCAG 2.1 AA, and fails the test with every violation found.
// The script goes in through the DevTools protocol: the pages' Content
// Security Policy allows no script of their own.
func checkAccessible(ctx context.Context, t *testing.T, axe, page string) {
	t.Helper()
	var raw string
	// axe.run answers a promise; its result is left on the window for
	// Poll to read once there.
	run := `window.__axe = ""; axe.run(document, {runOnly: {type: "tag", values: ` + wcag21AA + `}}).then(` +
		`r => { window.__axe = JSON.stringify({violations: r.violations, passes: r.passes.length}); },` +
		` e => { window.__axe = JSON.stringify({error: String(e)}); }); true`
	err := chromedp.Run(ctx,
		chromedp.Evaluate(axe+";true", nil),
		chromedp.Evaluate(run, nil),
		chromedp.Poll(`window.__axe`, &raw),
	)
	if err != nil {
		t.Fatalf("axe-core on the %s page: %v", page, err)
	}
	var res struct {
		Violations []axeViolation `json:"violations"`
		Passes     int            `json:"passes"`
		Error      string         `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &res); err != nil || res.Error != "" {
		t.Fatalf("axe-core's answer on the %s page: %v %s", page, err, res.Error)
	}
	if res.Passes == 0 {
		t.Errorf("axe-core checked no rule on the %s page", page)
	}
	for _, v := range res.Violations {
		var where []string
		for _, n := range v.Nodes {
			where = append(where, fmt.Sprint(n.Target)+": "+n.FailureSummary)
		}
		t.Errorf("%s page: WCAG 2.1 AA violation %s (%s): %s\n%s", page, v.ID, v.Impact, v.Help, strings.Join(where, "\n"))
	}
}
