package webhook

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/giftcampaign/service/shared/sealed"
)

// Deliver starts the delivery of one committed change record's messages
// to every enabled endpoint of its organization subscribed to them, and
// makes each delivery's first attempt, all at once: a slow endpoint delays
// no other. The stream's handler calls it (the worker in AWS, the local
// runner's stream reader). A delivery already started (the stream gave the
// record twice) is left to whoever started it. It returns an error only
// when storage fails, so that the stream gives the record again.
func (a *App) Deliver(ctx context.Context, rec Record) error {
	eps, err := a.store.Endpoints(ctx, rec.OrgID)
	if err != nil || len(eps) == 0 {
		return err
	}
	// Each message's data as it is now: a launch's records name their
	// recipients rather than copying them.
	msgs, err := a.hydrate(ctx, rec.OrgID, rec.Messages)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	byID := make(map[string]Endpoint, len(eps))
	for _, e := range eps {
		byID[e.ID] = e
	}
	for _, m := range msgs {
		ds, err := a.deliveries(eps, m)
		if err != nil {
			return err
		}
		for _, d := range ds {
			err := a.store.StartDelivery(ctx, rec.OrgID, d, a.store.Now().Add(DeliveryLease))
			if errors.Is(err, ErrStarted) {
				continue
			}
			if err != nil {
				return err
			}
			wg.Go(func() {
				if err := a.attempt(ctx, rec.OrgID, byID[d.WebhookID], d); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// The deliveries stay due: the scheduler tick retries them.
		a.log.WarnContext(ctx, "webhook attempt not recorded", slog.String("organizationId", rec.OrgID), slog.String("error", err.Error()))
	}
	return nil
}

// deliveries are the deliveries of m to the endpoints of eps that want it,
// its body rendered once for all of them (and not at all for none).
func (a *App) deliveries(eps []Endpoint, m Message) ([]Delivery, error) {
	ds := Deliveries(eps, m, nil)
	if len(ds) == 0 {
		return nil, nil
	}
	body, err := a.cfg.Render(m)
	if err != nil {
		return nil, err
	}
	for i := range ds {
		ds[i].Body = body
	}
	return ds, nil
}

// RunDelivery makes the next attempt of the delivery ref names
// (DeliveryRef), due for a retry: the job of a JobDelivery due item. A
// delivery that ended meanwhile is left; one whose endpoint was deleted or
// disabled is given up.
func (a *App) RunDelivery(ctx context.Context, orgID, ref string) error {
	webhookID, msgID := ParseDeliveryRef(ref)
	d, err := a.store.Delivery(ctx, orgID, webhookID, msgID)
	if errors.Is(err, ErrNoDelivery) {
		return nil
	}
	if err != nil {
		return err
	}
	e, err := a.store.Endpoint(ctx, orgID, d.WebhookID)
	switch {
	case errors.Is(err, ErrNoEndpoint):
		return a.giveUp(ctx, orgID, d, "the endpoint was deleted")
	case err != nil:
		return err
	case !e.Enabled:
		return a.giveUp(ctx, orgID, d, "the endpoint is disabled")
	}
	return a.attempt(ctx, orgID, e, d)
}

// giveUp ends a delivery without sending it.
func (a *App) giveUp(ctx context.Context, orgID string, d Delivery, why string) error {
	return a.record(ctx, orgID, d, GiveUp(d, why, a.store.Now()))
}

// record logs attempt at of d under a new id, with d's next step.
func (a *App) record(ctx context.Context, orgID string, d Delivery, at Attempt) error {
	at.DeliveryID = a.store.NewID()
	return a.store.RecordAttempt(ctx, orgID, d, at)
}

// attempt sends d to e once, records the attempt with the delivery's next
// step (Next) and keeps the endpoint's failure record (Health), disabling
// it at once when it answers 410 Gone.
//
// A secret that cannot be opened sends nothing: the delivery is given up
// when the secret never will open (sealed for another endpoint, damaged),
// and stays due for the scheduler tick when KMS could not be reached.
func (a *App) attempt(ctx context.Context, orgID string, e Endpoint, d Delivery) error {
	now := a.store.Now()
	secrets, err := a.signingSecrets(ctx, e, now)
	if errors.Is(err, sealed.ErrUnopenable) {
		a.log.ErrorContext(ctx, "webhook secret cannot be opened", slog.String("organizationId", orgID),
			slog.String("webhookId", e.ID), slog.String("error", err.Error()))
		return a.giveUp(ctx, orgID, d, "the endpoint's signing secret cannot be read; rotate it")
	}
	if err != nil {
		return err
	}
	sent := a.cfg.Sender.Send(ctx, e.URL, secrets, d.MessageID, now, d.Body)
	if err := a.record(ctx, orgID, d, Next(d, sent, now)); err != nil {
		return err
	}
	if sent.Gone() {
		return a.keep(ctx, orgID, e, func(e Endpoint) (Endpoint, bool) { return e.Disabled(GoneReason), true })
	}
	if _, changed := e.Health(sent.Err == nil, now); !changed {
		return nil // nothing to write: the usual case
	}
	return a.keep(ctx, orgID, e, func(e Endpoint) (Endpoint, bool) { return e.Health(sent.Err == nil, now) })
}

// keep writes what decide makes of endpoint e as it is now, unless decide
// changes nothing; an endpoint deleted meanwhile is left.
func (a *App) keep(ctx context.Context, orgID string, e Endpoint, decide func(Endpoint) (Endpoint, bool)) error {
	_, err := a.update(ctx, orgID, e.ID, func(cur Endpoint) (Endpoint, error) {
		after, changed := decide(cur)
		if !changed {
			return cur, errUnchanged
		}
		return after, nil
	})
	if errors.Is(err, errUnchanged) || errors.Is(err, ErrNoEndpoint) {
		return nil
	}
	return err
}

// errUnchanged ends an update with nothing to write.
var errUnchanged = errors.New("nothing to write")
