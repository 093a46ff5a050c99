package campaign

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/retry"
)

// App is the campaign's application layer: the use cases of the API, the
// launch job and the scheduler. Each loads what it needs through the
// Store, decides with the pure functions of this package, and hands the
// plan to the Store to commit in one transaction, deciding again when a
// condition of the commit failed.
type App struct {
	store  Store
	queue  Queue
	invite Inviter
	cfg    Config
}

// Config holds what the use cases need besides the store.
type Config struct {
	// Queue receives the first slice of an accepted launch. Nil: the
	// launch waits for the scheduler's tick (its record is due).
	Queue Queue
	// Inviter sends the invitations of a launch's recipients at once. Nil
	// (no mailer): the recipients are written pending with their
	// invitation scheduled.
	Inviter Inviter
	// PublicBaseURL is where recipients' landing and claim pages live.
	PublicBaseURL string
	// Logger returns the logger of the request or job ctx belongs to; nil
	// means slog.Default().
	Logger func(ctx context.Context) *slog.Logger
}

// NewApp returns the campaign's use cases over store.
func NewApp(store Store, cfg Config) *App {
	if cfg.Logger == nil {
		cfg.Logger = func(context.Context) *slog.Logger { return slog.Default() }
	}
	return &App{store: store, queue: cfg.Queue, invite: cfg.Inviter, cfg: cfg}
}

// Campaign returns a campaign of orgID. Errors: NOT_FOUND (missing,
// deleted or another organization's).
func (a *App) Campaign(ctx context.Context, orgID, campaignID string) (Campaign, error) {
	c, err := a.store.LoadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, ErrNotFound) {
		return Campaign{}, NotFound(campaignID)
	}
	return c, err
}

// Recipients returns a page of a campaign's recipients that q selects, with
// the campaign (and, with q.WithOrg, the organization's profile): the
// counts come from the campaign's counters. Errors: NOT_FOUND (the
// campaign missing, deleted or another organization's).
func (a *App) Recipients(ctx context.Context, orgID, campaignID string, q recipient.Query) (RecipientListPage, error) {
	p, err := a.store.ListRecipients(ctx, orgID, campaignID, q)
	switch {
	case errors.Is(err, ErrNotFound):
		return RecipientListPage{}, NotFound(campaignID)
	case errors.Is(err, ErrCursorUnkeyed):
		var p gifting.Problems
		p.Add("cursor", "cannot start a page of this campaign's recipients in this order: page by number (a campaign created before the order's index is keyed by the migration step)")
		return RecipientListPage{}, p.Err()
	}
	return p, err
}

// RecipientsAfter returns up to limit of a campaign's recipients, oldest
// first, after cursor ("" from the first), each with its cursor: an
// export's page, read in a page's reads however deep. Errors: NOT_FOUND
// (the campaign missing, deleted or another organization's),
// VALIDATION_FAILED naming cursor.
func (a *App) RecipientsAfter(ctx context.Context, orgID, campaignID, cursor string, limit int) (RecipientRows, error) {
	rows, err := a.store.RecipientsAfter(ctx, orgID, campaignID, cursor, limit)
	switch {
	case errors.Is(err, ErrNotFound):
		return RecipientRows{}, NotFound(campaignID)
	case errors.Is(err, ErrBadCursor):
		var p gifting.Problems
		p.Add("cursor", "is not a cursor of this campaign's recipients (use the Link of the page before)")
		return RecipientRows{}, p.Err()
	}
	return rows, err
}

// Metrics returns a campaign's metrics, from its counters. Errors as
// Campaign.
func (a *App) Metrics(ctx context.Context, orgID, campaignID string) (Metrics, error) {
	c, err := a.Campaign(ctx, orgID, campaignID)
	if err != nil {
		return Metrics{}, err
	}
	return c.Metrics(), nil
}

// List returns a page of orgID's campaigns (never deleted ones) that f
// keeps, sorted by sortBy (one of Sorts; ties by id in the same order),
// and how many f keeps.
func (a *App) List(ctx context.Context, orgID string, f Filter, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]Campaign, int, error) {
	cs, total, err := a.store.ListCampaigns(ctx, orgID, f, sortBy, order, page)
	for i := range cs {
		cs[i].Normalize()
	}
	return cs, total, err
}

// Create checks the references of c (validated: Edit.Apply), prices it
// and stores it as orgID's new draft, with the answer idem renders of it
// recorded under its key (nil: none). A non-nil stored response is the
// first response to idem's key: nothing was done.
//
// Errors: VALIDATION_FAILED (a contact list, template or gift that does not
// exist; a price below the catalog's), IDEMPOTENCY_KEY_REUSED.
func (a *App) Create(ctx context.Context, orgID string, c Campaign, idem *gifting.Idempotent[Campaign]) (Campaign, *gifting.StoredResponse, error) {
	if err := a.checkReferences(ctx, orgID, &c); err != nil {
		return c, nil, err
	}
	if stored, err := a.store.IdempotentReplay(ctx, orgID, idem.KeyOf()); stored != nil || err != nil {
		return c, stored, err
	}
	now := a.store.Now()
	c = DecideCreate(orgID, c, a.store.NewID(), now)
	resp, err := responseOf(idem, c)
	if err != nil {
		return c, nil, err
	}
	err = a.store.CommitCreate(ctx, CreatePlan{OrgID: orgID, Campaign: c, Response: resp})
	if answered, ok := errors.AsType[*Answered](err); ok {
		return c, &answered.Stored, nil
	}
	return c, nil, err
}

// Update edits a draft: e is applied to the campaign as stored, whose
// references are then checked and whose price is fixed again.
//
// Errors: NOT_FOUND (campaign), CONFLICT (not a draft; its gifts or price
// changed and it has recipients), VALIDATION_FAILED (e's own, or as
// Create).
func (a *App) Update(ctx context.Context, orgID, campaignID, userID string, e Edit) (Campaign, error) {
	was, err := a.Campaign(ctx, orgID, campaignID)
	if err != nil {
		return was, err
	}
	if was.Status != Draft {
		return was, was.NotDraft("edited")
	}
	c := was // Apply replaces what it changes, leaving was as read
	if err := e.Apply(&c, false); err != nil {
		return c, err
	}
	if err := a.checkReferences(ctx, orgID, &c); err != nil {
		return c, err
	}
	plan, err := DecideEdit(orgID, was, c, userID, a.store.Now())
	if err != nil {
		return c, err
	}
	updated, err := a.store.CommitEdit(ctx, plan)
	switch {
	case errors.Is(err, ErrHasRecipients):
		return c, RecipientsFixPrice(campaignID)
	case errors.Is(err, ErrMoved):
		// No longer a draft, or gone: say which.
		now, err := a.Campaign(ctx, orgID, campaignID)
		if err != nil {
			return c, err
		}
		return c, now.NotDraft("edited")
	case err != nil:
		return c, err
	}
	updated.Normalize()
	return updated, nil
}

// checkReferences reads what c refers to (its contact lists, template and
// gifts; the template and gifts may be the service catalog's) and checks
// and prices c with it (CheckReferences).
func (a *App) checkReferences(ctx context.Context, orgID string, c *Campaign) error {
	var r References
	for _, id := range c.CampaignData.ContactListIDs {
		if _, err := a.store.ContactList(ctx, orgID, id); err != nil {
			if gifting.ErrorCode(err) != gifting.CodeNotFound {
				return err
			}
			r.MissingLists = append(r.MissingLists, id)
		}
	}
	if id := c.CampaignData.EmailTemplateID; id != "" {
		t, err := a.store.Template(ctx, orgID, id)
		if err != nil {
			if gifting.ErrorCode(err) != gifting.CodeNotFound {
				return err
			}
			r.MissingTemplate = true
		}
		r.TemplateMeeting = t.TemplateData.Meeting
		if !r.MissingTemplate {
			r.TemplateLook = &gifting.TemplateLook{}
			if t.OrganizationID == orgID {
				r.TemplateLook.Logo, r.TemplateLook.Color = t.TemplateData.Goal.Logo, t.TemplateData.Goal.LogoColor
			}
		}
	}
	if ids := c.CampaignData.GiftIDs; len(ids) > 0 {
		var err error
		r.Gifts, err = a.store.Gifts(ctx, orgID, ids)
		switch {
		case gifting.ErrorCode(err) == gifting.CodeNotFound:
			r.GiftsErr = err
		case err != nil:
			return err
		}
	}
	return CheckReferences(c, r)
}

// Move performs a user's lifecycle action (pause, resume, complete) on a
// campaign of orgID: when act applies to its state, the campaign moves, in
// one transaction with the change record holding it as written (see
// MovePlan); a write that finds the campaign changed since read (a
// recipient moved its counters) reads and decides again. It returns the
// campaign as written. Completing it also starts the job that expires its
// unclaimed recipients with their refunds (gifting.JobCampaignExpire); a
// failed enqueue is logged, not returned: the completion committed that
// job as due work, which the scheduler's tick runs a lease later.
//
// Errors: NOT_FOUND (missing, deleted, another organization's), CONFLICT
// (act does not apply to its state, named; or it kept changing).
func (a *App) Move(ctx context.Context, orgID, campaignID string, act Action, userID, reason string) (Campaign, error) {
	for attempt := 1; ; attempt++ {
		r, err := a.read(ctx, orgID, campaignID)
		if err != nil {
			return Campaign{}, err
		}
		plan, err := DecideMove(r, orgID, act, userID, reason, a.store.Now())
		if err != nil {
			return r.Campaign, err
		}
		err = a.store.CommitMove(ctx, plan)
		switch {
		case err == nil:
			if act.To == Completed {
				a.startExpiry(ctx, orgID, campaignID)
			}
			return plan.Moved, nil
		case !errors.Is(err, ErrMoved):
			return r.Campaign, fmt.Errorf("%s campaign: %w", act.Name, err)
		case attempt >= retry.MaxAttempts:
			return r.Campaign, KeptChanging(campaignID, act)
		}
		// It changed since read (a recipient, another action): read
		// again and decide again.
	}
}

// Delete soft-deletes a campaign of orgID (see DeletePlan), reading it
// again, after a pause, as long as a busy campaign needs (every recipient
// added, moved or invited changes it). It returns the campaign as deleted.
// Its recipients can no longer claim, so, as completing does, it starts
// the job that expires the unclaimed ones with their refunds; a failed
// enqueue is logged, not returned.
//
// Errors: NOT_FOUND (missing or already deleted), CONFLICT (a launch is
// preparing it).
func (a *App) Delete(ctx context.Context, orgID, campaignID, userID string) (Campaign, error) {
	for attempt := 1; ; attempt++ {
		r, err := a.read(ctx, orgID, campaignID)
		if err != nil {
			return Campaign{}, err
		}
		plan, err := DecideDelete(r, orgID, userID, a.store.Now())
		if err != nil {
			return r.Campaign, err
		}
		err = a.store.CommitDelete(ctx, plan)
		switch {
		case err == nil:
			a.startExpiry(ctx, orgID, campaignID)
			return plan.Deleted, nil
		case !errors.Is(err, ErrMoved) || attempt >= retry.MaxAttempts:
			return r.Campaign, fmt.Errorf("delete campaign: %w", err)
		}
		if err := retry.Pause(ctx, attempt); err != nil {
			return r.Campaign, err
		}
	}
}

// read reads a campaign with what conditions a write on it; NOT_FOUND
// when there is none.
func (a *App) read(ctx context.Context, orgID, campaignID string) (Read, error) {
	r, err := a.store.ReadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, ErrNotFound) {
		return Read{}, NotFound(campaignID)
	}
	return r, err
}

// startExpiry enqueues the expiry of a campaign's unclaimed recipients
// (gifting.JobCampaignExpire), logging a failure: the commit made it due
// work, which the scheduler's tick runs.
func (a *App) startExpiry(ctx context.Context, orgID, campaignID string) {
	if err := a.enqueue(ctx, gifting.JobCampaignExpire, orgID, campaignID); err != nil {
		a.cfg.Logger(ctx).WarnContext(ctx, "expiry job not enqueued; the scheduler runs it",
			slog.String("organizationId", orgID), slog.String("campaignId", campaignID), slog.String("error", err.Error()))
	}
}
