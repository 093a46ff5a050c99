package pages_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestLandingPageIsBranded: the landing page shows the organization's
// display name and logo, its colour (a style element the page's policy
// allows by its hash, and no other), the sender's note with the
// recipient's values escaped and who signs it, and the footer line.
func TestLandingPageIsBranded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := context.Background()
	if _, err := access.NewApp(f.s).SetBranding(ctx, f.orgID, gifting.Branding{DisplayName: "Acme & Sons", LogoURL: "https://cdn.acme.test/logo.png",
		BrandColor: "#0b5394", SenderName: "Ada", FooterText: "Acme Inc, 1 Main St"}); err != nil {
		t.Fatal(err)
	}
	res, err := testenv.Recipients(f.s).Write(ctx, recipient.AddInput{
		OrgID: f.orgID, CampaignID: f.campaign, SourceType: "api", PublicBaseURL: "https://gifts.test",
		Contact: gifting.ContactInput{MailID: "jo@example.com", FirstName: "Jo <b>", CompanyName: "Bits"},
		Message: "For {{firstName}} at {{companyName}}, with thanks.", SenderName: "Bob",
	})
	if err != nil {
		t.Fatal(err)
	}
	page := f.do(t, "GET", "/gift/"+res.Recipient.LandingPageID, nil)
	if page.status != http.StatusOK {
		t.Fatalf("landing: %d %s", page.status, page.body)
	}
	brand := ":root{--brand:#0b5394}"
	for _, want := range []string{"A gift from Acme &amp; Sons", `<img class="logo" src="https://cdn.acme.test/logo.png" alt="Acme &amp; Sons">`,
		"<style>" + brand + "</style>", "<blockquote>For Jo &lt;b&gt; at Bits, with thanks.</blockquote><figcaption>Bob</figcaption>",
		`<p class="org-footer">Acme Inc, 1 Main St</p>`} {
		if !strings.Contains(page.body, want) {
			t.Errorf("landing page lacks %s", want)
		}
	}
	sum := sha256.Sum256([]byte(brand))
	if csp := page.header.Get("Content-Security-Policy"); !strings.Contains(csp, "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") ||
		strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q does not allow the brand's style by its hash", csp)
	}

	// An organization with no branding: the service's colour, no extra
	// style, no note.
	plain := f.add(t, "jane@example.com")
	if _, err := access.NewApp(f.s).SetBranding(ctx, f.orgID, gifting.Branding{}); err != nil {
		t.Fatal(err)
	}
	page = f.do(t, "GET", "/gift/"+plain.LandingPageID, nil)
	if strings.Count(page.body, "<style>") != 1 || strings.Contains(page.body, "<figure") || strings.Contains(page.body, `class="logo"`) {
		t.Errorf("unbranded page has brand parts: %s", page.body)
	}
}
