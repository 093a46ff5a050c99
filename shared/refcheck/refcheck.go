// Package refcheck holds the rules of deleting what campaigns refer to
// (templates, gifts, contact lists). The slices that own those resources
// (catalog, contact) decide their deletes with them; they see a referring
// campaign only as a Referrer, so they depend on these rules and not on
// the campaign slice (which depends on the recipient slice, which depends
// on the contact slice).
package refcheck

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Referrer is a campaign that refers to a resource, as a delete of the
// resource checks it (campaign.Campaign.Referrer).
type Referrer struct {
	CampaignID string
	Name       string
	// Status is the campaign's status; Draft says it is a draft.
	Status  string
	Draft   bool
	Deleted bool
	// Seen is the campaign's updatedAt as read: the delete's transaction
	// checks a draft is still the one read.
	Seen time.Time
}

// MaxDraftChecks bounds the draft campaigns a delete checks in its
// transaction: DynamoDB's limit is 100 items, with the delete itself and a
// tombstone.
const MaxDraftChecks = 90

// Unreferenced decides whether what ref names may be deleted, given refs,
// the organization's campaigns (deleted ones too) that refer to it. A
// campaign past draft refers to it for good (a sent campaign's recipients
// still see its template and gifts, a launch in progress reads its lists):
// CONFLICT naming the first. Otherwise it returns the live drafts, whose
// delete must check they are still the drafts read; a draft may lose the
// reference, and its launch then fails with a CONFLICT naming what is
// missing.
func Unreferenced(ref gifting.Ref, refs []Referrer) ([]Referrer, error) {
	var drafts []Referrer
	for _, c := range refs {
		if !c.Draft {
			return nil, gifting.Errorf(gifting.CodeConflict, "%s %q is used by campaign %q (%s, %s); it cannot be deleted",
				ref.Kind, ref.ID, c.CampaignID, c.Name, c.Status)
		}
		if !c.Deleted {
			drafts = append(drafts, c)
		}
	}
	return drafts, nil
}

// CheckDraftChecks refuses a delete of ref whose transaction would check
// more than MaxDraftChecks drafts (CONFLICT: the caller takes ref out of
// some of them first).
func CheckDraftChecks(ref gifting.Ref, drafts []Referrer) error {
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
