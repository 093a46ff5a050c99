package recipient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/hashicorp/golang-lru/v2/expirable"
	"golang.org/x/sync/singleflight"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/retry"
)

// Config holds what the use cases need besides the store.
type Config struct {
	// PublicBaseURL is where recipients' landing and claim pages live.
	PublicBaseURL string
	// Mailer sends recipients' emails. Nil means no mail provider:
	// add-recipient reports emailSent false and every email stays
	// scheduled.
	Mailer mail.Mailer
	// Logger returns the logger of the request or job ctx belongs to; nil
	// means slog.Default().
	Logger func(ctx context.Context) *slog.Logger
	// Codes opens digital gifts' sealed codes for their recipients'
	// landing pages (RevealCode). Nil means no key: a page that would
	// show a code is SERVICE_UNAVAILABLE.
	Codes CodeOpener
}

// App is the recipient's application layer: the use cases of the API
// (add, read, move, feedback), of the recipient's pages (Pages), of
// the emails and of the expiry. Each loads what it needs through the
// Store, decides with the pure functions of this package, and hands the
// plan to the Store to commit in one transaction, deciding again when a
// condition of the commit failed.
type App struct {
	store Store
	cfg   Config
	// mailContexts keeps what the emails of a campaign show besides the
	// recipient for a minute (Compose), so a tick that sends a campaign's
	// emails reads it once, not once an email; loads collapses the
	// concurrent misses of one campaign (the tick sends its emails in
	// parallel) into one read.
	mailContexts *expirable.LRU[string, MailContext]
	loads        singleflight.Group
}

// NewApp returns the recipient's use cases over store.
func NewApp(store Store, cfg Config) *App {
	if cfg.Logger == nil {
		cfg.Logger = func(context.Context) *slog.Logger { return slog.Default() }
	}
	return &App{store: store, cfg: cfg, mailContexts: expirable.NewLRU[string, MailContext](256, nil, MailContextTTL)}
}

// Get returns a recipient of a campaign of orgID as the API shows it.
// Errors: NOT_FOUND (the recipient, or its campaign missing or deleted).
func (a *App) Get(ctx context.Context, orgID, campaignID, recipientID string) (Recipient, error) {
	r, err := a.store.CampaignRecipient(ctx, orgID, campaignID, recipientID)
	switch {
	case errors.Is(err, ErrNoCampaign):
		return Recipient{}, gifting.NotFound("campaign", campaignID)
	case errors.Is(err, ErrNoRecipient):
		return Recipient{}, gifting.NotFound("recipient", recipientID)
	}
	return r, err
}

// load reads a recipient with its version. Errors: NOT_FOUND.
func (a *App) load(ctx context.Context, orgID, campaignID, recipientID string) (Stored, error) {
	cur, err := a.store.LoadRecipient(ctx, orgID, campaignID, recipientID)
	if errors.Is(err, ErrNoRecipient) {
		return Stored{}, gifting.NotFound("recipient", recipientID)
	}
	return cur, err
}

// Move moves a recipient to status to, as the fulfilment side reports it
// (DecideMove), with the campaign's counters. Errors: NOT_FOUND (the
// recipient or its campaign), CONFLICT (a move the state machine does not
// allow).
func (a *App) Move(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (Recipient, error) {
	return a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideMove(orgID, cur, to, a.store.Now())
	})
}

// Feedback records a recipient's rating (when not empty) and message (when
// not nil); the first feedback counts on its campaign. Errors: NOT_FOUND,
// CONFLICT (not invited yet; too many messages).
func (a *App) Feedback(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *FeedbackMessage) (Recipient, error) {
	return a.update(ctx, orgID, campaignID, recipientID, func(cur Stored) (Update, error) {
		return DecideFeedback(orgID, cur, rating, msg, a.store.Now())
	})
}

// update reads a recipient, lets decide plan its change and commits it,
// reading again when another writer changed the recipient first. A
// decision's errNothingToWrite writes nothing and returns the recipient as
// read; ErrEmailGivenUp commits and is returned with the recipient.
func (a *App) update(ctx context.Context, orgID, campaignID, recipientID string, decide func(Stored) (Update, error)) (Recipient, error) {
	for attempt := 1; ; attempt++ {
		cur, err := a.load(ctx, orgID, campaignID, recipientID)
		if err != nil {
			return Recipient{}, err
		}
		u, derr := decide(cur)
		switch {
		case errors.Is(derr, errNothingToWrite):
			return cur.Recipient, nil
		case derr != nil && !errors.Is(derr, ErrEmailGivenUp):
			return Recipient{}, derr
		}
		err = a.store.CommitUpdate(ctx, u)
		switch {
		case err == nil:
			return u.Recipient.Recipient, derr
		case errors.Is(err, ErrRecipientChanged) && attempt < retry.MaxAttempts:
			continue // changed since read: read again
		case errors.Is(err, ErrRecipientChanged):
			return Recipient{}, fmt.Errorf("update recipient: gave up after %d attempts: %w", attempt, err)
		case errors.Is(err, ErrCampaignMissing):
			return Recipient{}, gifting.NotFound("campaign", campaignID)
		}
		return Recipient{}, err
	}
}
