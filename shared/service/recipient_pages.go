// Package service holds the use cases between the HTTP adapters and
// storage: an adapter decodes a request, calls a use case and encodes its
// answer; storage stores and returns domain values. Neither calls the
// other.
package service

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// PageStore is the storage the recipient pages need.
type PageStore interface {
	// RecipientPage returns the page a page id names, or NOT_FOUND.
	RecipientPage(ctx context.Context, pageID string) (campaign.RecipientPage, error)
	// MarkPageViewed records the first view of a landing page.
	MarkPageViewed(ctx context.Context, orgID, campaignID, recipientID string) error
	// ClaimGift records a claim: NOT_FOUND, GONE, CONFLICT (claimed; out
	// of stock), VALIDATION_FAILED.
	ClaimGift(ctx context.Context, orgID, campaignID, recipientID string, in gifting.ClaimInput) (gifting.Recipient, error)
	// MoveRecipient moves a recipient forward: NOT_FOUND, CONFLICT.
	MoveRecipient(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (gifting.Recipient, error)
	// AddRecipientFeedback records feedback: NOT_FOUND, CONFLICT.
	AddRecipientFeedback(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *gifting.FeedbackMessage) (gifting.Recipient, error)
	mailStopper
}

// RecipientPages are the use cases of a recipient's own pages, where the
// page id is the only credential: view the gift, claim it with an address,
// say it arrived, leave feedback.
type RecipientPages struct {
	store PageStore
}

// NewRecipientPages returns the recipient page use cases over store.
func NewRecipientPages(store PageStore) *RecipientPages { return &RecipientPages{store: store} }

// Landing returns the landing page pageID names and records its first
// view.
//
// Errors: NOT_FOUND (malformed or unknown id, or a claim page id), GONE
// (campaign.RecipientPage.Gone; the recipient expired, with the page).
func (s *RecipientPages) Landing(ctx context.Context, pageID string) (campaign.RecipientPage, error) {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return p, err
	}
	if p.Recipient.Status == gifting.RecipientExpired {
		return p, gifting.ErrGiftExpired
	}
	if p.Recipient.ViewedAt == nil {
		if err := s.store.MarkPageViewed(ctx, p.Recipient.OrganizationID, p.Recipient.CampaignID, p.Recipient.RecipientID); err != nil {
			return p, err
		}
	}
	return p, nil
}

// ClaimForm returns the claim page pageID names, with the gifts in stock
// to choose from (campaign.RecipientPage.InStock).
//
// Errors: NOT_FOUND, GONE (the campaign is over; the recipient expired,
// with the page), CONFLICT (already claimed; the page is returned too, so
// the answer can lead to the landing page).
func (s *RecipientPages) ClaimForm(ctx context.Context, pageID string) (campaign.RecipientPage, error) {
	p, err := s.page(ctx, pageID, gifting.ClaimPage)
	if err != nil {
		return p, err
	}
	if p.Recipient.Status == gifting.RecipientExpired {
		return p, gifting.ErrGiftExpired
	}
	if p.Recipient.Claimed() || p.Recipient.Status.Rank() >= gifting.RecipientAddressConfirmed.Rank() {
		return p, alreadyClaimed
	}
	return p, nil
}

// alreadyClaimed is the CONFLICT of a second claim.
var alreadyClaimed = gifting.Errorf(gifting.CodeConflict, "this gift has already been claimed: the address was confirmed")

// Claim claims the gift of the claim page pageID names with in: the chosen
// gift (one of the gifts in stock; none needed when there is one) and the
// shipping address. The returned page is the one before the claim; its
// recipient's LandingPageID is where the recipient goes next.
//
// Errors: NOT_FOUND, GONE, VALIDATION_FAILED (per form field; nothing
// written), CONFLICT (already claimed; the chosen gift out of stock, with
// details giftId; nothing written).
func (s *RecipientPages) Claim(ctx context.Context, pageID string, in gifting.ClaimInput) (campaign.RecipientPage, error) {
	p, err := s.ClaimForm(ctx, pageID)
	if err != nil {
		return p, err
	}
	in.Normalize()
	for _, g := range p.Gifts {
		if g.GiftID == in.GiftID && !g.InStock() {
			return p, &gifting.Error{Code: gifting.CodeConflict, Message: "the gift you chose is out of stock; choose another",
				Details: map[string]string{"giftId": "is out of stock"}}
		}
	}
	if err := in.Validate(p.InStock()); err != nil {
		return p, err
	}
	r := p.Recipient
	_, err = s.store.ClaimGift(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, in)
	if errors.Is(err, gifting.ErrGiftExpired) {
		p.Recipient.Status = gifting.RecipientExpired // expired since the read
	}
	return p, err
}

// Acknowledge records that the gift of the landing page pageID names
// arrived: a delivered recipient moves to acknowledged.
//
// Saying it again (a double click, a reload) changes nothing and is no
// error.
//
// Errors: NOT_FOUND, GONE, CONFLICT (not delivered yet).
func (s *RecipientPages) Acknowledge(ctx context.Context, pageID string) error {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return err
	}
	r := p.Recipient
	switch r.Status {
	case gifting.RecipientAcknowledged:
		return nil
	case gifting.RecipientDelivered:
	default:
		return notDelivered
	}
	_, err = s.store.MoveRecipient(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, gifting.RecipientAcknowledged)
	if gifting.ErrorCode(err) != gifting.CodeConflict {
		return err
	}
	// Moved since the read: by the same post sent twice at once, or not.
	if q, qerr := s.page(ctx, pageID, gifting.LandingPage); qerr == nil && q.Recipient.Status == gifting.RecipientAcknowledged {
		return nil
	}
	return notDelivered
}

// notDelivered is the CONFLICT of an "It arrived" before the delivery.
var notDelivered = gifting.Errorf(gifting.CodeConflict, "only a delivered gift can be marked as arrived")

// Feedback records the recipient's rating (like or dislike, may be empty)
// and message (may be empty, not both) on the landing page pageID names,
// as the sender-side feedback endpoint stores it (a message of type text).
// Feedback is taken once the gift is delivered. A message that repeats the
// last one (the same form posted twice) is not added again.
//
// Errors: NOT_FOUND, GONE, VALIDATION_FAILED (rating, message.text),
// CONFLICT (not delivered yet; too many messages).
func (s *RecipientPages) Feedback(ctx context.Context, pageID, rating, text string) error {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return err
	}
	var msg *gifting.FeedbackMessage
	if text != "" {
		msg = &gifting.FeedbackMessage{Type: "text", Text: text}
	}
	if err := gifting.ValidateFeedback(rating, msg); err != nil {
		return err
	}
	r := p.Recipient
	if r.Status.Rank() < gifting.RecipientDelivered.Rank() {
		return gifting.Errorf(gifting.CodeConflict, "feedback opens once the gift is delivered")
	}
	fb := r.Feedback
	if n := len(fb.Message); msg != nil && n > 0 && fb.Message[n-1].Type == msg.Type && fb.Message[n-1].Text == msg.Text {
		msg = nil // the same post again (a double click, a reload): kept once
	}
	if msg == nil && (rating == "" || fb.Rating != nil && fb.Rating.Value == rating) {
		return nil
	}
	if msg != nil && len(fb.Message) >= gifting.MaxFeedbackMessages {
		return feedbackFull
	}
	_, err = s.store.AddRecipientFeedback(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, rating, msg)
	if gifting.ErrorCode(err) == gifting.CodeConflict {
		return feedbackFull // the store's message names the recipient's id
	}
	return err
}

// feedbackFull is the CONFLICT of a message beyond the most a recipient's
// feedback keeps, in words for the recipient.
var feedbackFull = gifting.Errorf(gifting.CodeConflict,
	"thank you: your messages have reached the most we keep about this gift, so this one was not added")

// UnsubscribeForm returns the landing page the unsubscribe token (the
// recipient's landing page id, as every email's unsubscribe link carries
// it) names, to ask whether to unsubscribe. It works after the campaign
// ended too.
//
// Errors: NOT_FOUND (malformed or unknown token, or a claim page id).
func (s *RecipientPages) UnsubscribeForm(ctx context.Context, token string) (campaign.RecipientPage, error) {
	if !gifting.ValidPageID(token) {
		return campaign.RecipientPage{}, gifting.NotFound("page", token)
	}
	p, err := s.store.RecipientPage(ctx, token)
	if err != nil {
		return campaign.RecipientPage{}, err
	}
	if p.Kind != gifting.LandingPage {
		return campaign.RecipientPage{}, gifting.NotFound("page", token)
	}
	return p, nil
}

// Unsubscribe unsubscribes the recipient the token names: its emails still
// to be sent stop (failure unsubscribed) and its address joins the
// organization's suppression list, as a bounce or a complaint does.
// Unsubscribing again changes nothing more.
//
// Errors: NOT_FOUND (as UnsubscribeForm).
func (s *RecipientPages) Unsubscribe(ctx context.Context, token string) (campaign.RecipientPage, error) {
	p, err := s.UnsubscribeForm(ctx, token)
	if err != nil {
		return p, err
	}
	r := p.Recipient
	return p, stopMail(ctx, s.store, r.OrganizationID, r.CampaignID, r.RecipientID, "", gifting.EmailUnsubscribed, "")
}

// page resolves a page id of the given kind: NOT_FOUND for a malformed or
// unknown id or one of the other kind, GONE when the campaign is over.
func (s *RecipientPages) page(ctx context.Context, pageID string, kind gifting.PageKind) (campaign.RecipientPage, error) {
	if !gifting.ValidPageID(pageID) {
		return campaign.RecipientPage{}, gifting.NotFound("page", pageID)
	}
	p, err := s.store.RecipientPage(ctx, pageID)
	if err != nil {
		return campaign.RecipientPage{}, err
	}
	if p.Kind != kind {
		return campaign.RecipientPage{}, gifting.NotFound("page", pageID)
	}
	if p.Gone() {
		return p, gifting.Errorf(gifting.CodeGone, "this campaign has ended")
	}
	return p, nil
}
