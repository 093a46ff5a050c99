package webhook

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Bounds and timings of endpoints and deliveries.
const (
	// MaxEndpoints is how many endpoints an organization may have.
	MaxEndpoints = 20
	// MaxDescription bounds an endpoint's description.
	MaxDescription = 500
	// SecretOverlap is how long a rotated-out secret keeps signing.
	SecretOverlap = 24 * time.Hour
	// DeliveryLease is how long a delivery started from the stream waits
	// before the scheduler tick takes it over (a process that died before
	// the first attempt).
	DeliveryLease = time.Minute
	// DisableAfter is how long an endpoint may fail every attempt before
	// it is disabled.
	DisableAfter = 72 * time.Hour
	// JobDelivery is the due-item kind of a delivery awaiting a retry; its
	// ref is DeliveryRef.
	JobDelivery = "webhook.delivery"
)

// Delays are the waits before each retry: after the first attempt fails,
// about 5 s, then 5 min, 30 min, 2 h, 8 h and 24 h; a message whose last
// retry fails is given up.
var Delays = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 8 * time.Hour, 24 * time.Hour}

// Validate checks an endpoint's fields: an absolute http(s) URL without
// credentials, at least one known event type (or "*"), a short
// description. Whether the URL's scheme and address are allowed where the
// service runs is CheckInput's.
func (in Input) Validate() error {
	var p gifting.Problems
	if msg := urlProblem(in.URL); msg != "" {
		p.Add("url", msg)
	}
	if msg := eventsProblem(in.Events); msg != "" {
		p.Add("events", msg)
	}
	if len(in.Description) > MaxDescription {
		p.Add("description", "must be at most 500 characters")
	}
	return p.Err()
}

func urlProblem(raw string) string {
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
		if e != gifting.ChangeAll && !slices.Contains(gifting.ChangeTypes, e) {
			return "unknown event type \"" + e + "\"; known: * " + strings.Join(gifting.ChangeTypes, " ")
		}
	}
	return ""
}

// CheckInput validates in, then refuses a URL deliveries would never go to
// where the service runs: checkURL (Sender.CheckURL) says why, and the
// answer is VALIDATION_FAILED naming "url".
func CheckInput(in Input, checkURL func(string) error) error {
	if err := in.Validate(); err != nil {
		return err
	}
	if err := checkURL(in.URL); err != nil {
		return gifting.Problems{"url": err.Error() + "; webhooks go only to public https endpoints"}.Err()
	}
	return nil
}

// CheckCount refuses a new endpoint to an organization that has have
// already: CONFLICT once it has MaxEndpoints.
func CheckCount(have int) error {
	if have >= MaxEndpoints {
		return gifting.Errorf(gifting.CodeConflict, "an organization has at most %d webhook endpoints; delete one first", MaxEndpoints)
	}
	return nil
}

// NewEndpoint is the endpoint id of orgID that in creates at now, enabled,
// signing with the secret sealed (SecretOwner of id).
func NewEndpoint(id, orgID string, in Input, sealed string, now time.Time) Endpoint {
	return Endpoint{ID: id, OrgID: orgID, URL: in.URL, Events: in.Events, Description: in.Description,
		Enabled: true, CreatedAt: now, UpdatedAt: now, SealedSecret: sealed}
}

// Patched is e changed by p, or p's VALIDATION_FAILED (CheckInput of the
// fields as they would be). Enabling a disabled endpoint clears its reason
// and its failure record.
func (e Endpoint) Patched(p Patch, checkURL func(string) error) (Endpoint, error) {
	in := Input{URL: e.URL, Events: e.Events, Description: e.Description}
	if p.URL != nil {
		in.URL = *p.URL
	}
	if p.Events != nil {
		in.Events = *p.Events
	}
	if p.Description != nil {
		in.Description = *p.Description
	}
	if err := CheckInput(in, checkURL); err != nil {
		return e, err
	}
	e.URL, e.Events, e.Description = in.URL, in.Events, in.Description
	if p.Enabled != nil {
		if *p.Enabled && !e.Enabled {
			e.DisabledReason, e.FailingSince = "", nil
		}
		e.Enabled = *p.Enabled
	}
	return e, nil
}

// Rotated is e signing with the sealed secret current from now, and with
// prev (its secret until now, sealed) beside it for SecretOverlap. Its
// clear secrets, if it had any, are gone.
func (e Endpoint) Rotated(current, prev string, now time.Time) Endpoint {
	until := now.Add(SecretOverlap)
	e.SealedSecret, e.SealedPrevSecret, e.PrevUntil = current, prev, &until
	e.ClearSecret, e.ClearPrevSecret = "", ""
	return e
}

// Versioned is e as an update written at now leaves it: UpdatedAt moves to
// now, or a millisecond past the version read when now is not later (a
// clock behind the writer's before), so every update moves the version
// the next one is conditioned on.
func (e Endpoint) Versioned(read time.Time, now time.Time) Endpoint {
	e.UpdatedAt = now
	if !now.After(read) {
		e.UpdatedAt = read.Add(time.Millisecond)
	}
	return e
}

// Wants reports whether the endpoint is enabled and subscribed to typ.
func (e Endpoint) Wants(typ string) bool {
	return e.Enabled && (slices.Contains(e.Events, gifting.ChangeAll) || slices.Contains(e.Events, typ))
}

// SecretOwner names the endpoint a secret is sealed for: a sealed secret
// copied onto another endpoint's item (or another organization's) does not
// open there. Ids have no "/", so the parts cannot run together.
func SecretOwner(orgID, webhookID string) string {
	return "webhook-secret/" + orgID + "/" + webhookID
}

// StoredSecrets are the stored secrets (sealed, or clear when written
// before sealing) that sign a message sent at now: the current one, and
// the previous one until PrevUntil.
func (e Endpoint) StoredSecrets(now time.Time) []string {
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

// NoEndpoint is the error a user sees for an endpoint that does not exist
// (or is another organization's): NOT_FOUND.
func NoEndpoint(id string) error { return gifting.NotFound("webhook", id) }
