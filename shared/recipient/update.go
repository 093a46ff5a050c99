package recipient

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// UpdateStore commits the changes of one recipient: its moves, its
// feedback and the record of its emails.
type UpdateStore interface {
	// CommitUpdate writes u.Recipient conditioned on u.Before, alone (one
	// conditional put) or, with a campaign effect, a message or a sent
	// message, in one transaction with them. A failed condition is
	// ErrRecipientChanged or ErrCampaignMissing.
	CommitUpdate(ctx context.Context, u Update) error
}

// EmailStore is what sending a recipient's emails needs of storage besides
// the recipient.
type EmailStore interface {
	// HoldEmails makes a recipient's waiting emails due again at until
	// without changing the recipient.
	HoldEmails(ctx context.Context, orgID, campaignID, recipientID string, until time.Time) error
	// OrgSuspended reports whether the service's operator suspended the
	// organization (its scheduled emails are held meanwhile).
	OrgSuspended(ctx context.Context, orgID string) (bool, error)
	// IsSuppressed reports whether the organization never mails email.
	IsSuppressed(ctx context.Context, orgID, email string) (bool, error)
	// Suppress adds an address to the organization's suppression list.
	Suppress(ctx context.Context, orgID, email, reason string) error
	// MessageRecipient returns whose email a sent message was; found is
	// false for one this service did not send (or long ago).
	MessageRecipient(ctx context.Context, messageID string) (orgID, campaignID, recipientID, kind string, found bool, err error)
	// MailContext reads what a recipient's email of the campaign shows
	// besides the recipient (MailContext; PublicBaseURL left to the
	// caller); ErrNoCampaign when the campaign is gone.
	MailContext(ctx context.Context, orgID, campaignID string) (MailContext, error)
}

// CampaignEffect is what an update of a recipient does to its campaign's
// item, in the same transaction.
type CampaignEffect int

// Campaign effects.
const (
	// NoCampaign: the campaign's item is not part of the write.
	NoCampaign CampaignEffect = iota
	// CampaignExists: the campaign must exist (a deleted campaign's
	// recipients are gone with it).
	CampaignExists
	// CampaignStatusMove: the recipient moves from Update.From to its
	// status in the campaign's counters.
	CampaignStatusMove
	// CampaignFeedbackCount: the recipient's first feedback counts in the
	// campaign's feedbackCount.
	CampaignFeedbackCount
)

// Update is a decided change of one recipient, ready to commit.
type Update struct {
	OrgID string
	// Before is the version the recipient was read at; Recipient is it as
	// changed.
	Before    int64
	Recipient Stored
	Campaign  CampaignEffect
	// From is the status the recipient left (CampaignStatusMove).
	From gifting.RecipientStatus
	// Message, when not nil, is the update's change message.
	Message *gifting.Change
	// Sent, when not nil, is the record of a message the mail provider
	// accepted: whose email it was, for its bounces and complaints.
	Sent *SentMessage
}

// SentMessage names a message the mail provider accepted, and the email
// kind it was.
type SentMessage struct {
	MessageID, Kind string
}

// Alone reports whether u writes the recipient and nothing else.
func (u Update) Alone() bool {
	return u.Campaign == NoCampaign && u.Message == nil && u.Sent == nil
}

// errNothingToWrite is a decision's answer when the recipient needs no
// write: the use case writes nothing and succeeds.
var errNothingToWrite = errors.New("nothing to write")

// updateOf is the update of cur to r, its next version, with no effect
// beyond the recipient.
func updateOf(orgID string, cur Stored, r Recipient) Update {
	return Update{OrgID: orgID, Before: cur.Version, Recipient: cur.Next(r)}
}

// DecideMove plans the move of cur to status to reported by the fulfilment
// side at now (Recipient.MoveByFulfilment: CONFLICT for a move backwards,
// or to a state past the claim without one), with its counters and its
// recipient.status_changed message.
func DecideMove(orgID string, cur Stored, to gifting.RecipientStatus, now time.Time) (Update, error) {
	r := cur.Recipient
	from := r.Status
	if err := r.orderOwns(to); err != nil {
		return Update{}, err
	}
	if err := r.MoveByFulfilment(to, now, cur.Delays); err != nil {
		return Update{}, err
	}
	u := updateOf(orgID, cur, r)
	msg := statusChanged(r, from)
	u.Campaign, u.From, u.Message = CampaignStatusMove, from, &msg
	return u, nil
}

// DecideFeedback plans cur's rating and message at now
// (Recipient.AddFeedback: CONFLICT when not invited yet or too many
// messages): the first feedback counts on the campaign, every one has its
// recipient.feedback message.
func DecideFeedback(orgID string, cur Stored, rating string, msg *FeedbackMessage, now time.Time) (Update, error) {
	r := cur.Recipient
	first := !r.Feedback.Has()
	if err := r.AddFeedback(rating, msg, now); err != nil {
		return Update{}, err
	}
	u := updateOf(orgID, cur, r)
	m := gifting.NewChange(gifting.ChangeRecipientFeedback, r)
	u.Campaign, u.Message = CampaignExists, &m
	if first {
		u.Campaign = CampaignFeedbackCount
	}
	return u, nil
}

// DecideClaimEmail plans the claim of cur's email kind at now
// (Recipient.ClaimEmail). When the claim gives the email up
// (ErrEmailGivenUp), the update records the failure and the error says so.
func DecideClaimEmail(orgID string, cur Stored, kind string, now time.Time) (Update, error) {
	r := cur.Recipient
	err := r.ClaimEmail(kind, now)
	if err != nil && !errors.Is(err, ErrEmailGivenUp) {
		return Update{}, err
	}
	return updateOf(orgID, cur, r), err
}

// DecideEmailSent plans the record of cur's email kind accepted at now as
// messageID (Recipient.MarkEmailSent), with the message's record; an
// invitation that moves the recipient to invite_sent moves its counters
// too, with its recipient.status_changed message.
func DecideEmailSent(orgID string, cur Stored, kind, messageID string, now time.Time) Update {
	r := cur.Recipient
	from := r.MarkEmailSent(kind, messageID, now)
	u := updateOf(orgID, cur, r)
	if from != "" {
		msg := statusChanged(r, from)
		u.Campaign, u.From, u.Message = CampaignStatusMove, from, &msg
	}
	if messageID != "" {
		u.Sent = &SentMessage{MessageID: messageID, Kind: kind}
	}
	return u
}

// DecideEmailFailed plans the record of a failed send of cur's email kind
// claimed at claimedAt (Recipient.MarkEmailFailed); ok is false when the
// claim is no longer the sender's and nothing is to be written.
func DecideEmailFailed(orgID string, cur Stored, kind, failure string, claimedAt, now time.Time) (u Update, ok bool) {
	r := cur.Recipient
	if !r.MarkEmailFailed(kind, failure, claimedAt, now) {
		return Update{}, false
	}
	return updateOf(orgID, cur, r), true
}

// DecideStopEmails plans failure on cur's email kind (when not "") and on
// every email of it still to be sent (Recipient.StopEmails).
func DecideStopEmails(orgID string, cur Stored, kind, failure string, now time.Time) Update {
	r := cur.Recipient
	r.StopEmails(kind, failure, now)
	return updateOf(orgID, cur, r)
}
