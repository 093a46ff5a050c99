package gifting

// Types of change messages: what the change feed holds and webhooks
// deliver. Each message's data is the resource as the change left it.
const (
	ChangeCampaignLaunched  = "campaign.launched"
	ChangeCampaignLive      = "campaign.live"
	ChangeCampaignPaused    = "campaign.paused"
	ChangeCampaignResumed   = "campaign.resumed"
	ChangeCampaignCompleted = "campaign.completed"
	ChangeRecipientCreated  = "recipient.created"
	ChangeRecipientStatus   = "recipient.status_changed"
	ChangeRecipientFeedback = "recipient.feedback"
	// ChangeRecipientDeclined carries the recipient that said "No thanks"
	// (beside its recipient.status_changed, for endpoints that only want
	// the declines).
	ChangeRecipientDeclined = "recipient.declined"
	ChangeWalletDebited     = "wallet.debited"
	ChangeWalletRefunded    = "wallet.refunded"
	ChangeWalletToppedUp    = "wallet.topped_up"
	ChangeAudienceReady     = "audience.ready"
	ChangeAudienceFailed    = "audience.failed"
	// The order.* messages carry the order as the change left it
	// (shared/fulfilment writes them); gift.low_stock the gift's counts.
	ChangeOrderCreated   = "order.created"
	ChangeOrderShipped   = "order.shipped"
	ChangeOrderInTransit = "order.in_transit"
	ChangeOrderDelivered = "order.delivered"
	ChangeOrderCancelled = "order.cancelled"
	ChangeOrderFailed    = "order.failed"
	ChangeGiftLowStock   = "gift.low_stock"
	// ChangeWebhookTest is sent by POST …/webhooks/{id}/test only; it is
	// never in the change feed.
	ChangeWebhookTest = "webhook.test"
	// ChangeAll subscribes an endpoint to every type.
	ChangeAll = "*"
)

// ChangeRecipientViewed and ChangeRecipientMeetingClicked are sent once
// each, carrying the recipient: on the first view of its landing page, and
// the first time it follows its campaign's meeting link (gifting.Meeting).
const (
	ChangeRecipientViewed         = "recipient.viewed"
	ChangeRecipientMeetingClicked = "recipient.meeting_link_clicked"
)

// ChangeTypes are the types an endpoint can subscribe to, besides "*".
var ChangeTypes = []string{
	ChangeCampaignLaunched, ChangeCampaignLive, ChangeCampaignPaused, ChangeCampaignResumed, ChangeCampaignCompleted,
	ChangeRecipientCreated, ChangeRecipientStatus, ChangeRecipientFeedback,
	ChangeWalletDebited, ChangeWalletRefunded, ChangeWalletToppedUp,
	ChangeAudienceReady, ChangeAudienceFailed,
	ChangeOrderCreated, ChangeOrderShipped, ChangeOrderInTransit, ChangeOrderDelivered, ChangeOrderCancelled, ChangeOrderFailed,
	ChangeGiftLowStock, ChangeRecipientDeclined,
	ChangeRecipientViewed, ChangeRecipientMeetingClicked,
}

// Change is a change message a transaction writes: its type and its data,
// the resource as the change left it. Storage writes it into the
// transaction's change record, in the same transaction as the change, with
// its id, time and organization, so a change that did not commit has no
// message and one that did always has its own; the webhook slice
// (shared/webhook) delivers and lists them.
type Change struct {
	Type string
	Data any
}

// NewChange is a message of type typ about data.
func NewChange(typ string, data any) Change { return Change{Type: typ, Data: data} }
