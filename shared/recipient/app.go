package recipient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/retry"
	"github.com/giftcampaign/service/shared/wallet"
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
}

// NewApp returns the recipient's use cases over store.
func NewApp(store Store, cfg Config) *App {
	if cfg.Logger == nil {
		cfg.Logger = func(context.Context) *slog.Logger { return slog.Default() }
	}
	return &App{store: store, cfg: cfg}
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

// changeBalance runs one change of orgID's wallet beside writes of the use
// case's own, as wallet.App does a change alone: decide plans everything
// from the balance it is given and returns the wallet's balance after it,
// commit writes the last plan decided in one transaction. The wallet is
// held (wallet.Hold) throughout; the balance decided from is the one the
// previous change of this process left, else read (a balance the caller
// has just read, or a read now). A refusal for too few credits on a
// balance not read now is decided again on one read now; a commit that
// finds the balance moved decides again from the balance found, one that
// meets contention pauses and tries again.
func (a *App) changeBalance(ctx context.Context, orgID string, read *int64, decide func(balance int64) (int64, error), commit func() error) error {
	hold, release, err := a.store.Hold(ctx, orgID)
	if err != nil {
		return err
	}
	defer release()
	balance, fresh := hold.Balance, false
	switch {
	case hold.Known:
		// What the previous change in this process left: newer than a
		// read the caller made before waiting for the wallet.
	case read != nil:
		balance = *read
	default:
		if balance, err = a.balance(ctx, orgID); err != nil {
			return err
		}
		fresh = true
	}
	for attempt := 1; ; attempt++ {
		hold.Remember(balance)
		after, err := decide(balance)
		if wallet.Short(err) && !fresh {
			// A remembered or earlier-read balance may miss a top-up
			// made elsewhere: refuse only on a balance read now.
			if balance, err = a.balance(ctx, orgID); err != nil {
				return err
			}
			fresh = true
			hold.Remember(balance)
			after, err = decide(balance)
		}
		if err != nil {
			return err
		}
		err = commit()
		var moved *wallet.BalanceMoved
		switch {
		case err == nil:
			hold.Remember(after)
			return nil
		case errors.Is(err, wallet.ErrNoWallet):
			return wallet.NoWallet(orgID)
		case !errors.Is(err, wallet.ErrBalanceMoved) && !errors.Is(err, wallet.ErrContended):
			return err
		case attempt >= retry.MaxAttempts:
			return fmt.Errorf("change balance: gave up after %d attempts: %w", attempt, err)
		case errors.As(err, &moved):
			balance, fresh = moved.Balance, true
			err = retry.Pause(ctx, attempt-2)
		default:
			err = retry.Pause(ctx, attempt)
		}
		if err != nil {
			return err
		}
	}
}

// balance reads orgID's balance now.
func (a *App) balance(ctx context.Context, orgID string) (int64, error) {
	w, err := a.store.Wallet(ctx, orgID)
	if errors.Is(err, wallet.ErrNoWallet) {
		return 0, wallet.NoWallet(orgID)
	}
	return w.Balance, err
}
