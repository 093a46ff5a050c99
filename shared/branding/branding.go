// Package branding holds the rules of an organization's branding
// (gifting.Branding): what a valid one is, above all a brand colour every
// recipient can read, and how the organization's branding and a template's
// goal (logo, logo colour) combine into the look of one page or email
// (Resolve). Storage keeps the branding on the organization's profile and
// decides nothing.
package branding

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/giftcampaign/service/shared/gifting"
)

// Field bounds: a display or sender name fits a From line, a footer a line
// or two of small print.
const (
	MaxName   = 100
	MaxFooter = 500
)

// MinContrast is WCAG 2.1 AA's contrast ratio for normal text (1.4.3).
const MinContrast = 4.5

// PageText and PageBackground are the colours of the recipient pages' body
// text and background (shared/pages/assets/style.css); White is the text on
// the brand colour's buttons.
const (
	PageText       = "#1f2328"
	PageBackground = "#f4f1ec"
	White          = "#ffffff"
)

// DefaultColor is the service's own accent, used when neither the
// organization nor the template sets a colour.
const DefaultColor = "#b5452b"

// Check validates b and trims its texts in place. Errors:
// VALIDATION_FAILED naming every field at fault; a brand colour too light
// or too dark is refused with the contrast rule it breaks and its ratio.
func Check(b *gifting.Branding) error {
	var p gifting.Problems
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{{"displayName", &b.DisplayName, MaxName}, {"senderName", &b.SenderName, MaxName}, {"footerText", &b.FooterText, MaxFooter}} {
		*f.v = strings.TrimSpace(*f.v)
		if !p.AtMost(f.name, *f.v, f.max) && strings.ContainsFunc(*f.v, unicode.IsControl) {
			p.Add(f.name, "must not contain control characters such as line breaks")
		}
	}
	b.LogoURL = strings.TrimSpace(b.LogoURL)
	if b.LogoURL != "" && (!strings.HasPrefix(b.LogoURL, "https://") || !gifting.ValidURL(b.LogoURL) || gifting.TooLong(b.LogoURL, gifting.MaxURLLength)) {
		p.Add("logoUrl", fmt.Sprintf("must be an https URL of at most %d characters", gifting.MaxURLLength))
	}
	if b.ReplyTo != "" {
		if e, ok := gifting.NormalizeEmail(b.ReplyTo); ok {
			b.ReplyTo = e
		} else {
			p.Add("replyTo", "must be an email address such as support@example.com")
		}
	}
	if b.BrandColor != "" {
		b.BrandColor = strings.ToLower(strings.TrimSpace(b.BrandColor))
		if problem := ColorProblem(b.BrandColor); problem != "" {
			p.Add("brandColor", problem)
		}
	}
	return p.Err()
}

// ColorProblem says what is wrong with c as a brand colour, "" when
// nothing is: it must be a hex colour, white text on it (the buttons) must
// reach MinContrast, and it must reach MinContrast as text on the pages'
// background (links, headings).
func ColorProblem(c string) string {
	if !gifting.ValidHexColour(c) {
		return "must be a hex colour such as #1a2b3c"
	}
	if r := Contrast(White, c); r < MinContrast {
		return fmt.Sprintf("white button text on %s has a contrast of %.2f:1; WCAG 2.1 AA (1.4.3) needs at least 4.5:1, so choose a darker colour", c, r)
	}
	if r := Contrast(c, PageBackground); r < MinContrast {
		return fmt.Sprintf("%s as link text on the page background %s has a contrast of %.2f:1; WCAG 2.1 AA (1.4.3) needs at least 4.5:1, so choose a darker colour", c, PageBackground, r)
	}
	return ""
}

// Contrast is the WCAG 2.1 contrast ratio of two hex colours, from 1 to
// 21; 0 when either is not a hex colour.
func Contrast(a, b string) float64 {
	la, ok1 := luminance(a)
	lb, ok2 := luminance(b)
	if !ok1 || !ok2 {
		return 0
	}
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is WCAG 2.1's relative luminance of a #rrggbb colour.
func luminance(c string) (float64, bool) {
	if !gifting.ValidHexColour(c) {
		return 0, false
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return 0, false
	}
	lin := func(x uint64) float64 {
		s := float64(x) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(v>>16&0xff) + 0.7152*lin(v>>8&0xff) + 0.0722*lin(v&0xff), true
}

// Look is the branding of one page or email, every field set.
type Look struct {
	// Name is who the gift is from: the branding's display name, else
	// the organization's.
	Name string
	// Logo is an https logo URL, "" for none.
	Logo string
	// Color is the accent, always contrast-safe.
	Color string
	// SenderName is the From name of the emails (Name when unset), and
	// ReplyTo their reply-to address ("" for none).
	SenderName, ReplyTo string
	Footer              string
}

// Resolve is the look of a page or email of org whose template's goal has
// logo and logoColor ("" when unset). The template's logo and colour win
// over the organization's, so one campaign can look like a product line;
// a template colour that fails the contrast rules (templates were checked
// only for the hex form) is not used, nor an http logo.
func Resolve(org gifting.Organization, logo, logoColor string) Look {
	b := gifting.Branding{}
	if org.Branding != nil {
		b = *org.Branding
	}
	l := Look{Name: b.DisplayName, Logo: b.LogoURL, Color: b.BrandColor, SenderName: b.SenderName, ReplyTo: b.ReplyTo, Footer: b.FooterText}
	if l.Name == "" {
		l.Name = org.DisplayName
	}
	if l.Name == "" {
		l.Name = org.OrgName
	}
	if strings.HasPrefix(logo, "https://") && gifting.ValidURL(logo) {
		l.Logo = logo
	}
	if c := strings.ToLower(logoColor); c != "" && ColorProblem(c) == "" {
		l.Color = c
	}
	if l.Color == "" || ColorProblem(l.Color) != "" {
		l.Color = DefaultColor
	}
	if l.SenderName == "" {
		l.SenderName = l.Name
	}
	return l
}
