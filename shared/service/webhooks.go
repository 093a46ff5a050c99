package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/webhooks"
	"github.com/giftcampaign/service/shared/wire"
)

// WebhookStore is what webhooks and the change feed need from storage.
type WebhookStore interface {
	// Now is the store's clock, which delivery times follow.
	Now() time.Time
	// CreateWebhook stores a new endpoint with the sealed secret that
	// seal returns for the endpoint's id.
	CreateWebhook(ctx context.Context, orgID string, in gifting.WebhookInput, seal func(webhookID string) (string, error)) (gifting.Webhook, error)
	WebhookEndpoint(ctx context.Context, orgID, id string) (gifting.WebhookEndpoint, error)
	WebhookEndpoints(ctx context.Context, orgID string) ([]gifting.WebhookEndpoint, error)
	UpdateWebhook(ctx context.Context, orgID, id string, change func(e *gifting.WebhookEndpoint) error) (gifting.WebhookEndpoint, error)
	DeleteWebhook(ctx context.Context, orgID, id string) error
	StartDelivery(ctx context.Context, orgID string, d gifting.PendingDelivery, at time.Time) (bool, error)
	PendingDelivery(ctx context.Context, orgID, ref string) (gifting.PendingDelivery, error)
	RecordAttempt(ctx context.Context, orgID string, d gifting.PendingDelivery, a gifting.Delivery) error
	Deliveries(ctx context.Context, orgID, webhookID, cursor string, limit int) ([]gifting.Delivery, string, error)
	Changes(ctx context.Context, orgID, after string, limit int) (gifting.ChangePage, error)
	// HydrateChanges fills in the data that a record holds by reference
	// (the recipient of recipient.created) with its current snapshot.
	HydrateChanges(ctx context.Context, orgID string, msgs []json.RawMessage) ([]json.RawMessage, error)
}

// deliveryLease is how long a delivery started from the stream waits
// before the scheduler tick takes it over (a process that died before the
// first attempt).
const deliveryLease = time.Minute

// secretOverlap is how long a rotated-out secret keeps signing.
const secretOverlap = 24 * time.Hour

// CreateWebhook creates an endpoint of orgID and returns it with its
// secret, shown only here and on rotation.
//
// Errors: VALIDATION_FAILED (fields; a URL that is not a safe target),
// CONFLICT (too many endpoints).
func (s *Service) CreateWebhook(ctx context.Context, orgID string, in gifting.WebhookInput) (gifting.WebhookSecret, error) {
	if err := s.checkWebhook(in); err != nil {
		return gifting.WebhookSecret{}, err
	}
	secret, err := webhooks.NewSecret()
	if err != nil {
		return gifting.WebhookSecret{}, err
	}
	w, err := s.store.CreateWebhook(ctx, orgID, in, func(id string) (string, error) {
		return s.sealSecret(ctx, orgID, id, secret)
	})
	if err != nil {
		return gifting.WebhookSecret{}, err
	}
	return gifting.WebhookSecret{Webhook: w, Secret: secret}, nil
}

// checkWebhook validates in and refuses a URL deliveries would never go
// to where the service runs.
func (s *Service) checkWebhook(in gifting.WebhookInput) error {
	if err := in.Validate(); err != nil {
		return err
	}
	if err := s.cfg.Webhooks.CheckURL(in.URL); err != nil {
		return gifting.Problems{"url": strings.TrimPrefix(err.Error(), webhooks.ErrUnsafeTarget.Error()+": ") +
			"; webhooks go only to public https endpoints"}.Err()
	}
	return nil
}

// Webhooks lists the endpoints of orgID, oldest first.
func (s *Service) Webhooks(ctx context.Context, orgID string) ([]gifting.Webhook, error) {
	es, err := s.store.WebhookEndpoints(ctx, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]gifting.Webhook, len(es))
	for i, e := range es {
		out[i] = e.Webhook
	}
	return out, nil
}

// Webhook returns an endpoint of orgID. Errors: NOT_FOUND.
func (s *Service) Webhook(ctx context.Context, orgID, id string) (gifting.Webhook, error) {
	e, err := s.store.WebhookEndpoint(ctx, orgID, id)
	return e.Webhook, err
}

// PatchWebhook changes an endpoint's url, events, description or enabled.
// Enabling a disabled endpoint clears its reason and its failure record.
//
// Errors: NOT_FOUND, VALIDATION_FAILED.
func (s *Service) PatchWebhook(ctx context.Context, orgID, id string, p gifting.WebhookPatch) (gifting.Webhook, error) {
	e, err := s.store.UpdateWebhook(ctx, orgID, id, func(e *gifting.WebhookEndpoint) error {
		in := gifting.WebhookInput{URL: e.URL, Events: e.Events, Description: e.Description}
		if p.URL != nil {
			in.URL = *p.URL
		}
		if p.Events != nil {
			in.Events = *p.Events
		}
		if p.Description != nil {
			in.Description = *p.Description
		}
		if err := s.checkWebhook(in); err != nil {
			return err
		}
		e.URL, e.Events, e.Description = in.URL, in.Events, in.Description
		if p.Enabled != nil {
			if *p.Enabled && !e.Enabled {
				e.DisabledReason, e.FailingSince = "", nil
			}
			e.Enabled = *p.Enabled
		}
		return nil
	})
	return e.Webhook, err
}

// DeleteWebhook deletes an endpoint. Errors: NOT_FOUND.
func (s *Service) DeleteWebhook(ctx context.Context, orgID, id string) error {
	return s.store.DeleteWebhook(ctx, orgID, id)
}

// RotateWebhookSecret gives an endpoint a new secret; the old one keeps
// signing beside it for 24 hours. Errors: NOT_FOUND.
func (s *Service) RotateWebhookSecret(ctx context.Context, orgID, id string) (gifting.WebhookSecret, error) {
	secret, err := webhooks.NewSecret()
	if err != nil {
		return gifting.WebhookSecret{}, err
	}
	e, err := s.store.UpdateWebhook(ctx, orgID, id, func(e *gifting.WebhookEndpoint) error {
		// An endpoint written before sealing has its current secret in
		// clear: it is sealed as it becomes the previous one.
		prev := e.SealedSecret
		if prev == "" {
			var err error
			if prev, err = s.sealSecret(ctx, orgID, id, e.ClearSecret); err != nil {
				return err
			}
		}
		current, err := s.sealSecret(ctx, orgID, id, secret)
		if err != nil {
			return err
		}
		until := s.store.Now().Add(secretOverlap)
		e.SealedSecret, e.SealedPrevSecret, e.PrevUntil = current, prev, &until
		e.ClearSecret, e.ClearPrevSecret = "", ""
		return nil
	})
	if err != nil {
		return gifting.WebhookSecret{}, err
	}
	return gifting.WebhookSecret{Webhook: e.Webhook, Secret: secret}, nil
}

// TestWebhook sends a webhook.test message to an endpoint once, now, and
// returns the attempt (never retried, not in the change feed).
// Errors: NOT_FOUND.
func (s *Service) TestWebhook(ctx context.Context, orgID, id string) (gifting.Delivery, error) {
	e, err := s.store.WebhookEndpoint(ctx, orgID, id)
	if err != nil {
		return gifting.Delivery{}, err
	}
	now := s.store.Now()
	msg := gifting.Change{ID: "test_" + gifting.NewIDAt(now), Type: gifting.ChangeWebhookTest, CreatedAt: now, OrganizationID: orgID,
		Data: map[string]string{"webhookId": id}}
	body, err := wire.Marshal(msg)
	if err != nil {
		return gifting.Delivery{}, err
	}
	secrets, err := s.signingSecrets(ctx, orgID, e, now)
	if err != nil {
		return gifting.Delivery{}, err
	}
	r := webhooks.Send(ctx, s.hooks, e.URL, secrets, msg.ID, now, body)
	return attemptOf(msg.ID, msg.Type, 1, now, r, gifting.DeliveryDelivered), nil
}

// WebhookDeliveries returns a page of an endpoint's attempts, newest
// first. Errors: NOT_FOUND, VALIDATION_FAILED.
func (s *Service) WebhookDeliveries(ctx context.Context, orgID, id, cursor string, limit int) ([]gifting.Delivery, string, error) {
	return s.store.Deliveries(ctx, orgID, id, cursor, limit)
}

// Changes returns a page of the change feed. Errors: VALIDATION_FAILED.
func (s *Service) Changes(ctx context.Context, orgID, after string, limit int) (gifting.ChangePage, error) {
	return s.store.Changes(ctx, orgID, after, limit)
}

// DeliverChanges starts the delivery of one committed change record's
// messages to every enabled endpoint of orgID subscribed to them, and makes
// each delivery's first attempt, all at once: a slow endpoint delays no
// other. The stream handler calls it (the worker in AWS, the local
// runner's stream reader). A delivery already started (the stream gave the
// record twice) is left to whoever started it. It returns an error only
// when storage fails, so the stream gives the record again.
func (s *Service) DeliverChanges(ctx context.Context, orgID string, msgs []json.RawMessage) error {
	eps, err := s.store.WebhookEndpoints(ctx, orgID)
	if err != nil {
		return err
	}
	if len(eps) > 0 {
		// Each message's data as it is now: a launch's records name their
		// recipients rather than copying them.
		if msgs, err = s.store.HydrateChanges(ctx, orgID, msgs); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	var errs []error
	var mu sync.Mutex
	for _, raw := range msgs {
		var head struct{ ID, Type string }
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("change message: %w", err)
		}
		for _, e := range eps {
			if !e.Wants(head.Type) {
				continue
			}
			d := gifting.PendingDelivery{WebhookID: e.WebhookID, MessageID: head.ID, Type: head.Type, Body: string(raw)}
			created, err := s.store.StartDelivery(ctx, orgID, d, s.store.Now().Add(deliveryLease))
			if err != nil {
				return err
			}
			if !created {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.attempt(ctx, orgID, e, d); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}()
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// The deliveries stay due: the scheduler tick retries them.
		s.log.WarnContext(ctx, "webhook attempt not recorded", slog.String("organizationId", orgID), slog.String("error", err.Error()))
	}
	return nil
}

// runDelivery is the job of a delivery due for a retry.
func (s *Service) runDelivery(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
	d, err := s.store.PendingDelivery(ctx, j.OrgID, j.Ref)
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil, nil // ended meanwhile
	}
	if err != nil {
		return nil, err
	}
	e, err := s.store.WebhookEndpoint(ctx, j.OrgID, d.WebhookID)
	switch {
	case gifting.ErrorCode(err) == gifting.CodeNotFound:
		return nil, s.giveUp(ctx, j.OrgID, d, "the endpoint was deleted")
	case err != nil:
		return nil, err
	case !e.Enabled:
		return nil, s.giveUp(ctx, j.OrgID, d, "the endpoint is disabled")
	}
	return nil, s.attempt(ctx, j.OrgID, e, d)
}

// giveUp ends a delivery without sending it.
func (s *Service) giveUp(ctx context.Context, orgID string, d gifting.PendingDelivery, why string) error {
	now := s.store.Now()
	return s.store.RecordAttempt(ctx, orgID, d, gifting.Delivery{MessageID: d.MessageID, Type: d.Type, Attempt: d.Attempts,
		Error: why, Outcome: gifting.DeliveryFailed, At: now})
}

// attempt sends d to e once, records the attempt with the delivery's next
// step (a retry after webhooks.Delays, or its end) and keeps the
// endpoint's failure record, disabling it after webhooks.DisableAfter of
// failures, or at once when it answers 410 Gone (never retried).
//
// A secret that cannot be opened sends nothing: the delivery is given up
// when the secret never will open (sealed for another endpoint, damaged),
// and stays due for the scheduler tick when KMS could not be reached.
func (s *Service) attempt(ctx context.Context, orgID string, e gifting.WebhookEndpoint, d gifting.PendingDelivery) error {
	now := s.store.Now()
	secrets, err := s.signingSecrets(ctx, orgID, e, now)
	if errors.Is(err, sealed.ErrUnopenable) {
		s.log.ErrorContext(ctx, "webhook secret cannot be opened", slog.String("organizationId", orgID),
			slog.String("webhookId", e.WebhookID), slog.String("error", err.Error()))
		return s.giveUp(ctx, orgID, d, "the endpoint's signing secret cannot be read; rotate it")
	}
	if err != nil {
		return err
	}
	r := webhooks.Send(ctx, s.hooks, e.URL, secrets, d.MessageID, now, []byte(d.Body))
	n := d.Attempts + 1
	a := attemptOf(d.MessageID, d.Type, n, now, r, gifting.DeliveryDelivered)
	gone := r.StatusCode == http.StatusGone
	if r.Err != nil {
		a.Outcome = gifting.DeliveryFailed
		if n <= len(webhooks.Delays) && !gone {
			next := now.Add(webhooks.Delays[n-1])
			a.Outcome, a.NextAttemptAt = gifting.DeliveryRetrying, &next
		}
	}
	if err := s.store.RecordAttempt(ctx, orgID, d, a); err != nil {
		return err
	}
	if gone {
		return s.disableGone(ctx, orgID, e.WebhookID)
	}
	return s.noteHealth(ctx, orgID, e, now, r.Err == nil)
}

// disableGone disables an endpoint that answered 410 Gone: its receiver
// wants no more messages (Standard Webhooks). Deliveries waiting for a
// retry to it are given up when they come due.
func (s *Service) disableGone(ctx context.Context, orgID, id string) error {
	_, err := s.store.UpdateWebhook(ctx, orgID, id, func(e *gifting.WebhookEndpoint) error {
		e.Enabled, e.DisabledReason = false, "the endpoint answered 410 Gone"
		return nil
	})
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil
	}
	return err
}

// noteHealth keeps an endpoint's failure record: cleared by a success,
// started by a first failure, and the endpoint disabled once it has failed
// everything for webhooks.DisableAfter. It writes only when something
// changes.
func (s *Service) noteHealth(ctx context.Context, orgID string, e gifting.WebhookEndpoint, now time.Time, ok bool) error {
	if ok == (e.FailingSince == nil) {
		if ok || now.Sub(*e.FailingSince) < webhooks.DisableAfter {
			return nil
		}
	}
	_, err := s.store.UpdateWebhook(ctx, orgID, e.WebhookID, func(e *gifting.WebhookEndpoint) error {
		switch {
		case ok:
			e.FailingSince = nil
		case e.FailingSince == nil:
			e.FailingSince = &now
		case now.Sub(*e.FailingSince) >= webhooks.DisableAfter:
			e.Enabled = false
			e.DisabledReason = fmt.Sprintf("every delivery failed since %s", e.FailingSince.Format(time.RFC3339))
		}
		return nil
	})
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil
	}
	return err
}

// attemptOf is the log entry of an attempt with result r.
func attemptOf(msgID, typ string, n int, at time.Time, r webhooks.Result, ok string) gifting.Delivery {
	a := gifting.Delivery{MessageID: msgID, Type: typ, Attempt: n, StatusCode: r.StatusCode,
		DurationMs: r.Duration.Milliseconds(), Outcome: ok, At: at}
	if r.Err != nil {
		a.Error, a.Outcome = r.Err.Error(), gifting.DeliveryFailed
	}
	return a
}
