package gifting

import (
	"errors"
	"sort"
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

// BulkResult reports a bulk add item by item, with totals per status.
type BulkResult struct {
	Items     []BulkItem `json:"results"`
	Created   int        `json:"created"`
	Merged    int        `json:"merged"`
	Added     int        `json:"added"`
	Unchanged int        `json:"unchanged"`
	Failed    int        `json:"failed"`
}

// Add records one item's outcome.
func (r *BulkResult) Add(it BulkItem) {
	r.Items = append(r.Items, it)
	switch it.Status {
	case BulkCreated:
		r.Created++
	case BulkMerged:
		r.Merged++
	case BulkAdded:
		r.Added++
	case BulkUnchanged:
		r.Unchanged++
	default:
		r.Failed++
	}
}

// BulkItem is what happened to one item of a bulk add: created, merged
// (into the contact with the same email), added (an existing contact joined
// the list), unchanged (it was already in the list) or failed (with the
// reason, and for invalid input the problem with each field).
type BulkItem struct {
	Index     int               `json:"index"`
	Status    string            `json:"status"`
	ContactID string            `json:"contactId,omitempty"`
	MailID    string            `json:"mailId,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Details   map[string]string `json:"details,omitempty"`
}

// Fail marks the item failed because of err. Internal errors are reported
// without their text, which may hold details that must not leak.
func (it *BulkItem) Fail(err error) {
	it.Status, it.Reason = BulkFailed, ErrorMessage(err)
	if ErrorCode(err) == CodeInternal {
		it.Reason = "the contact could not be saved; retry this item"
	}
	var e *Error
	if errors.As(err, &e) && e.Details != nil {
		it.Details = e.Details
		keys := make([]string, 0, len(e.Details))
		for k := range e.Details {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " " + e.Details[k]
		}
		it.Reason = strings.Join(parts, "; ")
	}
}

// Statuses of one item of a bulk add.
const (
	BulkCreated   = "created"
	BulkMerged    = "merged"
	BulkAdded     = "added"
	BulkUnchanged = "unchanged"
	BulkFailed    = "failed"
)
