package gifting

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// GiftStatus is the state of a gift (docs/api.md, the original interface).
type GiftStatus string

// Gift states.
const (
	GiftAvailable GiftStatus = "available"
	GiftPending   GiftStatus = "pending"
	GiftInTransit GiftStatus = "in_transit"
	GiftDelivered GiftStatus = "delivered"
)

// GiftStatuses lists every gift state, in the original interface's order.
var GiftStatuses = []GiftStatus{GiftAvailable, GiftPending, GiftInTransit, GiftDelivered}

// Valid reports whether s is a known gift state.
func (s GiftStatus) Valid() bool {
	for _, v := range GiftStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// Gift is a gift of the catalog (the OpenAPI schema Gift).
type Gift struct {
	GiftID           string      `json:"giftId"`
	OrganizationID   string      `json:"organizationId"`
	Name             string      `json:"name"`
	Price            float64     `json:"price"`
	Currency         string      `json:"currency"`
	Inventory        Inventory   `json:"inventory"`
	Status           GiftStatus  `json:"status"`
	IsDelightloop    bool        `json:"isDelightloop"`
	CreatedAt        time.Time   `json:"createdAt"`
	UpdatedAt        time.Time   `json:"updatedAt"`
	ShortDescription string      `json:"shortDescription,omitempty"`
	Description      string      `json:"description,omitempty"`
	ImageURLs        []string    `json:"imageUrls,omitempty"`
	Dimensions       *Dimensions `json:"dimensions,omitempty"`
	Weight           *Weight     `json:"weight,omitempty"`
	CollectionIDs    []string    `json:"collectionIds,omitempty"`
}

// Inventory counts a gift's stock.
type Inventory struct {
	Total     int `json:"total"`
	Available int `json:"available"`
	Reserved  int `json:"reserved"`
}

// Dimensions of a gift.
type Dimensions struct {
	Height float64 `json:"height"`
	Width  float64 `json:"width"`
	Length float64 `json:"length"`
	Unit   string  `json:"unit"`
}

// Weight of a gift.
type Weight struct {
	Weight float64 `json:"weight"`
	Unit   string  `json:"unit"`
}

// Units accepted for gift dimensions and weight. The original interface shows
// inch and pound; the metric units are the ones a catalog also needs.
var (
	DimensionUnits = []string{"inch", "cm"}
	WeightUnits    = []string{"pound", "ounce", "kg", "g"}
)

// Limits of a gift's and a template's fields, in characters (as the API
// document's maxLength counts), in line with the rest of the API: names
// 200, descriptions 2,000, short texts 500, URLs 2,048, lists 50 entries
// of at most 100 characters (a gift's images 20). MaxInventory bounds each
// stock count: far above any real stock, and far below where a sum of two
// counts could wrap or a JSON client's float64 lose exactness.
const (
	maxCatalogName        = 200
	maxCatalogShort       = 500
	maxCatalogDescription = 2000
	maxCategory           = 100
	maxGiftImages         = 20
	MaxInventory          = 1_000_000_000
)

// Validate checks a gift a tenant submits. Server-owned fields are ignored.
func (g *Gift) Validate() error {
	var p Problems
	g.Name = strings.TrimSpace(g.Name)
	if g.Name == "" {
		p.Add("name", "is required")
	}
	p.AtMost("name", g.Name, maxCatalogName)
	p.AtMost("shortDescription", g.ShortDescription, maxCatalogShort)
	p.AtMost("description", g.Description, maxCatalogDescription)
	if _, err := CreditsForPrice(g.Price); err != nil {
		p.Add("price", fmt.Sprintf("must be from 0 to %d", MaxGiftPrice))
	}
	if !ValidCurrency(g.Currency) {
		p.Add("currency", "must be a three-letter ISO 4217 code such as USD")
	}
	if g.Status == "" {
		g.Status = GiftAvailable
	} else if !g.Status.Valid() {
		p.Add("status", "must be one of available, pending, in_transit, delivered")
	}
	inv := g.Inventory
	switch {
	case inv.Total < 0 || inv.Available < 0 || inv.Reserved < 0:
		p.Add("inventory", "counts must be zero or more")
	case inv.Total > MaxInventory || inv.Available > MaxInventory || inv.Reserved > MaxInventory:
		p.Add("inventory", "counts must be at most "+itoa(MaxInventory))
	case inv.Available+inv.Reserved > inv.Total:
		p.Add("inventory", "available plus reserved must not exceed total")
	}
	if len(g.ImageURLs) > maxGiftImages {
		p.Add("imageUrls", "must hold at most "+itoa(maxGiftImages)+" entries")
	} else {
		for i, u := range g.ImageURLs {
			if tooLong(u, maxURLLen) || !ValidURL(u) {
				p.Add("imageUrls", "entry "+itoa(i)+" is not an http(s) URL of at most "+itoa(maxURLLen)+" characters")
			}
		}
	}
	if g.CollectionIDs != nil {
		g.CollectionIDs = CleanStrings(&p, "collectionIds", g.CollectionIDs, maxCriteria, maxCriterionLen)
	}
	if d := g.Dimensions; d != nil {
		if d.Height < 0 || d.Width < 0 || d.Length < 0 {
			p.Add("dimensions", "must be zero or more")
		}
		if !slices.Contains(DimensionUnits, d.Unit) {
			p.Add("dimensions.unit", "must be one of "+strings.Join(DimensionUnits, ", "))
		}
	}
	if w := g.Weight; w != nil {
		if w.Weight < 0 {
			p.Add("weight.weight", "must be zero or more")
		}
		if !slices.Contains(WeightUnits, w.Unit) {
			p.Add("weight.unit", "must be one of "+strings.Join(WeightUnits, ", "))
		}
	}
	return p.Err()
}

// Template is an email template (the OpenAPI schema Template).
type Template struct {
	TemplateID       string       `json:"templateId"`
	OrganizationID   string       `json:"organizationId"`
	TemplateName     string       `json:"templateName"`
	TemplateCategory string       `json:"templateCategory"`
	IsDelightloop    bool         `json:"isDelightloop"`
	Tags             []string     `json:"tags"`
	SuccessRate      float64      `json:"successRate"`
	TemplateData     TemplateData `json:"templateData"`
	CreatedAt        time.Time    `json:"createdAt"`
	UpdatedAt        time.Time    `json:"updatedAt"`
	Description      string       `json:"description"`
	ImageURL         string       `json:"imageUrl"`
}

// TemplateData holds the goal of a template and the email it sends. The
// original interface shows only the goal; the emails are this service's
// decision (docs/resources.md, Templates).
type TemplateData struct {
	Goal   Goal                     `json:"goal"`
	Emails map[string]EmailTemplate `json:"emails,omitempty"`
}

// Goal is what a template is for.
type Goal struct {
	GoalID      string `json:"goalId"`
	Name        string `json:"name"`
	Description string `json:"description"`
	Logo        string `json:"logo"`
	LogoColor   string `json:"logoColor"`
}

// EmailTemplate is the subject and body of one scheduled email, and when it
// goes out relative to the recipient being added.
type EmailTemplate struct {
	Subject string `json:"subject"`
	HTML    string `json:"html"`
	// DelayHours is when the email is scheduled, in hours after the
	// recipient is added (0 = immediately).
	DelayHours int `json:"delayHours"`
}

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
// recipient may take to claim (MaxClaimExpiresInDays). A larger count of
// hours could overflow a time.Duration and make the email due at once.
const MaxEmailDelayHours = 24 * MaxClaimExpiresInDays

// EmailKinds are the scheduled emails of a recipient, in send order.
var EmailKinds = []string{"addressConfirmation", "reminder1", "reminder2", "postDelivery", "postAcknowledgement"}

// Validate checks a template a tenant submits.
func (t *Template) Validate() error {
	var p Problems
	t.TemplateName = strings.TrimSpace(t.TemplateName)
	if t.TemplateName == "" {
		p.Add("templateName", "is required")
	}
	p.AtMost("templateName", t.TemplateName, maxCatalogName)
	t.TemplateCategory = strings.TrimSpace(t.TemplateCategory)
	p.AtMost("templateCategory", t.TemplateCategory, maxCategory)
	p.AtMost("description", t.Description, maxCatalogDescription)
	t.Tags = CleanStrings(&p, "tags", t.Tags, maxCriteria, maxCriterionLen)
	if t.SuccessRate < 0 || t.SuccessRate > 100 {
		p.Add("successRate", "must be between 0 and 100")
	}
	if t.ImageURL != "" && (tooLong(t.ImageURL, maxURLLen) || !ValidURL(t.ImageURL)) {
		p.Add("imageUrl", "must be an http(s) URL of at most "+itoa(maxURLLen)+" characters")
	}
	g := t.TemplateData.Goal
	p.AtMost("templateData.goal.goalId", g.GoalID, maxCriterionLen)
	p.AtMost("templateData.goal.name", g.Name, maxCatalogName)
	p.AtMost("templateData.goal.description", g.Description, maxCatalogDescription)
	if g.Logo != "" && (tooLong(g.Logo, maxURLLen) || !ValidURL(g.Logo)) {
		p.Add("templateData.goal.logo", "must be an http(s) URL of at most "+itoa(maxURLLen)+" characters")
	}
	if g.LogoColor != "" && !ValidHexColour(g.LogoColor) {
		p.Add("templateData.goal.logoColor", "must be a hex colour such as #1a2b3c")
	}
	total := 0
	for kind, e := range t.TemplateData.Emails {
		if !slices.Contains(EmailKinds, kind) {
			p.Add("templateData.emails."+kind, "is not an email kind; use "+strings.Join(EmailKinds, ", "))
			continue
		}
		if strings.TrimSpace(e.Subject) == "" {
			p.Add("templateData.emails."+kind+".subject", "is required")
		} else if len(e.Subject) > MaxEmailSubject {
			p.Add("templateData.emails."+kind+".subject", fmt.Sprintf("must be at most %d bytes", MaxEmailSubject))
		} else if strings.ContainsAny(e.Subject, "\r\n") {
			p.Add("templateData.emails."+kind+".subject", "must be one line (a mail header holds no line break)")
		}
		if len(e.HTML) > MaxEmailHTML {
			p.Add("templateData.emails."+kind+".html", fmt.Sprintf("must be at most %d KB (mail clients clip longer messages)", MaxEmailHTML/1024))
		}
		if e.DelayHours < 0 || e.DelayHours > MaxEmailDelayHours {
			p.Add("templateData.emails."+kind+".delayHours", fmt.Sprintf("must be from 0 to %d (a year)", MaxEmailDelayHours))
		}
		total += len(e.Subject) + len(e.HTML)
	}
	if total > MaxTemplateEmails {
		p.Add("templateData.emails", fmt.Sprintf("must be at most %d KB in all (subjects and HTML)", MaxTemplateEmails/1024))
	}
	return p.Err()
}
