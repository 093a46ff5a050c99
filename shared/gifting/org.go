package gifting

import "time"

// CatalogOrgID is the organization that owns the service's own catalog of
// gifts and templates (isDelightloop: true). Every organization can read it;
// none can write it through the API.
const CatalogOrgID = "delightloop"

// Organization is a tenant. Its fields are those of the `organization` object
// of the recipient list (docs/api.md, the original interface).
type Organization struct {
	OrgID       string    `json:"orgId"`
	Domain      string    `json:"domain"`
	DisplayName string    `json:"displayName"`
	OrgName     string    `json:"orgName"`
	Budget      Budget    `json:"budget"`
	Products    []string  `json:"products"`
	CreatedAt   time.Time `json:"createdAt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	// RateLimits overrides DefaultRateLimits for this organization:
	// requests per RateWindow by class. Absent classes keep the default.
	RateLimits map[RateClass]int `json:"rateLimits,omitempty"`
	// Branding is how the organization's recipient pages and emails look
	// and who they say they are from; nil until it sets any
	// (shared/branding checks it).
	Branding *Branding `json:"branding,omitempty"`
}

// Branding is an organization's look and voice towards its recipients:
// the name its pages and emails show, its logo (https), its colour (hex,
// contrast-safe), the sender name and reply-to address of its emails, and
// a footer line. Empty fields fall back to the service's defaults.
type Branding struct {
	DisplayName string `json:"displayName,omitempty"`
	LogoURL     string `json:"logoUrl,omitempty"`
	BrandColor  string `json:"brandColor,omitempty"`
	SenderName  string `json:"senderName,omitempty"`
	ReplyTo     string `json:"replyTo,omitempty"`
	FooterText  string `json:"footerText,omitempty"`
	// DigitalCodesInEmail opts the organization in to a digital gift's
	// code (and PIN and redemption URL) in the delivered email, beside
	// the link to the landing page; without it the email only links the
	// page, which alone shows the code (docs/digital-gifts.md).
	DigitalCodesInEmail bool       `json:"digitalCodesInEmail,omitempty"`
	UpdatedAt           *time.Time `json:"updatedAt,omitempty"`
}

// RateClass names a group of expensive endpoints that share one
// per-organization request budget.
type RateClass string

// The rate-limited classes of endpoints.
const (
	RateBulkAdd       RateClass = "bulk-add"
	RateLaunch        RateClass = "launch"
	RateEnrichment    RateClass = "enrichment"
	RateAudienceBuild RateClass = "audience-build"
	RateAddRecipient  RateClass = "add-recipient"
)

// RateWindow is the fixed window the per-organization limits count in.
const RateWindow = time.Minute

// DefaultRateLimits are the requests per RateWindow an organization may make in
// each class unless its profile says otherwise. Bulk add allows twice the
// original interface's pace (docs/api.md: 100 contacts a request, a one-second
// pause between requests: at most 60 a minute), so a client keeping that pace
// is never limited.
var DefaultRateLimits = map[RateClass]int{
	RateBulkAdd:       120,
	RateLaunch:        30,
	RateEnrichment:    120,
	RateAudienceBuild: 30,
	RateAddRecipient:  600,
}

// RateLimit is the organization's budget per RateWindow in class.
func (o Organization) RateLimit(class RateClass) int {
	if n, ok := o.RateLimits[class]; ok && n > 0 {
		return n
	}
	return DefaultRateLimits[class]
}

// Budget is an organization's budget in a currency.
type Budget struct {
	Currency string  `json:"currency"`
	Amount   float64 `json:"amount"`
}

// Principal is who is calling: the organization the API key belongs to and
// the user who created the key.
type Principal struct {
	OrgID  string
	UserID string
	KeyID  string
	// Scopes are the key's scopes; none means all (Granted).
	Scopes []Scope
}

// APIKey is the stored record of an API key. The key itself is never
// stored, only its SHA-256 hash.
type APIKey struct {
	KeyID     string     `json:"keyId"`
	OrgID     string     `json:"organizationId"`
	UserID    string     `json:"userId"`
	Name      string     `json:"name,omitempty"`
	CreatedAt time.Time  `json:"createdAt"`
	RevokedAt *time.Time `json:"revokedAt,omitempty"`
	// Scopes are what the key may do; none for a key made before scopes,
	// which holds all of them (Granted).
	Scopes []Scope `json:"scopes,omitempty"`
	// Prefix is the key's first characters, shown to tell keys apart;
	// "" for a key made before it was kept.
	Prefix string `json:"prefix,omitempty"`
	// CreatedBy is the id of the key that created this one ("" when the
	// operator did).
	CreatedBy string `json:"createdBy,omitempty"`
	// LastUsedAt is when the key last authenticated a call, kept at most
	// once a minute (access.App.Resolve).
	LastUsedAt *time.Time `json:"lastUsedAt,omitempty"`
}
