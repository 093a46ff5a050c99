package catalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/branding"
	"github.com/giftcampaign/service/shared/gifting"
)

// Limits of a gift's and a template's fields, in characters (as the API
// document's maxLength counts), in line with the rest of the API: names
// 200, descriptions 2,000, short texts 500, URLs 2,048, lists 50 entries
// of at most 100 characters (a gift's images 20). MaxInventory bounds each
// stock count: far above any real stock, and far below where a sum of two
// counts could wrap or a JSON client's float64 lose exactness.
const (
	maxName        = 200
	maxShort       = 500
	maxDescription = 2000
	maxCategory    = 100
	maxGiftImages  = 20
	MaxInventory   = 1_000_000_000
)

// Bounds of a template's emails: an email's HTML at 100 KB (Gmail clips a
// message past 102 KB), its subject at 998 bytes (a mail header line's
// limit), and all of them at 300 KB, so a template, stored as one item
// with them, stays within DynamoDB's 400 KB.
const (
	MaxEmailHTML      = 100 << 10
	MaxEmailSubject   = 998
	MaxTemplateEmails = 300 << 10
)

// MaxEmailDelayHours bounds an email's delayHours: a year, the longest a
// recipient may take to claim (gifting.MaxClaimExpiresInDays). A larger
// count of hours could overflow a time.Duration and make the email due at
// once.
const MaxEmailDelayHours = 24 * gifting.MaxClaimExpiresInDays

func itoa(i int) string { return strconv.Itoa(i) }

// CheckGift checks a gift a tenant submits and normalizes it in place
// (trims the name, defaults the status to available, cleans the
// collections). Server-owned fields are ignored. Errors: VALIDATION_FAILED
// naming every field at fault.
func CheckGift(g *Gift) error {
	var p gifting.Problems
	g.Name = strings.TrimSpace(g.Name)
	if g.Name == "" {
		p.Add("name", "is required")
	}
	p.AtMost("name", g.Name, maxName)
	p.AtMost("shortDescription", g.ShortDescription, maxShort)
	p.AtMost("description", g.Description, maxDescription)
	if _, err := gifting.CreditsForPrice(g.Price); err != nil {
		p.Add("price", fmt.Sprintf("must be from 0 to %d", gifting.MaxGiftPrice))
	}
	if !gifting.ValidCurrency(g.Currency) {
		p.Add("currency", "must be a three-letter ISO 4217 code such as USD")
	}
	if g.Status == "" {
		g.Status = GiftAvailable
	} else if !g.Status.Valid() {
		p.Add("status", "must be one of available, pending, in_transit, delivered")
	}
	checkInventoryAt(&p, "inventory", g.Inventory)
	checkVariants(&p, g)
	checkType(&p, g)
	if len(g.ImageURLs) > maxGiftImages {
		p.Add("imageUrls", "must hold at most "+itoa(maxGiftImages)+" entries")
	} else {
		for i, u := range g.ImageURLs {
			if !validURL(u) && !gifting.DemoImagePath(u) {
				p.Add("imageUrls", "entry "+itoa(i)+" is not an http(s) URL of at most "+itoa(gifting.MaxURLLength)+" characters, nor a demo image such as /assets/gifts/coffee.png")
			}
		}
	}
	if g.CollectionIDs != nil {
		g.CollectionIDs = gifting.CleanStrings(&p, "collectionIds", g.CollectionIDs, gifting.MaxListEntries, gifting.MaxListEntryLength)
	}
	checkMeasures(&p, g.Dimensions, g.Weight)
	return p.Err()
}

// checkInventoryAt keeps every count of the inventory named field within
// 0 to MaxInventory and the units available and reserved within the
// total.
func checkInventoryAt(p *gifting.Problems, field string, inv Inventory) {
	switch {
	case inv.Total < 0 || inv.Available < 0 || inv.Reserved < 0:
		p.Add(field, "counts must be zero or more")
	case inv.Total > MaxInventory || inv.Available > MaxInventory || inv.Reserved > MaxInventory:
		p.Add(field, "counts must be at most "+itoa(MaxInventory))
	case inv.Available+inv.Reserved > inv.Total:
		p.Add(field, "available plus reserved must not exceed total")
	}
}

// checkType defaults a gift's type to physical and keeps a digital gift's
// counts to its codes: they start at zero and only code uploads and
// claims move them (shared/giftcodes), so inventory sent with a digital
// gift must be zero or left out.
func checkType(p *gifting.Problems, g *Gift) {
	switch {
	case g.Type == "":
		g.Type = GiftPhysical
	case !slices.Contains(GiftTypes, g.Type):
		p.Add("type", "must be physical or digital")
	case g.Type == GiftDigital && len(g.Variants) > 0:
		p.Add("variants", "a digital gift has no variants: each code is one gift")
	case g.Type == GiftDigital && g.Inventory != (Inventory{}):
		p.Add("inventory", "must be zero or left out for a digital gift: its stock is the codes uploaded to it (POST /gifts/{giftId}/codes)")
	}
}

// checkMeasures checks a gift's dimensions and weight, when it has them.
func checkMeasures(p *gifting.Problems, d *Dimensions, w *Weight) {
	if d != nil {
		if d.Height < 0 || d.Width < 0 || d.Length < 0 {
			p.Add("dimensions", "must be zero or more")
		}
		if !slices.Contains(DimensionUnits, d.Unit) {
			p.Add("dimensions.unit", "must be one of "+strings.Join(DimensionUnits, ", "))
		}
	}
	if w != nil {
		if w.Weight < 0 {
			p.Add("weight.weight", "must be zero or more")
		}
		if !slices.Contains(WeightUnits, w.Unit) {
			p.Add("weight.unit", "must be one of "+strings.Join(WeightUnits, ", "))
		}
	}
}

// CheckTemplate checks a template a tenant submits and normalizes it in
// place (trims the name and category, cleans the tags). Errors:
// VALIDATION_FAILED naming every field at fault.
func CheckTemplate(t *Template) error {
	var p gifting.Problems
	t.TemplateName = strings.TrimSpace(t.TemplateName)
	if t.TemplateName == "" {
		p.Add("templateName", "is required")
	}
	p.AtMost("templateName", t.TemplateName, maxName)
	t.TemplateCategory = strings.TrimSpace(t.TemplateCategory)
	p.AtMost("templateCategory", t.TemplateCategory, maxCategory)
	p.AtMost("description", t.Description, maxDescription)
	t.Tags = gifting.CleanStrings(&p, "tags", t.Tags, gifting.MaxListEntries, gifting.MaxListEntryLength)
	if t.SuccessRate < 0 || t.SuccessRate > 100 {
		p.Add("successRate", "must be between 0 and 100")
	}
	if t.ImageURL != "" && !validURL(t.ImageURL) {
		p.Add("imageUrl", "must be an http(s) URL of at most "+itoa(gifting.MaxURLLength)+" characters")
	}
	g := t.TemplateData.Goal
	p.AtMost("templateData.goal.goalId", g.GoalID, gifting.MaxListEntryLength)
	p.AtMost("templateData.goal.name", g.Name, maxName)
	p.AtMost("templateData.goal.description", g.Description, maxDescription)
	checkLook(&p, &t.TemplateData.Goal)
	checkEmails(&p, t.TemplateData.Emails)
	if m := t.TemplateData.Meeting; m != nil {
		t.TemplateData.Meeting = gifting.SetMeeting(&p, "templateData.meeting", *m)
	}
	return p.Err()
}

// checkLook checks the logo and colour a template's goal gives the pages
// and emails of its campaigns by the organization branding's rules
// (branding.Check): an https logo, and a colour white button text and the
// pages' links can be read on (branding.ColorProblem, which names the
// rule and the ratio). The colour is stored in lower case.
func checkLook(p *gifting.Problems, g *Goal) {
	g.Logo = strings.TrimSpace(g.Logo)
	if g.Logo != "" && (!strings.HasPrefix(g.Logo, "https://") || !validURL(g.Logo)) {
		p.Add("templateData.goal.logo", "must be an https URL of at most "+itoa(gifting.MaxURLLength)+" characters")
	}
	if g.LogoColor = strings.ToLower(strings.TrimSpace(g.LogoColor)); g.LogoColor != "" {
		if problem := branding.ColorProblem(g.LogoColor); problem != "" {
			p.Add("templateData.goal.logoColor", problem)
		}
	}
}

// validURL reports whether u is an http(s) URL within the length bound.
func validURL(u string) bool { return !gifting.TooLong(u, gifting.MaxURLLength) && gifting.ValidURL(u) }

// checkEmails checks each email a template sends: a known kind, a subject
// that is one header line, HTML a mail client shows whole, a delay within
// a year; and all of them within what one stored template holds.
func checkEmails(p *gifting.Problems, emails map[string]Email) {
	total := 0
	for kind, e := range emails {
		field := "templateData.emails." + kind
		if !slices.Contains(gifting.EmailKinds, kind) {
			p.Add(field, "is not an email kind; use "+strings.Join(gifting.EmailKinds, ", "))
			continue
		}
		if strings.TrimSpace(e.Subject) == "" {
			p.Add(field+".subject", "is required")
		} else if len(e.Subject) > MaxEmailSubject {
			p.Add(field+".subject", fmt.Sprintf("must be at most %d bytes", MaxEmailSubject))
		} else if strings.ContainsAny(e.Subject, "\r\n") {
			p.Add(field+".subject", "must be one line (a mail header holds no line break)")
		}
		if len(e.HTML) > MaxEmailHTML {
			p.Add(field+".html", fmt.Sprintf("must be at most %d KB (mail clients clip longer messages)", MaxEmailHTML/1024))
		}
		if e.DelayHours < 0 || e.DelayHours > MaxEmailDelayHours {
			p.Add(field+".delayHours", fmt.Sprintf("must be from 0 to %d (a year)", MaxEmailDelayHours))
		}
		total += len(e.Subject) + len(e.HTML)
	}
	if total > MaxTemplateEmails {
		p.Add("templateData.emails", fmt.Sprintf("must be at most %d KB in all (subjects and HTML)", MaxTemplateEmails/1024))
	}
}
