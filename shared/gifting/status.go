package gifting

// CampaignStatus is the state of a campaign (SPEC.md, States).
type CampaignStatus string

// Campaign states.
const (
	CampaignDraft      CampaignStatus = "draft"
	CampaignInProgress CampaignStatus = "in_progress"
	CampaignPreparing  CampaignStatus = "preparing"
	CampaignLive       CampaignStatus = "live"
	CampaignCompleted  CampaignStatus = "completed"
)

// CampaignStatuses lists every campaign state, in SPEC.md order.
var CampaignStatuses = []CampaignStatus{CampaignDraft, CampaignInProgress, CampaignPreparing, CampaignLive, CampaignCompleted}

// RecipientStatus is the state of a recipient (SPEC.md, States).
type RecipientStatus string

// Recipient states, in the order a recipient moves through them. Pending is
// the state of a recipient whose invitation has not gone out yet.
const (
	RecipientPending          RecipientStatus = "pending"
	RecipientInviteSent       RecipientStatus = "invite_sent"
	RecipientAddressConfirmed RecipientStatus = "address_confirmed"
	RecipientProcessing       RecipientStatus = "processing"
	RecipientShipped          RecipientStatus = "shipped"
	RecipientInTransit        RecipientStatus = "in_transit"
	RecipientDelivered        RecipientStatus = "delivered"
	RecipientAcknowledged     RecipientStatus = "acknowledged"
)

// RecipientStatuses lists every recipient state, pending first.
var RecipientStatuses = []RecipientStatus{
	RecipientPending, RecipientInviteSent, RecipientAddressConfirmed, RecipientProcessing,
	RecipientShipped, RecipientInTransit, RecipientDelivered, RecipientAcknowledged,
}

// RecipientFilterStatuses are the status values SPEC.md allows as filters
// (every state but pending).
var RecipientFilterStatuses = RecipientStatuses[1:]
