package dynamo

import (
	"encoding/json"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/webhook"
)

// messageItem is a message as its record holds it, one JSON string of the
// msgs list: whole, or, for a recipient.created, recipient.status_changed,
// recipient.viewed or recipient.meeting_link_clicked message, its recipient's reference (and the status it left) in place of
// its data (a launch's record names up to hundreds of recipients; their
// snapshots would make it 3 KB a recipient, written twice in its
// transaction). The data of the other messages is the resource as the
// change left it, in the shape storage keeps it: a wallet change as
// walletChangeItem, a campaign as campaignItem, an audience as
// audienceItem (without its build's bookkeeping), the resources of the
// areas that are not slices yet with their JSON names (those of their
// items).
type messageItem struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"`
	CreatedAt      time.Time `json:"createdAt"`
	OrganizationID string    `json:"organizationId"`
	Data           any       `json:"data"`
	Ref            *refItem  `json:"ref,omitempty"`
}

// storedMessage is a messageItem as read, its data left undecoded.
type storedMessage struct {
	ID             string          `json:"id"`
	Type           string          `json:"type"`
	CreatedAt      time.Time       `json:"createdAt"`
	OrganizationID string          `json:"organizationId"`
	Data           json.RawMessage `json:"data"`
	Ref            *refItem        `json:"ref,omitempty"`
}

// refItem names the recipient of a message held by reference.
type refItem struct {
	CampaignID     string                  `json:"campaignId"`
	RecipientID    string                  `json:"recipientId"`
	PreviousStatus gifting.RecipientStatus `json:"previousStatus,omitempty"`
}

// walletChangeItem is the data of a wallet.* message: the balance after
// the change and the ledger entry that records it.
type walletChangeItem struct {
	Balance int64      `json:"balance"`
	Entry   ledgerItem `json:"entry"`
}

// lowStockItem is the data of a gift.low_stock message.
type lowStockItem struct {
	GiftID    string `json:"giftId"`
	VariantID string `json:"variantId,omitempty"`
	Available int    `json:"available"`
	Threshold int    `json:"threshold"`
}

// messageTimeLayout is how a message item holds its timestamps: RFC 3339
// in UTC to the millisecond, as the records have held them since the feed
// sends them so (code of either version reads and sends what the other
// wrote).
const messageTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// messageJSON encodes message items: encoding/json's rules, but for the
// timestamps' layout.
var messageJSON = jsonv2.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsonv2.WithMarshalers(jsonv2.MarshalFunc(func(t time.Time) ([]byte, error) {
		return []byte(`"` + t.UTC().Format(messageTimeLayout) + `"`), nil
	})),
)

func encodeMessage(m messageItem) ([]byte, error) { return jsonv2.Marshal(m, messageJSON) }

// messageItemOf is message m of a record, with its id, time and
// organization.
func messageItemOf(id string, at time.Time, orgID string, m gifting.Change) messageItem {
	it := messageItem{ID: id, Type: m.Type, CreatedAt: at, OrganizationID: orgID, Data: m.Data}
	switch d := m.Data.(type) {
	case recipient.Recipient:
		if m.Type == gifting.ChangeRecipientCreated || m.Type == gifting.ChangeRecipientViewed || m.Type == gifting.ChangeRecipientMeetingClicked {
			// By reference: a page mark's record stays one write unit,
			// its recipient read once when it is delivered.
			it.Data, it.Ref = nil, &refItem{CampaignID: d.CampaignID, RecipientID: d.RecipientID}
		} else {
			// A recipient.feedback or recipient.declined message: the
			// recipient in full, as its item's record names its fields.
			it.Data = recipientRecordOf(d)
		}
	case recipient.StatusChange:
		it.Data, it.Ref = nil, &refItem{CampaignID: d.CampaignID, RecipientID: d.RecipientID, PreviousStatus: d.PreviousStatus}
	case audience.Audience:
		// An audience.* message: the audience as its item holds it,
		// without its build's bookkeeping.
		it.Data = audienceItemOf(d)
	case wallet.Entry:
		// A wallet.* message (wallet.Plan.Message): the balance after
		// the change and its entry, in full.
		it.Data = walletChangeItem{Balance: d.BalanceAfter, Entry: ledgerItemOf(d)}
	case campaign.Campaign:
		// A campaign.* message: the campaign as its item holds it.
		it.Data = campaignItemOf(d)
	case fulfilment.Order:
		// An order.* message: the order as its item holds it.
		it.Data = orderItemOf(fulfilment.Stored{Order: d})
	case fulfilment.LowStock:
		it.Data = lowStockItem(d)
	}
	return it
}

// messageOf is message i of record recID, raw as the record holds it. A
// message whose data does not decode as its type's (none is written so)
// keeps that data as it is (webhook.Snapshot), and one that does not
// decode at all keeps its place with its whole JSON as the data.
func messageOf(recID string, i int, raw string) webhook.Message {
	var m storedMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return webhook.Message{ID: webhook.MessageID(recID, i), Data: webhook.Snapshot(raw)}
	}
	out := webhook.Message{ID: m.ID, Type: m.Type, CreatedAt: m.CreatedAt, OrgID: m.OrganizationID}
	if m.Ref != nil {
		out.Data = webhook.RecipientRef{CampaignID: m.Ref.CampaignID, RecipientID: m.Ref.RecipientID, PreviousStatus: m.Ref.PreviousStatus}
		return out
	}
	out.Data = dataOf(m.Type, m.Data)
	return out
}

// dataOf decodes the data of a message of type typ held whole.
func dataOf(typ string, raw json.RawMessage) any {
	decode := func(v any) error { return json.Unmarshal(raw, v) }
	switch typ {
	case gifting.ChangeCampaignLaunched, gifting.ChangeCampaignLive, gifting.ChangeCampaignPaused,
		gifting.ChangeCampaignResumed, gifting.ChangeCampaignCompleted:
		var c campaignItem
		if decode(&c) == nil {
			return c.campaign()
		}
	case gifting.ChangeAudienceReady, gifting.ChangeAudienceFailed:
		var a audienceItem
		if decode(&a) == nil {
			return a.audience()
		}
	case gifting.ChangeRecipientCreated, gifting.ChangeRecipientFeedback, gifting.ChangeRecipientDeclined:
		var r recipientRecord
		if decode(&r) == nil {
			return r.recipient()
		}
	case gifting.ChangeRecipientStatus:
		var r struct {
			recipientRecord
			PreviousStatus gifting.RecipientStatus `json:"previousStatus"`
		}
		if decode(&r) == nil {
			return recipient.StatusChange{Recipient: r.recipient(), PreviousStatus: r.PreviousStatus}
		}
	case gifting.ChangeOrderCreated, gifting.ChangeOrderShipped, gifting.ChangeOrderInTransit, gifting.ChangeOrderDelivered,
		gifting.ChangeOrderCancelled, gifting.ChangeOrderFailed:
		var o orderItem
		if decode(&o) == nil {
			return o.stored().Order
		}
	case gifting.ChangeGiftLowStock:
		var l lowStockItem
		if decode(&l) == nil {
			return fulfilment.LowStock(l)
		}
	case gifting.ChangeWalletDebited, gifting.ChangeWalletRefunded, gifting.ChangeWalletToppedUp:
		var w walletChangeItem
		if decode(&w) == nil {
			return w.Entry.entry()
		}
	}
	return webhook.Snapshot(raw)
}
