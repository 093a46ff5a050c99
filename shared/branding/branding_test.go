package branding

import (
	"math"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestContrastMatchesWCAG: the ratios WCAG's own examples give.
func TestContrastMatchesWCAG(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want float64
	}{
		{"#000000", "#ffffff", 21},
		{"#ffffff", "#ffffff", 1},
		{"#767676", "#ffffff", 4.54}, // the lightest grey AA allows on white
		{"#777777", "#ffffff", 4.48},
	} {
		if got := Contrast(tt.a, tt.b); math.Abs(got-tt.want) > 0.01 {
			t.Errorf("Contrast(%s, %s) = %.3f, want %.2f", tt.a, tt.b, got, tt.want)
		}
	}
	if Contrast("red", "#ffffff") != 0 {
		t.Error("a named colour has a contrast")
	}
}

// TestCheckRefusesUnreadableColours: a colour white text cannot be read
// on, or one too light as text on the page, is refused with the rule it
// breaks; a dark colour passes, lower-cased.
func TestCheckRefusesUnreadableColours(t *testing.T) {
	for colour, want := range map[string]string{
		"#FFD700": "white button text on #ffd700",
		"#8a8a8a": "white button text",
		"#1a2b3c": "",
		"#B5452B": "",
		"1a2b3c":  "hex colour",
	} {
		b := gifting.Branding{BrandColor: colour}
		err := Check(&b)
		if want == "" {
			if err != nil || b.BrandColor != strings.ToLower(colour) {
				t.Errorf("%s: %v, stored %q", colour, err, b.BrandColor)
			}
			continue
		}
		d := details(t, err)
		if !strings.Contains(d["brandColor"], want) || (want != "hex colour" && !strings.Contains(d["brandColor"], "4.5:1")) {
			t.Errorf("%s: brandColor problem %q, want one naming %q and 4.5:1", colour, d["brandColor"], want)
		}
	}
}

// TestCheckNamesEveryBadField: an http logo, a bad reply-to, a name with
// a line break (a header injection) and an over-long footer are each named.
func TestCheckNamesEveryBadField(t *testing.T) {
	b := gifting.Branding{LogoURL: "http://logo.test/a.png", ReplyTo: "not-an-address", SenderName: "Ann\r\nBcc: x@y.test",
		FooterText: strings.Repeat("f", MaxFooter+1), DisplayName: "  Acme  "}
	d := details(t, Check(&b))
	for _, f := range []string{"logoUrl", "replyTo", "senderName", "footerText"} {
		if d[f] == "" {
			t.Errorf("no problem named for %s: %v", f, d)
		}
	}
	if _, ok := d["displayName"]; ok || b.DisplayName != "Acme" {
		t.Errorf("displayName %q, problems %v", b.DisplayName, d)
	}
	ok := gifting.Branding{LogoURL: "https://logo.test/a.png", ReplyTo: "Help@Acme.Test"}
	if err := Check(&ok); err != nil || ok.ReplyTo != "help@acme.test" {
		t.Errorf("valid branding: %v, replyTo %q", err, ok.ReplyTo)
	}
}

// TestResolveTemplateOverrides: a template's logo and a readable colour
// win over the organization's; an unreadable template colour or an http
// logo does not; with nothing set, the service's defaults and the
// organization's name.
func TestResolveTemplateOverrides(t *testing.T) {
	org := gifting.Organization{OrgName: "Acme Inc", Branding: &gifting.Branding{LogoURL: "https://acme.test/l.png", BrandColor: "#1a2b3c", ReplyTo: "hi@acme.test"}}
	l := Resolve(org, "https://acme.test/q4.png", "#0b5394")
	if l.Logo != "https://acme.test/q4.png" || l.Color != "#0b5394" || l.Name != "Acme Inc" || l.SenderName != "Acme Inc" || l.ReplyTo != "hi@acme.test" {
		t.Errorf("override: %+v", l)
	}
	l = Resolve(org, "http://acme.test/q4.png", "#ffff00")
	if l.Logo != "https://acme.test/l.png" || l.Color != "#1a2b3c" {
		t.Errorf("unsafe override used: %+v", l)
	}
	l = Resolve(gifting.Organization{DisplayName: "Acme"}, "", "")
	if l.Color != DefaultColor || l.Logo != "" || l.Name != "Acme" {
		t.Errorf("defaults: %+v", l)
	}
	if ColorProblem(DefaultColor) != "" {
		t.Errorf("the default colour fails its own rule: %s", ColorProblem(DefaultColor))
	}
}

// details is the per-field problems of a VALIDATION_FAILED error.
func details(t *testing.T, err error) map[string]string {
	t.Helper()
	e, ok := err.(*gifting.Error)
	if !ok || e.Code != gifting.CodeValidation {
		t.Fatalf("error %v, want VALIDATION_FAILED", err)
	}
	return e.Details
}
