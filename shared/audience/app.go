package audience

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/retry"
)

// App is the audience slice's application layer: the use cases of the
// persona and audience API (here and in app_audiences.go) and the jobs
// that build an audience, copy it into a contact list and purge a
// deleted one (app_build.go, app_copy.go). Each loads what it needs
// through the Store, decides with the pure functions of this package, and
// hands the result to the Store to commit, conditioned on what it was
// decided from; when storage reports that it moved, it loads and decides
// again.
type App struct {
	store Store
	cfg   Config
}

// Config holds what the use cases need besides the store.
type Config struct {
	// Jobs queues the builds, copies and purges; nil refuses them with an
	// error.
	Jobs Jobs
	// Lists makes and fills the contact lists an audience is copied into.
	Lists Lists
	// Log receives the jobs' logs; nil means slog.Default().
	Log *slog.Logger
	// RequestLog is the logger of the request (or job) ctx belongs to,
	// for what a use case logs on a caller's behalf; nil means Log.
	RequestLog func(ctx context.Context) *slog.Logger
}

// NewApp returns the audience use cases over store.
func NewApp(store Store, cfg Config) *App {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.RequestLog == nil {
		log := cfg.Log
		cfg.RequestLog = func(context.Context) *slog.Logger { return log }
	}
	return &App{store: store, cfg: cfg}
}

// CreatePersona checks p (CheckPersona) and stores it as a new persona of
// orgID created by userID. Errors: VALIDATION_FAILED naming every field at
// fault.
func (a *App) CreatePersona(ctx context.Context, orgID, userID string, p Persona) (Persona, error) {
	if err := CheckPersona(&p); err != nil {
		return Persona{}, err
	}
	now := a.store.Now()
	p.ID, p.OrganizationID, p.CreatedBy, p.CreatedAt, p.UpdatedAt = a.store.NewID(), orgID, userID, now, now
	if err := a.store.CommitNewPersona(ctx, p); err != nil {
		return Persona{}, err
	}
	p.Normalize()
	return p, nil
}

// Persona returns persona id of orgID. Errors: NOT_FOUND (none, or another
// organization's).
func (a *App) Persona(ctx context.Context, orgID, id string) (Persona, error) {
	p, err := a.store.Persona(ctx, orgID, id)
	if errors.Is(err, ErrNotFound) {
		return Persona{}, PersonaNotFound(id)
	}
	if err != nil {
		return Persona{}, err
	}
	p.Normalize()
	return p, nil
}

// ListPersonas returns the page q asks for of orgID's personas that f and
// q's search keep, and how many they keep. In creation order with no
// filter or search it reads just the page; otherwise every persona of the
// organization, sorted and paged here (SelectPersonas).
func (a *App) ListPersonas(ctx context.Context, orgID string, f PersonaFilter, q gifting.ListQuery) ([]Persona, int, error) {
	var (
		items []Persona
		total int
		err   error
	)
	if PersonasInCreationOrder(f, q) {
		items, total, err = a.store.PersonaPage(ctx, orgID, q.Order, q.Page)
	} else {
		var all []Persona
		all, err = a.store.Personas(ctx, orgID)
		items, total = SelectPersonas(all, f, q)
	}
	if err != nil {
		return nil, 0, err
	}
	for i := range items {
		items[i].Normalize()
	}
	return items, total, nil
}

// UpdatePersona applies p to persona id of orgID and stores the result
// with a new updatedAt, conditioned on the persona as read: a concurrent
// edit makes it apply p again to the persona as it is then. Audiences
// built from it are snapshots and do not change. Errors: NOT_FOUND,
// VALIDATION_FAILED (PersonaPatch.Apply).
func (a *App) UpdatePersona(ctx context.Context, orgID, id string, pp PersonaPatch) (Persona, error) {
	for attempt := 1; ; attempt++ {
		p, err := a.Persona(ctx, orgID, id)
		if err != nil {
			return Persona{}, err
		}
		seen := p.UpdatedAt
		if err := pp.Apply(&p); err != nil {
			return Persona{}, err
		}
		p.ID, p.OrganizationID, p.UpdatedAt = id, orgID, a.store.Now()
		err = a.store.CommitPersona(ctx, p, seen)
		if err == nil {
			p.Normalize()
			return p, nil
		}
		if err := again(ctx, err, attempt); err != nil {
			return Persona{}, fmt.Errorf("update persona %s: %w", id, err)
		}
	}
}

// DeletePersona deletes persona id of orgID for good. Audiences built from
// it keep their members (they are snapshots); rebuilding one is then
// CONFLICT (PersonaDeleted). Errors: NOT_FOUND.
func (a *App) DeletePersona(ctx context.Context, orgID, id string) error {
	err := a.store.CommitPersonaDelete(ctx, orgID, id)
	if errors.Is(err, ErrNotFound) {
		return PersonaNotFound(id)
	}
	return err
}

// enqueue hands j to the configured queue.
func (a *App) enqueue(ctx context.Context, j Job) error {
	if a.cfg.Jobs == nil {
		return fmt.Errorf("no job queue configured for %s %s", j.Kind, j.Ref)
	}
	return a.cfg.Jobs.Enqueue(ctx, j)
}

// again decides whether a commit that failed with err at attempt is worth
// another: a moved item is, after a pause, until retry.MaxAttempts; any
// other error is returned.
func again(ctx context.Context, err error, attempt int) error {
	if !errors.Is(err, ErrChanged) || attempt >= retry.MaxAttempts {
		return err
	}
	return retry.Pause(ctx, attempt)
}
