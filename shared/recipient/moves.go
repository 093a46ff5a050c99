package recipient

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// CanMove reports whether a recipient may move from one state to another.
// Recipients only move forward through gifting.RecipientJourney, and may
// skip states (a carrier may report delivery without an in-transit scan),
// but never go back or stay. Expired is neither reached nor left this way
// (Recipient.Expire).
func CanMove(from, to gifting.RecipientStatus) bool {
	return from.Rank() >= 0 && to.Rank() > from.Rank()
}

// Advance moves the recipient to status to at now, or returns CONFLICT when
// the move goes backwards. Reminders that have not gone out stop once the
// address is confirmed; the shipped, post-delivery and post-acknowledgement
// emails are scheduled when the shipment, the delivery and the
// acknowledgement happen (now: for a delivery the carrier reports, the
// time of its delivered scan), after their template delays (delayHours,
// by kind). Each is scheduled once: a later move leaves a scheduled or
// sent email as it is.
func (r *Recipient) Advance(to gifting.RecipientStatus, now time.Time, delayHours map[string]int) error {
	switch {
	case r.Status == gifting.RecipientExpired:
		return gifting.Errorf(gifting.CodeConflict, "recipient %q has expired (its gift was not claimed in time and its credits were refunded); no move leads out of expired", r.RecipientID)
	case r.Status == gifting.RecipientDeclined:
		return gifting.Errorf(gifting.CodeConflict, "recipient %q declined its gift (its credits were refunded); no move leads out of declined", r.RecipientID)
	case to == gifting.RecipientDeclined:
		return gifting.Errorf(gifting.CodeConflict, "a recipient cannot be moved to declined: only the recipient declines, with \"No thanks\" on its landing page")
	case to == gifting.RecipientExpired:
		return gifting.Errorf(gifting.CodeConflict, "a recipient cannot be moved to expired: it expires by itself when its claim period ends or its campaign is completed or deleted")
	case !CanMove(r.Status, to):
		return gifting.Errorf(gifting.CodeConflict, "a recipient cannot move from %s to %s: recipients move forward only, through %s",
			r.Status, to, joinStatuses(gifting.RecipientJourney))
	}
	rank := to.Rank()
	if rank >= gifting.RecipientAddressConfirmed.Rank() {
		for _, e := range []*EmailSchedule{&r.Emails.Reminder1, &r.Emails.Reminder2} {
			if !e.Sent {
				e.Active = false
			}
		}
	}
	schedule := func(kind string, e *EmailSchedule) {
		if e.Active && e.ScheduledTime == "" {
			e.ScheduledTime = gifting.FormatTime(now.Add(time.Duration(delayHours[kind]) * time.Hour))
		}
	}
	if rank >= gifting.RecipientShipped.Rank() && rank < gifting.RecipientDelivered.Rank() {
		// A move straight to delivered skips it: "it shipped" after it
		// arrived tells the recipient nothing.
		r.activateShipped()
		schedule("shipped", &r.Emails.Shipped)
	}
	if rank >= gifting.RecipientDelivered.Rank() {
		if r.Emails.Shipped.waiting() {
			// Delivered before "it shipped" went out: it would arrive
			// after the gift, and the post-delivery email follows.
			r.Emails.Shipped.Active = false
		}
		schedule("postDelivery", &r.Emails.PostDelivery)
	}
	if rank >= gifting.RecipientAcknowledged.Rank() {
		schedule("postAcknowledgement", &r.Emails.PostAcknowledgement)
	}
	r.Status, r.UpdatedAt = to, now
	return nil
}

// MoveByFulfilment is a status move reported by the fulfilment side (the
// status endpoint): Advance, except that a recipient who has not confirmed
// a shipping address on the claim page cannot be confirmed, shipped or
// delivered (CONFLICT): only the claim confirms an address.
func (r *Recipient) MoveByFulfilment(to gifting.RecipientStatus, now time.Time, delayHours map[string]int) error {
	if !r.Status.Ended() && to.Rank() >= gifting.RecipientAddressConfirmed.Rank() && !r.Claimed() {
		return gifting.Errorf(gifting.CodeConflict, "a recipient moves to %s only after confirming a shipping address on its claim page", to)
	}
	return r.Advance(to, now, delayHours)
}

func joinStatuses(ss []gifting.RecipientStatus) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// RatingValues are the ratings a recipient can give. The original interface
// shows "like"; "dislike" is its counterpart.
var RatingValues = []string{"like", "dislike"}

// MaxFeedbackMessages bounds the messages kept on one recipient, so the item
// stays small.
const MaxFeedbackMessages = 20

// AddFeedback records a rating (when not empty) and a message (when not
// nil) at now. A pending recipient, who has not been invited yet, cannot
// give feedback (CONFLICT).
func (r *Recipient) AddFeedback(rating string, msg *FeedbackMessage, now time.Time) error {
	if r.Status == gifting.RecipientPending {
		return gifting.Errorf(gifting.CodeConflict, "recipient %q has not been invited yet, so it cannot have feedback", r.RecipientID)
	}
	if msg != nil && len(r.Feedback.Message) >= MaxFeedbackMessages {
		return gifting.Errorf(gifting.CodeConflict, "recipient %q already has %d feedback messages, the most kept", r.RecipientID, MaxFeedbackMessages)
	}
	if rating != "" {
		r.Feedback.Rating = &Rating{Value: rating, SubmittedAt: now}
	}
	if msg != nil {
		m := *msg
		m.SubmittedAt = now
		r.Feedback.Message = append(r.Feedback.Message, m)
	}
	r.UpdatedAt = now
	return nil
}

// ValidateFeedback checks a feedback submission, the same wherever it
// comes from (the sender-side endpoint, the recipient's landing page): a
// rating among RatingValues, a message (when not nil, trimmed in place, its
// type "text" when empty) with a text or a URL, or both. The error is
// VALIDATION_FAILED naming the field (rating, message, message.type,
// message.text, message.url).
func ValidateFeedback(rating string, msg *FeedbackMessage) error {
	var p gifting.Problems
	if rating == "" && msg == nil {
		p.Add("rating", "rating or message is required")
	}
	if rating != "" && !slices.Contains(RatingValues, rating) {
		p.Add("rating", "must be one of "+strings.Join(RatingValues, ", "))
	}
	if msg != nil {
		msg.Type, msg.Text, msg.URL = strings.TrimSpace(msg.Type), strings.TrimSpace(msg.Text), strings.TrimSpace(msg.URL)
		if msg.Type == "" {
			msg.Type = "text"
		}
		switch {
		case tooLong(msg.Type, 50):
			p.Add("message.type", "must be at most 50 characters")
		case msg.Text == "" && msg.URL == "":
			p.Add("message", "needs a text or a url")
		case tooLong(msg.Text, 2000):
			p.Add("message.text", "must be at most 2000 characters")
		case msg.URL != "" && !gifting.ValidURL(msg.URL):
			p.Add("message.url", "must be an http(s) URL")
		}
	}
	return p.Err()
}

// tooLong reports whether s has more than max characters.
func tooLong(s string, max int) bool { return utf8.RuneCountInString(s) > max }
