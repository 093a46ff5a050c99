package webhook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
)

// Config holds what the use cases need besides the store.
type Config struct {
	// Sealer seals signing secrets before they are stored and opens them
	// to sign. Nil means no key: creating or rotating an endpoint fails,
	// and so does a delivery signed with a sealed secret.
	Sealer Sealer
	// Sender sends, signs and checks targets.
	Sender Sender
	// Render is how a message leaves the service.
	Render Render
	// Log receives what the deliveries cannot report to a caller; nil
	// means slog.Default().
	Log *slog.Logger
}

// App is the webhooks' application layer: the use cases of the API (the
// endpoints, their deliveries log, the change feed) and of the worker (the
// deliveries). Each loads what it needs through the Store, decides with
// the pure functions of this package, and hands the result to the Store to
// commit.
type App struct {
	store Store
	cfg   Config
	log   *slog.Logger
}

// NewApp returns the webhooks' use cases over store.
func NewApp(store Store, cfg Config) *App {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &App{store: store, cfg: cfg, log: cfg.Log}
}

// maxUpdates bounds the attempts of an update whose commits keep finding
// the endpoint changed.
const maxUpdates = 60

// Create creates an endpoint of orgID and returns it with its secret,
// shown only here and on rotation. Errors: VALIDATION_FAILED (fields; a
// URL that is not a safe target), CONFLICT (MaxEndpoints already).
func (a *App) Create(ctx context.Context, orgID string, in Input) (WithSecret, error) {
	if err := CheckInput(in, a.cfg.Sender.CheckURL); err != nil {
		return WithSecret{}, err
	}
	secret, err := a.cfg.Sender.NewSecret()
	if err != nil {
		return WithSecret{}, err
	}
	have, err := a.store.Endpoints(ctx, orgID)
	if err != nil {
		return WithSecret{}, err
	}
	if err := CheckCount(len(have)); err != nil {
		return WithSecret{}, err
	}
	// The secret is sealed for the endpoint's id, so once the id is known.
	id := a.store.NewID()
	sealed, err := a.seal(ctx, orgID, id, secret)
	if err != nil {
		return WithSecret{}, err
	}
	e := NewEndpoint(id, orgID, in, sealed, a.store.Now())
	if err := a.store.CreateEndpoint(ctx, e); err != nil {
		return WithSecret{}, err
	}
	return WithSecret{Endpoint: e, Secret: secret}, nil
}

// Endpoints lists the endpoints of orgID, oldest first.
func (a *App) Endpoints(ctx context.Context, orgID string) ([]Endpoint, error) {
	return a.store.Endpoints(ctx, orgID)
}

// Endpoint returns an endpoint of orgID. Errors: NOT_FOUND.
func (a *App) Endpoint(ctx context.Context, orgID, id string) (Endpoint, error) {
	e, err := a.store.Endpoint(ctx, orgID, id)
	return e, found(id, err)
}

// found is err, with ErrNoEndpoint turned into what a user reads of
// endpoint id.
func found(id string, err error) error {
	if errors.Is(err, ErrNoEndpoint) {
		return NoEndpoint(id)
	}
	return err
}

// Patch changes an endpoint's url, events, description or enabled
// (Endpoint.Patched). Errors: NOT_FOUND, VALIDATION_FAILED.
func (a *App) Patch(ctx context.Context, orgID, id string, p Patch) (Endpoint, error) {
	e, err := a.update(ctx, orgID, id, func(e Endpoint) (Endpoint, error) {
		return e.Patched(p, a.cfg.Sender.CheckURL)
	})
	return e, found(id, err)
}

// Delete deletes an endpoint; messages waiting for a retry to it are given
// up when they come due. Errors: NOT_FOUND.
func (a *App) Delete(ctx context.Context, orgID, id string) error {
	return found(id, a.store.DeleteEndpoint(ctx, orgID, id))
}

// Rotate gives an endpoint a new secret; the old one keeps signing beside
// it for SecretOverlap. Errors: NOT_FOUND.
func (a *App) Rotate(ctx context.Context, orgID, id string) (WithSecret, error) {
	secret, err := a.cfg.Sender.NewSecret()
	if err != nil {
		return WithSecret{}, err
	}
	e, err := a.update(ctx, orgID, id, func(e Endpoint) (Endpoint, error) {
		// An endpoint written before sealing has its current secret in
		// clear: it is sealed as it becomes the previous one.
		prev := e.SealedSecret
		if prev == "" {
			var err error
			if prev, err = a.seal(ctx, orgID, id, e.ClearSecret); err != nil {
				return e, err
			}
		}
		current, err := a.seal(ctx, orgID, id, secret)
		if err != nil {
			return e, err
		}
		return e.Rotated(current, prev, a.store.Now()), nil
	})
	if err != nil {
		return WithSecret{}, found(id, err)
	}
	return WithSecret{Endpoint: e, Secret: secret}, nil
}

// Test sends a webhook.test message to an endpoint once, now, and returns
// the attempt (never retried, not in the change feed). Errors: NOT_FOUND.
func (a *App) Test(ctx context.Context, orgID, id string) (Attempt, error) {
	e, err := a.Endpoint(ctx, orgID, id)
	if err != nil {
		return Attempt{}, err
	}
	now := a.store.Now()
	msg := TestMessage(orgID, id, now)
	body, err := a.cfg.Render(msg)
	if err != nil {
		return Attempt{}, err
	}
	secrets, err := a.signingSecrets(ctx, e, now)
	if err != nil {
		return Attempt{}, err
	}
	sent := a.cfg.Sender.Send(ctx, e.URL, secrets, msg.ID, now, body)
	return sent.Attempt(msg.ID, msg.Type, 1, now), nil
}

// Attempts returns a page of an endpoint's attempts, newest first, after
// the attempt cursor, and the cursor of the next page ("" after the
// last). Errors: NOT_FOUND, VALIDATION_FAILED (limit).
func (a *App) Attempts(ctx context.Context, orgID, id, cursor string, limit int) ([]Attempt, string, error) {
	if err := CheckLimit(limit); err != nil {
		return nil, "", err
	}
	if _, err := a.Endpoint(ctx, orgID, id); err != nil {
		return nil, "", err
	}
	return a.store.Attempts(ctx, orgID, id, cursor, limit)
}

// Changes returns the page of up to limit messages of orgID's change feed
// after the cursor after ("" for the oldest kept), in commit order, each
// recipient a message names as it is now (Hydrate). Only records older
// than FeedLag are served. Errors: VALIDATION_FAILED (limit, after).
func (a *App) Changes(ctx context.Context, orgID, after string, limit int) (Page, error) {
	if err := CheckLimit(limit); err != nil {
		return Page{}, err
	}
	c, err := ParseCursor(after)
	if err != nil {
		return Page{}, err
	}
	p := newPager(after, c, limit)
	r, ok := Window(c, a.store.Now(), limit)
	if !ok {
		return p.page, nil
	}
	for rec, err := range a.store.ChangeRecords(ctx, orgID, r) {
		if err != nil {
			return Page{}, err
		}
		if !p.add(rec) {
			break
		}
	}
	p.page.Messages, err = a.hydrate(ctx, orgID, p.page.Messages)
	return p.page, err
}

// hydrate is msgs with each recipient a message names as it is now.
func (a *App) hydrate(ctx context.Context, orgID string, msgs []Message) ([]Message, error) {
	refs := Refs(msgs)
	if len(refs) == 0 {
		return msgs, nil
	}
	found, err := a.store.Recipients(ctx, orgID, refs)
	if err != nil {
		return nil, err
	}
	return Hydrate(msgs, found), nil
}

// update lets decide change an endpoint of orgID as read and commits the
// result conditioned on what was read, reading and deciding again when
// another update came first. It returns the endpoint as written. Errors:
// ErrNoEndpoint, and decide's.
func (a *App) update(ctx context.Context, orgID, id string, decide func(Endpoint) (Endpoint, error)) (Endpoint, error) {
	for attempt := 1; ; attempt++ {
		before, err := a.store.Endpoint(ctx, orgID, id)
		if err != nil {
			return Endpoint{}, err
		}
		after, err := decide(before)
		if err != nil {
			return Endpoint{}, err
		}
		after = after.Versioned(before.UpdatedAt, a.store.Now())
		err = a.store.UpdateEndpoint(ctx, before, after)
		switch {
		case err == nil:
			return after, nil
		case !errors.Is(err, ErrEndpointMoved):
			return Endpoint{}, err
		case attempt >= maxUpdates:
			return Endpoint{}, fmt.Errorf("update webhook %s: gave up after %d attempts: %w", id, attempt, err)
		}
	}
}
