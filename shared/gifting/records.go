package gifting

import (
	"strings"
	"time"
)

// JobLaunch is the job kind of a launch: the job that writes a launched
// campaign's recipients in slices (campaign.App.LaunchSlice) and takes it
// live. The launch record is due under it, so the scheduler tick
// continues it.
const JobLaunch = "campaign.launch"

// JobScheduledLaunch is the job kind of a draft's scheduled launch: a
// draft campaign with scheduledAt is due under it at that time, with its
// id as the reference, until it launches or the schedule is cleared.
const JobScheduledLaunch = "campaign.scheduledLaunch"

// JobRecipientEmails is the job kind of a recipient's scheduled emails: a
// recipient with an email still to send is due under it at that email's
// time, with the reference RecipientRef.
const JobRecipientEmails = "recipient.emails"

// RecipientRef is the reference of a recipient in a job: campaign and
// recipient ids; SplitRecipientRef reads it back.
func RecipientRef(campaignID, recipientID string) string { return campaignID + "/" + recipientID }

// SplitRecipientRef returns the campaign and recipient ids of ref.
func SplitRecipientRef(ref string) (campaignID, recipientID string, ok bool) {
	return strings.Cut(ref, "/")
}

// RequestCount is an organization's use of one class's budget in the
// current window, this request included.
type RequestCount struct {
	Count int64
	// Reset is when the window ends and the budget starts again.
	Reset time.Time
}
