package service

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
)

// CampaignStore is the storage of campaigns and of what they refer to.
type CampaignStore interface {
	Campaign(ctx context.Context, orgID, campaignID string) (gifting.Campaign, error)
	ContactList(ctx context.Context, orgID, listID string) (gifting.ContactList, error)
	Template(ctx context.Context, orgID, templateID string) (gifting.Template, error)
	Gifts(ctx context.Context, orgID string, ids []string) ([]gifting.Gift, error)
	CreateCampaignIdempotent(ctx context.Context, orgID string, c gifting.Campaign, idem *gifting.Idempotent[gifting.Campaign]) (gifting.Campaign, *gifting.StoredResponse, error)
	// UpdateCampaign with repriced (gifts or price changed) fails with
	// gifting.ErrCampaignHasRecipients when the draft has recipients.
	UpdateCampaign(ctx context.Context, orgID string, c gifting.Campaign, userID string, rescheduled, repriced bool) (gifting.Campaign, error)
}

// CreateCampaign checks the references of c (a validated draft) and prices
// it, then stores it. A non-nil stored response is the first response to
// idem's key: nothing was done.
//
// Errors: VALIDATION_FAILED (a contact list, template or gift that does not
// exist; a price below the catalog's), IDEMPOTENCY_KEY_REUSED.
func (s *Service) CreateCampaign(ctx context.Context, orgID string, c gifting.Campaign, idem *gifting.Idempotent[gifting.Campaign]) (gifting.Campaign, *gifting.StoredResponse, error) {
	if err := s.checkReferences(ctx, orgID, &c); err != nil {
		return c, nil, err
	}
	return s.store.CreateCampaignIdempotent(ctx, orgID, c, idem)
}

// UpdateCampaign edits a draft campaign: edit applies the request's changes
// to the campaign as stored, whose references are then checked and whose
// price is fixed again.
//
// Errors: NOT_FOUND (campaign), CONFLICT (not a draft), VALIDATION_FAILED
// (edit's own, or as CreateCampaign).
func (s *Service) UpdateCampaign(ctx context.Context, orgID, campaignID, userID string, edit func(*gifting.Campaign) error) (gifting.Campaign, error) {
	c, err := s.store.Campaign(ctx, orgID, campaignID)
	if err != nil {
		return c, err
	}
	if c.Status != gifting.CampaignDraft {
		return c, c.NotDraft("edited")
	}
	before := c.CampaignData.ScheduledAt
	gifts, price := slices.Clone(c.CampaignData.GiftIDs), c.CampaignData.CreditsPerRecipient
	if err := edit(&c); err != nil {
		return c, err
	}
	if err := s.checkReferences(ctx, orgID, &c); err != nil {
		return c, err
	}
	// The credits held for each recipient are the price when it was added,
	// its budget for the gifts then offered: with recipients, a new gift or
	// price would let them choose a gift they did not pay for (the service
	// pays a catalog gift's difference). The store conditions the write on
	// there still being none.
	repriced := !slices.Equal(gifts, c.CampaignData.GiftIDs) || price != c.CampaignData.CreditsPerRecipient
	if repriced && c.TotalRecipients > 0 {
		return c, recipientsFixPrice(c)
	}
	// Only a changed scheduledAt (re)schedules the launch: an edit of
	// anything else does not retry one the scheduler refused.
	after := c.CampaignData.ScheduledAt
	rescheduled := (before == nil) != (after == nil) || (before != nil && !before.Equal(*after))
	updated, err := s.store.UpdateCampaign(ctx, orgID, c, userID, rescheduled, repriced)
	if errors.Is(err, gifting.ErrCampaignHasRecipients) {
		return c, recipientsFixPrice(c)
	}
	return updated, err
}

// recipientsFixPrice is the CONFLICT of an edit of the gifts or price of a
// draft that has recipients.
func recipientsFixPrice(c gifting.Campaign) error {
	return gifting.Errorf(gifting.CodeConflict,
		"campaign %q has recipients, who were charged its price when they were added: its gifts and price can no longer change; create another campaign for other gifts", c.CampaignID)
}

// checkReferences makes sure the contact lists, template and gifts c names
// exist for org (the template and gifts may be the service catalog's), and
// prices c from its gifts unless it sets its own price. Missing references
// are a VALIDATION_FAILED naming each one; so is a price of its own below
// the catalog price of its catalog gifts (gifting.CatalogFloor).
func (s *Service) checkReferences(ctx context.Context, orgID string, c *gifting.Campaign) error {
	var p gifting.Problems
	for _, id := range c.CampaignData.ContactListIDs {
		if _, err := s.store.ContactList(ctx, orgID, id); err != nil {
			if gifting.ErrorCode(err) != gifting.CodeNotFound {
				return err
			}
			p.Add("contactListIds", fmt.Sprintf("contact list %q was not found", id))
		}
	}
	if id := c.CampaignData.EmailTemplateID; id != "" {
		if _, err := s.store.Template(ctx, orgID, id); err != nil {
			if gifting.ErrorCode(err) != gifting.CodeNotFound {
				return err
			}
			p.Add("templateId", fmt.Sprintf("template %q was not found", id))
		}
	}
	var gifts []gifting.Gift
	if ids := c.CampaignData.GiftIDs; len(ids) > 0 {
		var err error
		gifts, err = s.store.Gifts(ctx, orgID, ids)
		switch {
		case gifting.ErrorCode(err) == gifting.CodeNotFound:
			p.Add("campaignData.giftIds", gifting.ErrorMessage(err))
		case err != nil:
			return err
		}
	}
	if err := p.Err(); err != nil {
		e := err.(*gifting.Error)
		e.Message = "The campaign refers to resources that do not exist; see details."
		return e
	}
	return priceCampaign(c, gifts)
}

// priceCampaign fixes c's price of a recipient from its gifts: the dearest
// gift in whole credits, unless c sets its own price, which may not be
// below the catalog price of its catalog gifts.
func priceCampaign(c *gifting.Campaign, gifts []gifting.Gift) error {
	const field = "campaignData.creditsPerRecipient"
	refuse := func(field, problem string) error {
		return &gifting.Error{Code: gifting.CodeValidation, Message: "The campaign's price is not valid; see details.",
			Details: map[string]string{field: problem}}
	}
	price, err := gifting.CreditsFor(gifts)
	if err != nil {
		// A gift stored before prices were bounded.
		return refuse("campaignData.giftIds", "a gift's price is out of range: "+gifting.ErrorMessage(err))
	}
	if !c.CampaignData.PriceSet {
		c.CampaignData.CreditsPerRecipient = price
		return nil
	}
	floor, err := gifting.CatalogFloor(gifts)
	if err != nil {
		return refuse("campaignData.giftIds", "a gift's price is out of range: "+gifting.ErrorMessage(err))
	}
	if c.CampaignData.CreditsPerRecipient < floor {
		return refuse(field, fmt.Sprintf("must be at least %d, the catalog price of the campaign's dearest service-catalog gift", floor))
	}
	return nil
}
