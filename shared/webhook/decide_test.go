package webhook_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/webhooks"
)

// problem is the text of err's problem with field, "" when there is none.
func problem(t *testing.T, err error, field string) string {
	t.Helper()
	var e *gifting.Error
	if err == nil {
		return ""
	}
	if !errors.As(err, &e) || e.Code != gifting.CodeValidation {
		t.Fatalf("%v is not VALIDATION_FAILED", err)
	}
	return e.Details[field]
}

// TestCheckInput: an endpoint's fields are checked, then its address
// against where the service runs, each refusal naming its field in words
// a user can act on.
func TestCheckInput(t *testing.T) {
	t.Parallel()
	deployed := webhooks.NewSender(webhooks.Policy{}).CheckURL
	local := webhooks.NewSender(webhooks.Policy{AllowLocal: true}).CheckURL
	star := []string{"*"}
	for _, tt := range []struct {
		name  string
		in    webhook.Input
		check func(string) error
		field string
		want  string // part of the problem, "" for none
	}{
		{"a public https endpoint", webhook.Input{URL: "https://hooks.example.com/in", Events: star}, deployed, "url", ""},
		{"no url", webhook.Input{Events: star}, deployed, "url", "is required"},
		{"a relative url", webhook.Input{URL: "/hooks", Events: star}, deployed, "url", "must be an absolute http or https URL"},
		{"an ftp url", webhook.Input{URL: "ftp://hooks.example.com/", Events: star}, deployed, "url", "must be an absolute http or https URL"},
		{"credentials in the url", webhook.Input{URL: "https://u:p@hooks.example.com/", Events: star}, deployed, "url", "must not carry credentials"},
		{"a url too long", webhook.Input{URL: "https://hooks.example.com/" + strings.Repeat("a", 2000), Events: star}, deployed, "url", "at most 2000"},
		{"http in a deployment", webhook.Input{URL: "http://hooks.example.com/", Events: star}, deployed, "url",
			"only https URLs; webhooks go only to public https endpoints"},
		{"a private address in a deployment", webhook.Input{URL: "https://10.0.0.7/", Events: star}, deployed, "url",
			"10.0.0.7 is not a public address; webhooks go only to public https endpoints"},
		{"http on loopback locally", webhook.Input{URL: "http://127.0.0.1:8080/", Events: star}, local, "url", ""},
		{"the metadata service even locally", webhook.Input{URL: "http://169.254.169.254/", Events: star}, local, "url", "is not a public address"},
		{"no event type", webhook.Input{URL: "https://hooks.example.com/"}, deployed, "events", `or "*" for all`},
		{"an unknown event type", webhook.Input{URL: "https://hooks.example.com/", Events: []string{"recipient.created", "gift.sent"}}, deployed,
			"events", `unknown event type "gift.sent"; known: * campaign.launched`},
		{"a description too long", webhook.Input{URL: "https://hooks.example.com/", Events: star, Description: strings.Repeat("d", 501)}, deployed,
			"description", "must be at most 500 characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := webhook.CheckInput(tt.in, tt.check)
			got := problem(t, err, tt.field)
			if tt.want == "" && err != nil || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("CheckInput = %v (%s: %q); want %q", err, tt.field, got, tt.want)
			}
		})
	}
}

// TestCheckCount: an organization may have MaxEndpoints endpoints; the
// next one is CONFLICT.
func TestCheckCount(t *testing.T) {
	t.Parallel()
	if err := webhook.CheckCount(webhook.MaxEndpoints - 1); err != nil {
		t.Errorf("the last endpoint allowed: %v", err)
	}
	if err := webhook.CheckCount(webhook.MaxEndpoints); gifting.ErrorCode(err) != gifting.CodeConflict ||
		!strings.Contains(err.Error(), "at most 20 webhook endpoints") {
		t.Errorf("one too many: %v, want CONFLICT", err)
	}
}

// TestPatched: a patch changes only the fields it names, is checked as
// the endpoint would be, and enabling a disabled endpoint clears why it
// was disabled and its failure record; disabling keeps them.
func TestPatched(t *testing.T) {
	t.Parallel()
	since := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	e := webhook.Endpoint{ID: "w1", URL: "https://hooks.example.com/", Events: []string{"*"}, Description: "old",
		Enabled: false, DisabledReason: webhook.GoneReason, FailingSince: &since}
	check := webhooks.NewSender(webhooks.Policy{}).CheckURL
	yes, no, desc, bad := true, false, "new", "http://hooks.example.com/"

	got, err := e.Patched(webhook.Patch{Description: &desc}, check)
	if err != nil || got.Description != "new" || got.URL != e.URL || got.Enabled || got.DisabledReason == "" {
		t.Errorf("a description: %+v, %v; want only the description changed", got, err)
	}
	got, err = e.Patched(webhook.Patch{Enabled: &yes}, check)
	if err != nil || !got.Enabled || got.DisabledReason != "" || got.FailingSince != nil {
		t.Errorf("enabling: %+v, %v; want enabled with no reason and no failure record", got, err)
	}
	on := e
	on.Enabled, on.DisabledReason, on.FailingSince = true, "", &since
	got, err = on.Patched(webhook.Patch{Enabled: &no}, check)
	if err != nil || got.Enabled || got.FailingSince == nil {
		t.Errorf("disabling: %+v, %v; want disabled, the failure record kept", got, err)
	}
	if got, err = e.Patched(webhook.Patch{URL: &bad, Enabled: &yes}, check); problem(t, err, "url") == "" || got.URL != e.URL || got.Enabled {
		t.Errorf("an http url: %+v, %v; want VALIDATION_FAILED and the endpoint as it was", got, err)
	}
}

// TestRotated: a rotation signs with the new secret at once and with the
// one it replaces for SecretOverlap; the clear secrets of an endpoint
// written before sealing are gone.
func TestRotated(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	e := webhook.Endpoint{ClearSecret: "whsec_old", ClearPrevSecret: "whsec_older"}
	got := e.Rotated("sealed.v1.new", "sealed.v1.old", now)
	if got.SealedSecret != "sealed.v1.new" || got.SealedPrevSecret != "sealed.v1.old" || got.ClearSecret != "" || got.ClearPrevSecret != "" {
		t.Errorf("rotated: %+v", got)
	}
	if s := got.StoredSecrets(now.Add(webhook.SecretOverlap - time.Second)); len(s) != 2 {
		t.Errorf("within the overlap it signs with %v, want both", s)
	}
	if s := got.StoredSecrets(now.Add(webhook.SecretOverlap)); len(s) != 1 || s[0] != "sealed.v1.new" {
		t.Errorf("after the overlap it signs with %v, want the new one", s)
	}
}

// TestStoredSecrets: a sealed secret signs in place of a clear one; a
// clear previous secret (written before sealing) signs within its
// overlap.
func TestStoredSecrets(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	until := now.Add(time.Hour)
	for _, tt := range []struct {
		name string
		e    webhook.Endpoint
		want string
	}{
		{"sealed", webhook.Endpoint{SealedSecret: "s"}, "s"},
		{"in clear", webhook.Endpoint{ClearSecret: "c"}, "c"},
		{"sealed beside a clear one", webhook.Endpoint{SealedSecret: "s", ClearSecret: "c"}, "s"},
		{"a clear previous one within its overlap", webhook.Endpoint{ClearSecret: "c", ClearPrevSecret: "p", PrevUntil: &until}, "c p"},
		{"a previous one without an end", webhook.Endpoint{SealedSecret: "s", SealedPrevSecret: "p"}, "s"},
	} {
		if got := strings.Join(tt.e.StoredSecrets(now), " "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestVersioned: every update moves an endpoint's version, even on a clock
// behind the one that wrote the version read.
func TestVersioned(t *testing.T) {
	t.Parallel()
	read := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		now  time.Time
		want time.Time
	}{
		{"a later clock", read.Add(time.Second), read.Add(time.Second)},
		{"the same instant", read, read.Add(time.Millisecond)},
		{"a clock behind", read.Add(-time.Minute), read.Add(time.Millisecond)},
	} {
		if got := (webhook.Endpoint{}).Versioned(read, tt.now).UpdatedAt; !got.Equal(tt.want) {
			t.Errorf("%s: version %v, want %v", tt.name, got, tt.want)
		}
	}
}
