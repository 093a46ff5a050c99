package recipient

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Page marks: the first time a recipient did something on its pages,
// recorded once on the recipient with a change message (a webhook) in
// the same transaction, conditioned on the mark being unset, so a reload
// or two views at once send one message. The pages decide from the
// recipient they read anyway whether a mark is due: a later view writes
// nothing.

// MarkField names the recipient's field a PageMark sets.
type MarkField string

// The page marks.
const (
	// MarkViewed is the landing page's first view (viewedAt,
	// recipient.viewed).
	MarkViewed MarkField = "viewedAt"
	// MarkMeetingClicked is the first click of the meeting link
	// (meetingClickedAt, recipient.meeting_link_clicked).
	MarkMeetingClicked MarkField = "meetingClickedAt"
)

// PageMark is a page mark to record: its field set to At on Recipient
// (which Message carries, as the mark leaves it).
type PageMark struct {
	OrgID     string
	Field     MarkField
	At        time.Time
	Recipient Recipient
	Message   gifting.Change
}

// DecideMark plans the mark of field on r at now; ok is false when r has
// it already (nothing to write).
func DecideMark(r Recipient, field MarkField, now time.Time) (m PageMark, ok bool) {
	typ, at := gifting.ChangeRecipientViewed, &r.ViewedAt
	if field == MarkMeetingClicked {
		typ, at = gifting.ChangeRecipientMeetingClicked, &r.MeetingClickedAt
	}
	if *at != nil {
		return PageMark{}, false
	}
	*at = &now
	return PageMark{OrgID: r.OrganizationID, Field: field, At: now, Recipient: r, Message: gifting.NewChange(typ, r)}, true
}

// mark records field on the page's recipient once (DecideMark), setting
// it on p too. A mark recorded meanwhile (a second tab) is no error.
func (s *Pages) mark(ctx context.Context, p *Page, field MarkField) error {
	m, ok := DecideMark(p.Recipient, field, s.app.store.Now())
	if !ok {
		return nil
	}
	err := s.app.store.MarkPage(ctx, m)
	if err != nil && !errors.Is(err, ErrAlreadyMarked) {
		return err
	}
	p.Recipient = m.Recipient
	return nil
}

// ErrMeetingFirst is the CONFLICT of a claim before the meeting link of a
// campaign that requires it was followed.
var ErrMeetingFirst = gifting.Errorf(gifting.CodeConflict,
	"please book a meeting first: the link is on the page of your gift, and the gift can be claimed once you have followed it")

// MeetingDue reports whether p's recipient must follow its campaign's
// meeting link before it may claim: required, not followed, and not
// claimed yet.
func (p Page) MeetingDue() bool {
	m := p.Campaign.Meeting
	return m != nil && m.Required && p.Recipient.MeetingClickedAt == nil && !p.Recipient.Claimed()
}

// Meeting records that the recipient of the landing page pageID names
// followed its campaign's meeting link (once: meetingClickedAt and
// recipient.meeting_link_clicked) and returns the link's stored URL,
// where the recipient goes next. It works before and after the claim.
//
// Errors: NOT_FOUND (as Landing; a campaign without a meeting link),
// GONE (as Landing).
func (s *Pages) Meeting(ctx context.Context, pageID string) (string, error) {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return "", err
	}
	if p.Recipient.Status == gifting.RecipientExpired {
		return "", ErrGiftExpired
	}
	m := p.Campaign.Meeting
	if m == nil {
		return "", gifting.NotFound("meeting link", pageID)
	}
	return m.URL, s.mark(ctx, &p, MarkMeetingClicked)
}
