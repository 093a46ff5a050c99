package campaign

import (
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// ForRecipients is c as the recipient slice needs it (recipient.Campaign):
// this slice's answers to the questions the recipient's rules ask, and its
// price rules.
func (c Campaign) ForRecipients() recipient.Campaign {
	c.Normalize()
	var sending []string
	for _, kind := range gifting.EmailKinds {
		if c.Sends(kind) {
			sending = append(sending, kind)
		}
	}
	return recipient.Campaign{
		CampaignID: c.CampaignID, Name: c.Name, Description: c.Description, Status: string(c.Status),
		Deleted: c.IsDeleted, Completed: c.Status == Completed, Accepts: c.AcceptsRecipients(), SendsEmails: c.SendsEmails(),
		Sending: sending, Price: c.CampaignData.CreditsPerRecipient, TemplateID: c.CampaignData.EmailTemplateID,
		GiftIDs: c.CampaignData.GiftIDs, ClaimExpiryDays: c.ClaimExpiry(), Pricing: c,
		ChoiceCollectionID: c.CampaignData.ChoiceCollectionID, Message: c.CampaignData.Message,
		Meeting: gifting.EffectiveMeeting(c.CampaignData.Meeting, c.CampaignData.TemplateMeeting),
		Look:    c.CampaignData.TemplateLook,
	}
}
