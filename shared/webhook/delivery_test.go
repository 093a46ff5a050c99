package webhook_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/webhook"
)

// TestNext: a delivered attempt ends the delivery; a failed one is tried
// again after each of Delays in turn and given up after the last, or at
// once when the receiver answered 410 Gone.
func TestNext(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	failed := webhook.Sent{StatusCode: http.StatusInternalServerError, Err: errors.New("answered 500")}
	for _, tt := range []struct {
		name    string
		before  int // attempts made before this one
		sent    webhook.Sent
		outcome webhook.Outcome
		retryIn time.Duration // 0: no retry
	}{
		{"delivered at once", 0, webhook.Sent{StatusCode: http.StatusNoContent}, webhook.Delivered, 0},
		{"a first failure", 0, failed, webhook.Retrying, 5 * time.Second},
		{"a second failure", 1, failed, webhook.Retrying, 5 * time.Minute},
		{"the last retry planned", 5, failed, webhook.Retrying, 24 * time.Hour},
		{"the last retry failed", 6, failed, webhook.Failed, 0},
		{"no answer", 2, webhook.Sent{Err: errors.New("connection refused")}, webhook.Retrying, 30 * time.Minute},
		{"gone", 0, webhook.Sent{StatusCode: http.StatusGone, Err: errors.New("answered 410")}, webhook.Failed, 0},
		{"delivered after retries", 3, webhook.Sent{StatusCode: http.StatusOK}, webhook.Delivered, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := webhook.Delivery{WebhookID: "w1", MessageID: "m1", Type: "recipient.created", Attempts: tt.before}
			a := webhook.Next(d, tt.sent, now)
			if a.Number != tt.before+1 || a.Outcome != tt.outcome || a.MessageID != "m1" || a.StatusCode != tt.sent.StatusCode {
				t.Errorf("attempt %+v; want number %d, %s", a, tt.before+1, tt.outcome)
			}
			if (a.Error != "") != (tt.sent.Err != nil) {
				t.Errorf("error %q for %v", a.Error, tt.sent.Err)
			}
			switch {
			case tt.retryIn == 0 && a.NextAttemptAt != nil:
				t.Errorf("retried at %v; want no retry", a.NextAttemptAt)
			case tt.retryIn != 0 && (a.NextAttemptAt == nil || !a.NextAttemptAt.Equal(now.Add(tt.retryIn))):
				t.Errorf("retried at %v; want %v", a.NextAttemptAt, now.Add(tt.retryIn))
			}
		})
	}
}

// TestHealth: an endpoint's failure record starts at its first failure, is
// cleared by a success, and disables it once every delivery failed for
// DisableAfter; nothing is written when nothing changes.
func TestHealth(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	recent, old := now.Add(-time.Hour), now.Add(-webhook.DisableAfter)
	for _, tt := range []struct {
		name         string
		since        *time.Time
		ok           bool
		changed      bool
		wantSince    *time.Time
		wantDisabled bool
	}{
		{"a success, healthy", nil, true, false, nil, false},
		{"a first failure", nil, false, true, &now, false},
		{"another failure", &recent, false, false, &recent, false},
		{"a success after failures", &recent, true, true, nil, false},
		{"failing for DisableAfter", &old, false, true, &old, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := webhook.Endpoint{ID: "w1", Enabled: true, FailingSince: tt.since}
			got, changed := e.Health(tt.ok, now)
			if changed != tt.changed || got.Enabled == tt.wantDisabled {
				t.Errorf("changed %v, enabled %v; want changed %v, disabled %v", changed, got.Enabled, tt.changed, tt.wantDisabled)
			}
			if (got.FailingSince == nil) != (tt.wantSince == nil) || got.FailingSince != nil && !got.FailingSince.Equal(*tt.wantSince) {
				t.Errorf("failing since %v, want %v", got.FailingSince, tt.wantSince)
			}
			if tt.wantDisabled && !strings.Contains(got.DisabledReason, "every delivery failed since "+old.Format(time.RFC3339)) {
				t.Errorf("disabled for %q", got.DisabledReason)
			}
		})
	}
}

// TestDeliveries: a message goes to each enabled endpoint subscribed to
// its type or to every type, and to no other.
func TestDeliveries(t *testing.T) {
	t.Parallel()
	eps := []webhook.Endpoint{
		{ID: "all", Enabled: true, Events: []string{"*"}},
		{ID: "created", Enabled: true, Events: []string{"recipient.created"}},
		{ID: "wallet", Enabled: true, Events: []string{"wallet.debited", "wallet.refunded"}},
		{ID: "off", Enabled: false, Events: []string{"*"}},
	}
	for _, tt := range []struct {
		typ  string
		want []string
	}{
		{"recipient.created", []string{"all", "created"}},
		{"wallet.refunded", []string{"all", "wallet"}},
		{"campaign.live", []string{"all"}},
	} {
		var got []string
		for _, d := range webhook.Deliveries(eps, webhook.Message{ID: "r.00", Type: tt.typ}, []byte("{}")) {
			if d.MessageID != "r.00" || d.Type != tt.typ || string(d.Body) != "{}" {
				t.Errorf("%s: delivery %+v", tt.typ, d)
			}
			got = append(got, d.WebhookID)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s goes to %v, want %v", tt.typ, got, tt.want)
		}
	}
}

// TestDeliveryRef: a delivery's due ref names its endpoint and its
// message, which may hold dots but no slash.
func TestDeliveryRef(t *testing.T) {
	t.Parallel()
	ref := webhook.DeliveryRef("01KAQ0Y8G0ZX3V5N7W9A1C3E5G", "01KAQ0YH0000000000000000RC.07")
	if w, m := webhook.ParseDeliveryRef(ref); w != "01KAQ0Y8G0ZX3V5N7W9A1C3E5G" || m != "01KAQ0YH0000000000000000RC.07" {
		t.Errorf("ref %q parses as %q, %q", ref, w, m)
	}
}

// TestGiveUp: a delivery given up without sending records its attempts so
// far, failed, with why.
func TestGiveUp(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	a := webhook.GiveUp(webhook.Delivery{MessageID: "m1", Type: "campaign.live", Attempts: 2}, "the endpoint was deleted", now)
	if a.Number != 2 || a.Outcome != webhook.Failed || a.Error != "the endpoint was deleted" || a.NextAttemptAt != nil || !a.At.Equal(now) {
		t.Errorf("given up: %+v", a)
	}
}

// TestTestMessage: the test message is a webhook.test of its endpoint,
// with an id no change record has.
func TestTestMessage(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	m := webhook.TestMessage("acme", "w1", now)
	if !strings.HasPrefix(m.ID, "test_") || m.Type != "webhook.test" || m.OrgID != "acme" || m.Data != (webhook.Test{WebhookID: "w1"}) {
		t.Errorf("test message %+v", m)
	}
	if sent := (webhook.Sent{StatusCode: 500, Err: errors.New("answered 500")}).Attempt(m.ID, m.Type, 1, now); sent.Outcome != webhook.Failed || sent.NextAttemptAt != nil {
		t.Errorf("a failed test message: %+v, want failed and never retried", sent)
	}
}
