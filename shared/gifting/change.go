package gifting

import (
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Types of change messages: what the change feed holds and webhooks
// deliver. Each message's data is the resource as the change left it.
const (
	ChangeCampaignLaunched  = "campaign.launched"
	ChangeCampaignLive      = "campaign.live"
	ChangeCampaignPaused    = "campaign.paused"
	ChangeCampaignResumed   = "campaign.resumed"
	ChangeCampaignCompleted = "campaign.completed"
	ChangeRecipientCreated  = "recipient.created"
	ChangeRecipientStatus   = "recipient.status_changed"
	ChangeRecipientFeedback = "recipient.feedback"
	ChangeWalletDebited     = "wallet.debited"
	ChangeWalletRefunded    = "wallet.refunded"
	ChangeWalletToppedUp    = "wallet.topped_up"
	ChangeAudienceReady     = "audience.ready"
	ChangeAudienceFailed    = "audience.failed"
	// ChangeWebhookTest is sent by POST …/webhooks/{id}/test only; it is
	// never in the change feed.
	ChangeWebhookTest = "webhook.test"
	// ChangeAll subscribes an endpoint to every type.
	ChangeAll = "*"
)

// ChangeTypes are the types an endpoint can subscribe to, besides "*".
var ChangeTypes = []string{
	ChangeCampaignLaunched, ChangeCampaignLive, ChangeCampaignPaused, ChangeCampaignResumed, ChangeCampaignCompleted,
	ChangeRecipientCreated, ChangeRecipientStatus, ChangeRecipientFeedback,
	ChangeWalletDebited, ChangeWalletRefunded, ChangeWalletToppedUp,
	ChangeAudienceReady, ChangeAudienceFailed,
}

// Change is one message of the change feed and of webhook deliveries:
// {id, type, createdAt, organizationId, data}. Messages are written in the
// same transaction as the change they describe, so a change that did not
// commit has none and one that did always has its own.
type Change struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	CreatedAt      time.Time `json:"createdAt"`
	OrganizationID string    `json:"organizationId"`
	Data           any       `json:"data"`
}

// NewChange is a message of type typ about data; the store fills in the
// id, the time and the organization when it writes it.
func NewChange(typ string, data any) Change { return Change{Type: typ, Data: data} }

// RecipientStatusChange is the data of recipient.status_changed: the
// recipient as moved, and the status it left.
type RecipientStatusChange struct {
	Recipient
	PreviousStatus RecipientStatus `json:"previousStatus"`
}

// ChangePage is a page of the change feed: messages in commit order, and
// the cursor that continues after the last one ("" stays where it is: pass
// the same cursor again later).
type ChangePage struct {
	Items      []json.RawMessage `json:"items"`
	NextCursor string            `json:"nextCursor"`
}

// Webhook is an endpoint of an organization that change messages are
// delivered to. Its secret is never part of it: it is shown only when the
// endpoint is created and when it is rotated.
type Webhook struct {
	WebhookID      string    `json:"webhookId"`
	OrganizationID string    `json:"organizationId"`
	URL            string    `json:"url"`
	Events         []string  `json:"events"`
	Description    string    `json:"description"`
	Enabled        bool      `json:"enabled"`
	DisabledReason string    `json:"disabledReason,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// Wants reports whether the endpoint is enabled and subscribed to typ.
func (w Webhook) Wants(typ string) bool {
	return w.Enabled && (slices.Contains(w.Events, ChangeAll) || slices.Contains(w.Events, typ))
}

// WebhookInput creates an endpoint.
type WebhookInput struct {
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
}

// WebhookPatch changes an endpoint; nil fields stay as they are.
type WebhookPatch struct {
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Description *string   `json:"description"`
	Enabled     *bool     `json:"enabled"`
}

// WebhookSecret is an endpoint with its signing secret, the answer to a
// create and to a rotation.
type WebhookSecret struct {
	Webhook
	Secret string `json:"secret"`
}

// Delivery outcomes.
const (
	DeliveryDelivered = "delivered"
	DeliveryRetrying  = "retrying"
	DeliveryFailed    = "failed"
)

// Delivery is one attempt to deliver a message to an endpoint, as the
// deliveries log shows it.
type Delivery struct {
	DeliveryID string    `json:"deliveryId"`
	MessageID  string    `json:"messageId"`
	Type       string    `json:"type"`
	Attempt    int       `json:"attempt"`
	StatusCode int       `json:"statusCode"`
	DurationMs int64     `json:"durationMs"`
	Error      string    `json:"error,omitempty"`
	Outcome    string    `json:"outcome"`
	At         time.Time `json:"at"`
	// NextAttemptAt is when a retrying delivery is tried again.
	NextAttemptAt *time.Time `json:"nextAttemptAt,omitempty"`
}

// MaxWebhookDescription bounds an endpoint's description.
const MaxWebhookDescription = 500

// Validate checks an endpoint's fields: an absolute http(s) URL without
// credentials, at least one known event type (or "*"), a short description.
// Whether the URL's scheme and address are allowed where the service runs
// is the delivery's business (shared/webhooks.CheckURL).
func (in WebhookInput) Validate() error {
	var p Problems
	if msg := webhookURLProblem(in.URL); msg != "" {
		p.Add("url", msg)
	}
	if msg := eventsProblem(in.Events); msg != "" {
		p.Add("events", msg)
	}
	if len(in.Description) > MaxWebhookDescription {
		p.Add("description", "must be at most 500 characters")
	}
	return p.Err()
}

func webhookURLProblem(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return "is required"
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		return "must be an absolute http or https URL"
	case u.User != nil:
		return "must not carry credentials"
	case len(raw) > 2000:
		return "must be at most 2000 characters"
	}
	return ""
}

func eventsProblem(events []string) string {
	if len(events) == 0 {
		return "must name at least one event type, or \"*\" for all"
	}
	for _, e := range events {
		if e != ChangeAll && !slices.Contains(ChangeTypes, e) {
			return "unknown event type \"" + e + "\"; known: * " + strings.Join(ChangeTypes, " ")
		}
	}
	return ""
}

// Built is the audience list as its build leaves it at now: ready, or
// failed with reason when reason is not empty.
func (a AudienceList) Built(now time.Time, reason string) AudienceList {
	a.Status, a.UpdatedAt, a.Metadata.BuildFinishedAt = AudienceReady, now, &now
	if reason != "" {
		a.Status, a.Metadata.Error = AudienceFailed, reason
	}
	return a
}

// JobWebhookDelivery is the due-item kind of a message's delivery to an
// endpoint awaiting a retry; its ref is "<webhookId>/<messageId>".
const JobWebhookDelivery = "webhook.delivery"

// WebhookEndpoint is an endpoint as stored: with its signing secrets,
// sealed (shared/sealed) for the endpoint, and its failure state, which
// the API never shows.
type WebhookEndpoint struct {
	Webhook
	// SealedSecret is the signing secret, sealed for WebhookSecretOwner.
	SealedSecret string `json:"sealedSecret,omitempty"`
	// SealedPrevSecret keeps signing beside SealedSecret until PrevUntil,
	// so a receiver can switch after a rotation without losing a message.
	SealedPrevSecret string     `json:"sealedPrevSecret,omitempty"`
	PrevUntil        *time.Time `json:"prevUntil,omitempty"`
	// ClearSecret and ClearPrevSecret are the secrets of an endpoint
	// written before secrets were sealed, in clear. They keep signing
	// until a rotation or the webhook-secrets step of `admin migrate`
	// seals them; nothing writes them any more.
	ClearSecret     string `json:"secret,omitempty"`
	ClearPrevSecret string `json:"prevSecret,omitempty"`
	// FailingSince is the first failed attempt since the last success.
	FailingSince *time.Time `json:"failingSince,omitempty"`
}

// WebhookSecretOwner names the endpoint a secret is sealed for: a sealed
// secret copied onto another endpoint's item (or another organization's)
// does not open there. Ids have no "/", so the parts cannot run together.
func WebhookSecretOwner(orgID, webhookID string) string {
	return "webhook-secret/" + orgID + "/" + webhookID
}

// StoredSecrets are the stored secrets (sealed, or clear when written
// before sealing) that sign a message sent at now: the current one, and
// the previous one until PrevUntil.
func (e WebhookEndpoint) StoredSecrets(now time.Time) []string {
	current, prev := e.SealedSecret, e.SealedPrevSecret
	if current == "" {
		current = e.ClearSecret
	}
	if prev == "" {
		prev = e.ClearPrevSecret
	}
	if prev != "" && e.PrevUntil != nil && now.Before(*e.PrevUntil) {
		return []string{current, prev}
	}
	return []string{current}
}

// PendingDelivery is a message on its way to an endpoint: its body as
// first built (a retry sends the same bytes, so the same webhook-id) and
// the attempts made so far.
type PendingDelivery struct {
	WebhookID string `json:"webhookId"`
	MessageID string `json:"messageId"`
	Type      string `json:"type"`
	Body      string `json:"body"`
	Attempts  int    `json:"attempts"`
}
