package dynamo

import (
	"context"
	"errors"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// MailContext reads what a recipient's email of a campaign shows besides
// the recipient (recipient.EmailStore): the organization with its
// branding (alone when campaignID is ""), the campaign's default note and
// gifts, and its template's goal logo and colour: the campaign's copy of
// them (campaign.Data.TemplateLook), which its pages show too, or, for a
// campaign stored before it kept one, the template as read now. A
// template deleted since the campaign was made is left out (the
// organization's branding stands), as are gifts gone since.
func (s *Store) MailContext(ctx context.Context, orgID, campaignID string) (recipient.MailContext, error) {
	org, err := s.Org(ctx, orgID)
	if err != nil || campaignID == "" {
		return recipient.MailContext{Org: org}, err
	}
	c, err := s.LoadCampaign(ctx, orgID, campaignID)
	if errors.Is(err, campaign.ErrNotFound) {
		return recipient.MailContext{}, recipient.ErrNoCampaign
	}
	if err != nil {
		return recipient.MailContext{}, err
	}
	mc := recipient.MailContext{Org: org, CampaignName: c.Name, Message: c.CampaignData.Message}
	if l := c.CampaignData.TemplateLook; l != nil {
		mc.TemplateOrg, mc.Logo, mc.LogoColor = orgID, l.Logo, l.Color
	} else if id := c.CampaignData.EmailTemplateID; id != "" {
		t, err := s.Template(ctx, orgID, id)
		switch {
		case err == nil:
			mc.TemplateOrg, mc.Logo, mc.LogoColor = t.OrganizationID, t.TemplateData.Goal.Logo, t.TemplateData.Goal.LogoColor
		case gifting.ErrorCode(err) != gifting.CodeNotFound:
			return recipient.MailContext{}, err
		}
	}
	if mc.Gifts, err = s.campaignGifts(ctx, orgID, c.CampaignData.GiftIDs); err != nil {
		return recipient.MailContext{}, err
	}
	return mc, nil
}
