package recipient

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// Pages are the use cases of a recipient's own pages, where the page id is
// the only credential: view the gift, claim it with an address, say it
// arrived, leave feedback, unsubscribe.
type Pages struct {
	app *App
}

// NewPages returns the recipient page use cases of app.
func NewPages(app *App) *Pages { return &Pages{app: app} }

// Landing returns the landing page pageID names and records its first
// view. After the claim of a digital gift it holds the code
// (RevealCode).
//
// Errors: NOT_FOUND (malformed or unknown id, or a claim page id), GONE
// (Page.Gone; the recipient expired, with the page).
func (s *Pages) Landing(ctx context.Context, pageID string) (Page, error) {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return p, err
	}
	if p.Recipient.Status == gifting.RecipientExpired {
		return p, ErrGiftExpired
	}
	if err := s.mark(ctx, &p, MarkViewed); err != nil {
		return p, err
	}
	p.Code, err = s.RevealCode(ctx, p)
	return p, err
}

// ClaimForm returns the claim page pageID names, with the gifts in stock
// to choose from (Page.InStock).
//
// Errors: NOT_FOUND, GONE (the campaign is over; the recipient expired,
// with the page), CONFLICT (already claimed; the page is returned too, so
// the answer can lead to the landing page; ErrMeetingFirst, a required
// meeting link not followed yet).
func (s *Pages) ClaimForm(ctx context.Context, pageID string) (Page, error) {
	p, err := s.page(ctx, pageID, gifting.ClaimPage)
	if err != nil {
		return p, err
	}
	if p.Recipient.Status == gifting.RecipientExpired {
		return p, ErrGiftExpired
	}
	if p.Recipient.Status == gifting.RecipientDeclined {
		return p, ErrDeclined
	}
	if p.Recipient.Claimed() || p.Recipient.Status.Rank() >= gifting.RecipientAddressConfirmed.Rank() {
		return p, ErrAlreadyClaimed
	}
	if p.MeetingDue() {
		return p, ErrMeetingFirst
	}
	return p, nil
}

// Claim claims the gift of the claim page pageID names with in: the chosen
// gift (one of the gifts in stock; none needed when there is one), its
// variant when it has variants, and the shipping address. The returned page is the one before the claim; its
// recipient's LandingPageID is where the recipient goes next.
//
// A digital gift's claim sent again (its answer lost) is no error: its
// recipient holds the code the first one took.
//
// Errors: NOT_FOUND, GONE, VALIDATION_FAILED (per form field; nothing
// written), CONFLICT (already claimed; the chosen gift or variant out of
// stock, with details giftId or variantId; nothing written).
func (s *Pages) Claim(ctx context.Context, pageID string, in ClaimInput) (Page, error) {
	p, err := s.ClaimForm(ctx, pageID)
	if errors.Is(err, ErrAlreadyClaimed) && p.Recipient.replays(in) {
		return p, nil // the same digital claim sent again: on to its code
	}
	if err != nil {
		return p, err
	}
	in.Normalize()
	for _, g := range p.Gifts {
		if g.GiftID == in.GiftID && !g.InStock() {
			return p, OutOfStock()
		}
	}
	if err := in.Validate(p.InStock()); err != nil {
		return p, err
	}
	for _, g := range p.Gifts {
		if _, inv, ok := g.Variant(in.VariantID); ok && g.GiftID == in.GiftID && inv.Available <= 0 {
			return p, fulfilment.OutOfStock(in.GiftID, in.VariantID)
		}
	}
	r := p.Recipient
	_, err = s.app.Claim(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, in)
	if errors.Is(err, ErrGiftExpired) {
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
func (s *Pages) Acknowledge(ctx context.Context, pageID string) error {
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
	_, err = s.app.Move(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, gifting.RecipientAcknowledged)
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
func (s *Pages) Feedback(ctx context.Context, pageID, rating, text string) error {
	p, err := s.page(ctx, pageID, gifting.LandingPage)
	if err != nil {
		return err
	}
	var msg *FeedbackMessage
	if text != "" {
		msg = &FeedbackMessage{Type: "text", Text: text}
	}
	if err := ValidateFeedback(rating, msg); err != nil {
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
	if msg != nil && len(fb.Message) >= MaxFeedbackMessages {
		return feedbackFull
	}
	_, err = s.app.Feedback(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, rating, msg)
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
func (s *Pages) UnsubscribeForm(ctx context.Context, token string) (Page, error) {
	if !gifting.ValidPageID(token) {
		return Page{}, gifting.NotFound("page", token)
	}
	p, err := s.read(ctx, token)
	if err != nil {
		return Page{}, err
	}
	if p.Kind != gifting.LandingPage {
		return Page{}, gifting.NotFound("page", token)
	}
	return p, nil
}

// Unsubscribe unsubscribes the recipient the token names: its emails still
// to be sent stop (failure unsubscribed) and its address joins the
// organization's suppression list, as a bounce or a complaint does.
// Unsubscribing again changes nothing more.
//
// Errors: NOT_FOUND (as UnsubscribeForm).
func (s *Pages) Unsubscribe(ctx context.Context, token string) (Page, error) {
	p, err := s.UnsubscribeForm(ctx, token)
	if err != nil {
		return p, err
	}
	r := p.Recipient
	return p, s.app.StopMail(ctx, r.OrganizationID, r.CampaignID, r.RecipientID, "", EmailUnsubscribed, "")
}

// page resolves a page id of the given kind: NOT_FOUND for a malformed or
// unknown id or one of the other kind, GONE when the campaign is over.
func (s *Pages) page(ctx context.Context, pageID string, kind gifting.PageKind) (Page, error) {
	if !gifting.ValidPageID(pageID) {
		return Page{}, gifting.NotFound("page", pageID)
	}
	p, err := s.read(ctx, pageID)
	if err != nil {
		return Page{}, err
	}
	if p.Kind != kind {
		return Page{}, gifting.NotFound("page", pageID)
	}
	if p.Erased {
		return p, gifting.Errorf(gifting.CodeGone, "this page is no longer available")
	}
	if p.Gone() {
		return p, gifting.Errorf(gifting.CodeGone, "this campaign has ended")
	}
	return p, nil
}

// read reads the page pageID names. Errors: NOT_FOUND.
func (s *Pages) read(ctx context.Context, pageID string) (Page, error) {
	p, err := s.app.store.RecipientPage(ctx, pageID)
	if errors.Is(err, ErrNoPage) {
		return Page{}, gifting.NotFound("page", pageID)
	}
	if err != nil || p.Campaign.ChoiceCollectionID == "" || p.Gone() || p.Recipient.Claimed() {
		return p, err
	}
	// A swap: the gifts of the collection the credits held cover.
	collection, err := s.app.store.CollectionGifts(ctx, p.Recipient.OrganizationID, p.Campaign.ChoiceCollectionID)
	p.Gifts = p.Campaign.WithSwaps(p.Gifts, collection, p.Recipient.CreditsCharged)
	return p, err
}
