package webhook

import (
	"context"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Message is one message of the change feed and of the deliveries:
// written in the same transaction as the change it describes, so a change
// that did not commit has none and one that did always has its own.
type Message struct {
	// ID is the record's id and the message's index in it (MessageID).
	ID        string
	Type      string
	CreatedAt time.Time
	OrgID     string
	// Data is what the message carries, rendered by shared/wire: the
	// resource as the change left it (a campaign.Campaign, an
	// audience.Audience, a recipient.Recipient, or a wallet.Entry for the
	// wallet.* messages); for a message that names its recipient
	// (recipient.created, recipient.status_changed, recipient.viewed,
	// recipient.meeting_link_clicked), a RecipientRef until
	// Hydrate puts the recipient as it is now in its place; a Test for
	// the test message; a Snapshot for data of a type this code does not
	// know.
	Data any
}

// RecipientRef names the recipient of a recipient.created or
// recipient.status_changed message, which records hold in place of the
// recipient (a launch's record names hundreds of them), with the status a
// status change left.
type RecipientRef struct {
	CampaignID     string
	RecipientID    string
	PreviousStatus gifting.RecipientStatus
}

// Key is the recipient r names.
func (r RecipientRef) Key() RecipientKey {
	return RecipientKey{CampaignID: r.CampaignID, RecipientID: r.RecipientID}
}

// RecipientKey identifies a recipient of an organization.
type RecipientKey struct{ CampaignID, RecipientID string }

// Test is the data of the test message: the endpoint it was sent to.
type Test struct{ WebhookID string }

// Snapshot is data as a record holds it (JSON) when storage does not know
// its shape: sent as it is.
type Snapshot []byte

// Record is one committed change record: the messages of one transaction,
// in order.
type Record struct {
	// ID is the record's id (a ULID from its writer's clock), which its
	// messages' ids start with.
	ID       string
	OrgID    string
	Messages []Message
}

// RecordHandler receives committed change records, as the table's stream
// gives them: App.Deliver. An error makes the reader give the record
// again.
type RecordHandler func(ctx context.Context, r Record) error

// MessageID is the id of message i of record id: the record's id and the
// index, at least two digits (a record holds up to 500 messages; the feed
// compares the index as a number).
func MessageID(recordID string, i int) string { return fmt.Sprintf("%s.%02d", recordID, i) }

// Refs are the recipients msgs name, each once (BatchGetItem refuses a key
// given twice, and a launch's record may name a recipient created, then
// moved).
func Refs(msgs []Message) []RecipientKey {
	var out []RecipientKey
	seen := map[RecipientKey]bool{}
	for _, m := range msgs {
		if ref, ok := m.Data.(RecipientRef); ok && !seen[ref.Key()] {
			seen[ref.Key()] = true
			out = append(out, ref.Key())
		}
	}
	return out
}

// Hydrate returns msgs with each recipient a message names replaced by the
// recipient as it is now (found; with the status it left for a status
// change). A recipient that no longer exists (its campaign was deleted)
// leaves its reference as the data.
func Hydrate(msgs []Message, found map[RecipientKey]recipient.Recipient) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if ref, ok := m.Data.(RecipientRef); ok {
			if r, ok := found[ref.Key()]; ok {
				m.Data = r
				if ref.PreviousStatus != "" {
					m.Data = recipient.StatusChange{Recipient: r, PreviousStatus: ref.PreviousStatus}
				}
			}
		}
		out[i] = m
	}
	return out
}
