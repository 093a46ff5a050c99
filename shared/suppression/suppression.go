// Package suppression is an organization's suppression list: the
// addresses it never mails again. The service adds to it by itself when
// an email bounces for good, draws a complaint, or its recipient
// unsubscribes (shared/recipient); this slice lets the organization read
// the list, add an address by hand (someone asked by phone not to be
// mailed) and take off one that bounced by mistake.
//
// An address whose owner complained or unsubscribed stays: the person
// asked not to be mailed, and only they can undo that (the law of most
// places where mail is sent says as much, CAN-SPAM and the GDPR among
// them), so removing it is refused.
package suppression

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Reasons an address is suppressed. The service writes the first three
// (shared/recipient's EmailBounced, EmailComplained, EmailUnsubscribed);
// an organization adds Manual.
const (
	Bounced      = "bounced"
	Complained   = "complained"
	Unsubscribed = "unsubscribed"
	Manual       = "manual"
)

// Removable reports whether an address suppressed for reason may be taken
// off the list by the organization: a bounce (a mailbox may be fixed) or
// its own addition, never the person's own request.
func Removable(reason string) bool { return reason == Bounced || reason == Manual }

// Entry is one suppressed address.
type Entry struct {
	Email        string
	Reason       string
	SuppressedAt time.Time
}

// Store is what the list needs of storage (shared/dynamo).
type Store interface {
	// Suppress adds email for reason, keeping the first reason and time
	// when it is there already.
	Suppress(ctx context.Context, orgID, email, reason string) error
	// Suppression reads email's entry; found is false when it has none.
	Suppression(ctx context.Context, orgID, email string) (e Entry, found bool, err error)
	// SuppressionPage reads up to limit entries after the position after
	// ("" from the first), in the store's order, and the position of the
	// next page ("" on the last).
	SuppressionPage(ctx context.Context, orgID, after string, limit int) ([]Entry, string, error)
	// CommitUnsuppress removes email's entry if its reason is still
	// reason; ErrChanged otherwise (gone, or suppressed again for
	// another reason meanwhile).
	CommitUnsuppress(ctx context.Context, orgID, email, reason string) error
}

// ErrChanged is storage's report that an entry is no longer as read.
var ErrChanged = errors.New("the suppression changed")

// App runs the list's use cases.
type App struct{ store Store }

// NewApp returns the use cases over store.
func NewApp(store Store) *App { return &App{store: store} }

// email checks and lower-cases an address (VALIDATION_FAILED naming email).
func email(s string) (string, error) {
	e, ok := gifting.NormalizeEmail(s)
	if !ok {
		var p gifting.Problems
		p.Add("email", "must be an email address")
		return "", p.Err()
	}
	return e, nil
}

// Add suppresses address by hand (reason manual) and returns its entry;
// added is false when it was suppressed already (its first reason and
// time stay).
func (a *App) Add(ctx context.Context, orgID, address string) (e Entry, added bool, err error) {
	addr, err := email(address)
	if err != nil {
		return Entry{}, false, err
	}
	if e, found, err := a.store.Suppression(ctx, orgID, addr); err != nil || found {
		return e, false, err
	}
	if err := a.store.Suppress(ctx, orgID, addr, Manual); err != nil {
		return Entry{}, false, err
	}
	e, _, err = a.store.Suppression(ctx, orgID, addr)
	return e, e.Reason == Manual, err
}

// Get reads address's entry: NOT_FOUND when it is not suppressed.
func (a *App) Get(ctx context.Context, orgID, address string) (Entry, error) {
	addr, err := email(address)
	if err != nil {
		return Entry{}, err
	}
	e, found, err := a.store.Suppression(ctx, orgID, addr)
	if err == nil && !found {
		// The message does not repeat the address: error texts may be
		// logged, addresses must not be.
		err = gifting.Errorf(gifting.CodeNotFound, "the address is not on the suppression list")
	}
	return e, err
}

// List reads a page of the list: limit 1 to 100, after a position a
// previous page gave.
func (a *App) List(ctx context.Context, orgID, after string, limit int) ([]Entry, string, error) {
	return a.store.SuppressionPage(ctx, orgID, after, limit)
}

// Remove takes address off the list and returns the entry it had.
// Errors: NOT_FOUND (not suppressed), CONFLICT (its owner complained or
// unsubscribed: only they can undo it).
func (a *App) Remove(ctx context.Context, orgID, address string) (Entry, error) {
	for attempt := 1; ; attempt++ {
		e, err := a.Get(ctx, orgID, address)
		if err != nil {
			return Entry{}, err
		}
		if !Removable(e.Reason) {
			why := "asked not to be mailed"
			switch e.Reason {
			case Complained:
				why = "complained about an email"
			case Unsubscribed:
				why = "unsubscribed"
			}
			return Entry{}, gifting.Errorf(gifting.CodeConflict, "the address is suppressed because its owner %s; only they can undo that, so it stays on the list", why)
		}
		err = a.store.CommitUnsuppress(ctx, orgID, e.Email, e.Reason)
		if !errors.Is(err, ErrChanged) || attempt >= 3 {
			return e, err
		}
	}
}
