package campaign

import (
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// MovePlan is a user's move of a campaign, ready to commit: the campaign
// as the action leaves it (Moved), written on the condition that it is
// still as read (Seen), with the action's change message holding it. A
// campaign completed has the expiry of its unclaimed recipients made due
// in the same transaction.
type MovePlan struct {
	OrgID   string
	Moved   Campaign
	Seen    any
	Message gifting.Change
}

// DecideMove decides the user's action act on c (as read) by userID at
// now, with reason (why the campaign is in its new state; "" clears an
// earlier one): the campaign it leaves, or the CONFLICT naming its state
// when act does not apply to it. Completing also fills CompletionData with
// the campaign's counters as read, which the commit's condition keeps
// exact.
func DecideMove(r Read, orgID string, act Action, userID, reason string, now time.Time) (MovePlan, error) {
	if !act.Allows(r.Campaign.Status) {
		return MovePlan{}, act.Refused(r.Campaign.Status)
	}
	moved := r.Campaign.Moved(act, now, userID, reason)
	return MovePlan{OrgID: orgID, Moved: moved, Seen: r.Seen, Message: gifting.NewChange(act.Change, moved)}, nil
}

// KeptChanging is the CONFLICT of an action whose campaign changed between
// every read and its commit.
func KeptChanging(campaignID string, act Action) error {
	return gifting.Errorf(gifting.CodeConflict, "campaign %s kept changing while being %s; try again", campaignID, act.Done)
}

// DeletePlan is a campaign's soft delete, ready to commit: the campaign
// marked deleted (Deleted), archived out of the campaigns' range on the
// condition that it is still as read (Seen), the campaigns counter one
// less, and the expiry of its unclaimed recipients made due.
type DeletePlan struct {
	OrgID   string
	Deleted Campaign
	Seen    any
}

// DecideDelete decides the delete of c (as read) by userID at now: a
// CONFLICT while a launch is preparing it (the launch job writes to it).
// Its recipients stay stored; they can no longer claim.
func DecideDelete(r Read, orgID, userID string, now time.Time) (DeletePlan, error) {
	c := r.Campaign
	if c.Status == Preparing {
		return DeletePlan{}, gifting.Errorf(gifting.CodeConflict, "campaign is preparing; wait until its launch is done before deleting it")
	}
	c.IsDeleted, c.UpdatedAt, c.LastUpdatedBy = true, now, userID
	return DeletePlan{OrgID: orgID, Deleted: c, Seen: r.Seen}, nil
}
