package campaign

import (
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
)

// The rules of deleting what campaigns refer to (templates, gifts, contact
// lists): the areas that own those resources decide their deletes with
// them.

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

// MaxDraftChecks bounds the draft campaigns a delete checks in its
// transaction: DynamoDB's limit is 100 items, with the delete itself and a
// tombstone.
const MaxDraftChecks = 90

// CheckUnreferenced decides whether what ref names may be deleted, given
// refs, the organization's campaigns (deleted ones too) that refer to it.
// A campaign past draft refers to it for good (a sent campaign's
// recipients still see its template and gifts, a launch in progress reads
// its lists): CONFLICT naming the first. Otherwise it returns the live
// drafts, whose delete must check they are still the drafts read; a draft
// may lose the reference, and its launch then fails with a CONFLICT naming
// what is missing.
func CheckUnreferenced(ref gifting.Ref, refs []Campaign) ([]Campaign, error) {
	var drafts []Campaign
	for _, c := range refs {
		if c.Status != Draft {
			return nil, gifting.Errorf(gifting.CodeConflict, "%s %q is used by campaign %q (%s, %s); it cannot be deleted",
				ref.Kind, ref.ID, c.CampaignID, c.Name, c.Status)
		}
		if !c.IsDeleted {
			drafts = append(drafts, c)
		}
	}
	return drafts, nil
}

// CheckDraftChecks refuses a delete of ref whose transaction would check
// more than MaxDraftChecks drafts (CONFLICT: the caller takes ref out of
// some of them first).
func CheckDraftChecks(ref gifting.Ref, drafts []Campaign) error {
	if len(drafts) > MaxDraftChecks {
		return gifting.Errorf(gifting.CodeConflict, "%d draft campaigns refer to %s %q; remove it from some of them first (at most %d)",
			len(drafts), ref.Kind, ref.ID, MaxDraftChecks)
	}
	return nil
}

// DraftChangedWhileDeleting is the CONFLICT of a delete of ref whose
// transaction found a referring draft campaign (campaignID, named name)
// changed since it was read.
func DraftChangedWhileDeleting(ref gifting.Ref, campaignID, name string) error {
	return gifting.Errorf(gifting.CodeConflict, "campaign %q (%s) changed while %s %q was being deleted; try again", campaignID, name, ref.Kind, ref.ID)
}
