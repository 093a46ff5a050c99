package gifting

import (
	"maps"
	"time"
)

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
	ChangeWalletDebited     = "wallet.debited"
	ChangeWalletRefunded    = "wallet.refunded"
	ChangeWalletToppedUp    = "wallet.topped_up"
	ChangeAudienceReady     = "audience.ready"
	ChangeAudienceFailed    = "audience.failed"
	// ChangeWebhookTest is sent by POST …/webhooks/{id}/test only; it is
	// never in the change feed.
	ChangeWebhookTest = "webhook.test"
	// ChangeAll subscribes an endpoint to every type.
	ChangeAll = "*"
)

// ChangeTypes are the types an endpoint can subscribe to, besides "*".
var ChangeTypes = []string{
	ChangeCampaignLaunched, ChangeCampaignLive, ChangeCampaignPaused, ChangeCampaignResumed, ChangeCampaignCompleted,
	ChangeRecipientCreated, ChangeRecipientStatus, ChangeRecipientFeedback,
	ChangeWalletDebited, ChangeWalletRefunded, ChangeWalletToppedUp,
	ChangeAudienceReady, ChangeAudienceFailed,
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

// RecipientStatusChange is the data of recipient.status_changed: the
// recipient as moved, and the status it left.
type RecipientStatusChange struct {
	Recipient
	PreviousStatus RecipientStatus `json:"previousStatus"`
}

// Launched is c as its accepted launch leaves it: preparing, launched at
// now by userID, with contacts paid for.
func (c Campaign) Launched(now time.Time, userID string, contacts int64) Campaign {
	c.Status, c.UpdatedAt, c.LastUpdatedBy = CampaignPreparing, now, userID
	c.LiveData.LaunchedAt = &now
	c.LaunchProgress = &LaunchProgress{Contacts: contacts, LastProgressAt: now}
	return c
}

// Live is c as the end of its launch leaves it: live since now, refund
// credits given back.
func (c Campaign) Live(now time.Time, refund int64) Campaign {
	c.Status, c.UpdatedAt = CampaignLive, now
	c.LiveData.LiveAt = &now
	if c.LaunchProgress != nil {
		p := *c.LaunchProgress
		p.FinishedAt, p.LastProgressAt, p.Refunded = &now, now, &refund
		c.LaunchProgress = &p
	}
	return c
}

// Moved is c as the user's action act leaves it at now: in act's state,
// updated by userID, with reason (why it is in that state; "" for none).
// Completing it also fills completionData: who, when, and the campaign's
// counters at that moment.
func (c Campaign) Moved(act CampaignAction, now time.Time, userID, reason string) Campaign {
	c.Status, c.UpdatedAt, c.LastUpdatedBy, c.Reason = act.To, now, userID, reason
	if act.To == CampaignCompleted {
		total, spent, feedback := c.TotalRecipients, c.LiveData.CreditsSpent, c.LiveData.FeedbackCount
		c.CompletionData = CompletionData{
			CompletedAt: &now, CompletedBy: userID, TotalRecipients: &total,
			StatusCounts: maps.Clone(c.LiveData.StatusCounts), CreditsSpent: &spent, FeedbackCount: &feedback,
		}
	}
	return c
}
