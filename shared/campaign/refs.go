package campaign

import (
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// What campaigns refer to (templates, gifts, contact lists): the rules of
// deleting those are refcheck's.

// RefersTo reports whether c refers to ref.
func (c Campaign) RefersTo(ref gifting.Ref) bool {
	d := c.CampaignData
	switch ref.Kind {
	case gifting.RefTemplate:
		return d.EmailTemplateID == ref.ID
	case gifting.RefGift:
		return slices.Contains(d.GiftIDs, ref.ID)
	case gifting.RefContactList:
		return slices.Contains(d.ContactListIDs, ref.ID)
	}
	return false
}

// Referrer is c as a delete of what it refers to checks it (refcheck).
func (c Campaign) Referrer() refcheck.Referrer {
	return refcheck.Referrer{CampaignID: c.CampaignID, Name: c.Name, Status: string(c.Status),
		Draft: c.Status == Draft, Deleted: c.IsDeleted, Seen: c.UpdatedAt}
}
