package pages_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/giftcampaign/service/infra/localstack"
)

// axeSource is axe-core's browser build, which make test installs under
// .tools (AXE_CORE_VERSION). Without it the test skips, except under make
// test or in CI, where it fails (localstack.Missing).
func axeSource(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", ".tools", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		localstack.Missing(t, "axe-core is not installed (make test installs it under .tools)")
	}
	return string(b)
}

// axeViolation is what the test reports of one of axe's violations.
type axeViolation struct {
	ID      string   `json:"id"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// axeCheck runs axe-core on the page shown, with the WCAG 2.0 and 2.1 A
// and AA rules, and reports every violation as a test error.
func axeCheck(t *testing.T, ctx context.Context, src, step string) {
	t.Helper()
	const run = `axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
		.then(r => JSON.stringify(r.violations.map(v => ({id: v.id, help: v.help, targets: v.nodes.map(n => n.target.join(" "))}))))`
	var out string
	err := chromedp.Run(ctx, chromedp.Evaluate(src, nil),
		chromedp.Evaluate(run, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if err != nil {
		t.Fatalf("%s: axe: %v", step, err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("%s: axe's answer %q: %v", step, out, err)
	}
	for _, v := range vs {
		t.Errorf("%s: WCAG 2.1 AA: %s (%s) at %v", step, v.Help, v.ID, v.Targets)
	}
}

// TestBrowserClaimVariants drives Chromium through the claim of a gift
// with variants: the sizes are radio buttons a keyboard reaches, the
// sold-out one disabled; a claim without a size comes back with the
// problem beside the sizes; a claim of Large opens its order. axe-core
// finds no WCAG 2.1 AA violation on the form, nor on the form with its
// problem.
func TestBrowserClaimVariants(t *testing.T) {
	t.Parallel()
	bin, axe := chromium(t), axeSource(t)
	f := newVariantFixture(t)
	r := f.add(t, "maya@example.com")
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)

	opts := append(chromedp.DefaultExecAllocatorOptions[:0:0],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(360, 800))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	step := func(name string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// The pages' Content-Security-Policy allows no script of theirs;
	// axe is the test's own, so the test's browser lets it in.
	step("open the claim form", page.SetBypassCSP(true), chromedp.Navigate(ts.URL+"/claim/"+r.ClaimPageID),
		chromedp.WaitVisible(`input[name="variantId"]`))
	axeCheck(t, ctx, axe, "the claim form")
	var disabled, soldOutLabel string
	var ok bool
	step("read the sold-out size", chromedp.AttributeValue(`input[value="`+f.medium+`"]`, "disabled", &disabled, &ok),
		chromedp.Text(`//label[.//input[@value="`+f.medium+`"]]`, &soldOutLabel))
	if !ok || !strings.Contains(soldOutLabel, "Out of stock") {
		t.Errorf("Medium: disabled %v, label %q; want it disabled and said to be out of stock", ok, soldOutLabel)
	}
	fill := []chromedp.Action{
		chromedp.Click(`input[name="giftId"][value="` + f.hoodie.GiftID + `"]`),
		chromedp.SetValue("#line1", "12 Rose Lane"), chromedp.SetValue("#city", "Portland"),
		chromedp.SetValue("#zip", "97201"), chromedp.SetValue("#country", "US"),
	}
	var problem string
	step("submit without a size", append(fill, chromedp.Submit("#line1"), chromedp.WaitVisible("#variantId-error"),
		chromedp.Text("#variantId-error", &problem))...)
	if !strings.Contains(problem, "choose an option of Hoodie") {
		t.Errorf("the problem beside the sizes: %q", problem)
	}
	axeCheck(t, ctx, axe, "the claim form with its problem")
	// A keyboard reaches the sizes: focus the first, then the arrow key
	// moves the choice to the next size that can be chosen (Large: Medium
	// is disabled).
	step("choose Large by keyboard", chromedp.Focus(`input[value="`+f.small+`"]`), chromedp.KeyEvent("\u0020"),
		chromedp.KeyEvent(kb.ArrowDown))
	var checked bool
	step("read the choice", chromedp.Evaluate(`document.querySelector('input[value="`+f.large+`"]').checked`, &checked))
	if !checked {
		t.Fatal("the arrow key did not move the choice past the sold-out size to Large")
	}
	step("submit with Large", append(fill[1:], chromedp.Submit("#line1"), chromedp.WaitVisible("ol.steps"))...)
	got := f.recipient(t, r.RecipientID)
	if !got.Claimed() {
		t.Fatal("the claim of Large was not written")
	}
	if l := f.stock(t, f.large); l.Reserved != 1 {
		t.Errorf("Large after the claim: %+v; want its unit reserved", l)
	}
}
