// Package campaign is the campaign slice: a gifting campaign from its
// draft through its launch (the credits of its lists' contacts taken, its
// recipients written slice by slice, the contacts paid for but not added
// given back) to its end, and the rules of creating, editing, pausing,
// resuming, completing and deleting it.
//
// It holds the slice's domain types (no JSON or attribute tags: the API's
// and the webhook messages' shape is shared/wire's Campaign, the stored
// items shared/dynamo's), its pure decisions (CheckLaunchable,
// DecideLaunch, DecideSlice, DecideCount, DecideFinish, DecideEdit,
// DecideMove, DecideDelete, the pricing: state in, a plan or the domain
// error out), the ports it needs (store.go) and its application layer
// (App: load → decide → commit, deciding again when a condition of the
// commit failed). Storage implements Store and imports this package for
// its types, plans and outcomes, never App (TestStorageDecidesNothing
// keeps it so).
package campaign

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// Status is the state of a campaign (docs/api.md, the original interface;
// docs/resources.md).
type Status string

// Campaign states.
const (
	Draft      Status = "draft"
	InProgress Status = "in_progress"
	Preparing  Status = "preparing"
	Live       Status = "live"
	Completed  Status = "completed"
)

// Statuses lists every campaign state, in the original interface's order
// (docs/api.md).
var Statuses = []Status{Draft, InProgress, Preparing, Live, Completed}

// Valid reports whether s is a known campaign state.
func (s Status) Valid() bool { return slices.Contains(Statuses, s) }

// Campaign is a gifting campaign.
//
// Besides the original interface's fields it carries counters, kept in the
// same transactions as the changes they count so metrics and recipient
// lists never read every recipient: TotalRecipients and, inside LiveData,
// StatusCounts, CreditsSpent and FeedbackCount.
type Campaign struct {
	CampaignID      string
	OrganizationID  string
	CreatedBy       string
	Status          Status
	CampaignData    Data
	IsDeleted       bool
	CreatedAt       time.Time
	UpdatedAt       time.Time
	LastUpdatedBy   string
	Reason          string
	Name            string
	Description     string
	TotalRecipients int64
	LiveData        LiveData
	CompletionData  CompletionData
	// LaunchProgress is how far the launch got, from its acceptance on;
	// nil before the launch.
	LaunchProgress *LaunchProgress
}

// LaunchProgress mirrors a campaign's launch record on the campaign, in the
// same transactions that change the record: the contacts paid for, the
// recipients created so far, the last progress and, once it is over, when
// it finished and the credits given back. A preparing campaign whose
// LastProgressAt is old is a launch the scheduler has not yet finished.
type LaunchProgress struct {
	Contacts       int64
	Created        int64
	Refunded       *int64
	LastProgressAt time.Time
	FinishedAt     *time.Time
}

// Data is what a campaign is made of. The original interface shows
// contactListId, giftIds and emailTemplateId (create variant B);
// contactListIds and scheduledAt come from create variant A, whose
// templateId is stored as emailTemplateId. ContactListID is always the
// first of ContactListIDs, so readers of either variant find the list where
// they expect it.
type Data struct {
	ContactListID   string
	ContactListIDs  []string
	GiftIDs         []string
	EmailTemplateID string
	ScheduledAt     *time.Time
	// CreditsPerRecipient is the price of one recipient in wallet credits
	// (1 credit = 1 unit of the organization's budget currency): the
	// highest price among the campaign's gifts, rounded up to whole
	// credits (a budget held for the recipient's choice), unless the
	// campaign sets its own (PriceSet).
	CreditsPerRecipient int64
	// PriceSet is true when CreditsPerRecipient was set by the campaign
	// rather than derived from its gifts.
	PriceSet bool
	// ClaimExpiresInDays is how many days a recipient has, from when it is
	// added, to confirm an address before it expires (ClaimExpiry).
	ClaimExpiresInDays int
	// ChoiceCollectionID, when set, lets each recipient swap for any
	// available gift of that collection whose price fits the credits held
	// for it (campaignData.choice.collectionId).
	ChoiceCollectionID string
	// Message is the sender's default note to each recipient, with
	// placeholders (recipient.NotePlaceholders) filled for each; a
	// recipient's own message replaces it.
	Message string
	// Meeting is the campaign's own meeting link (campaignData.meeting);
	// TemplateMeeting is its template's, copied whenever the campaign is
	// created or edited (CheckReferences), so a recipient's page reads no
	// template. The campaign's own wins (gifting.EffectiveMeeting).
	Meeting, TemplateMeeting *gifting.Meeting
	// TemplateLook is its template's logo and colour, copied like
	// TemplateMeeting so a recipient's page and email read no template;
	// nil for a campaign stored before the copy was kept (its emails read
	// the template instead), an empty look for a template that sets none
	// or that is not the organization's own (the service catalog's do not
	// override a tenant's brand).
	TemplateLook *gifting.TemplateLook
}

// LiveData holds the campaign's running counters and its launch.
type LiveData struct {
	// StatusCounts maps every recipient status to the number of the
	// campaign's recipients in it. Every status is present from creation,
	// so an update can add to any of them.
	StatusCounts map[gifting.RecipientStatus]int64
	// CreditsSpent is the total of the credits its recipients cost.
	CreditsSpent int64
	// FeedbackCount is the number of recipients who left feedback.
	FeedbackCount int64
	// CreditsRefunded is what went back to the wallet from its recipients
	// (claims of cheaper gifts, expiries, cancelled orders), already taken
	// off CreditsSpent; 0 for refunds before it was kept.
	CreditsRefunded int64
	// ClaimDelays is how long its recipients took from invitation to
	// claim: gifting.ClaimDelayBucket → recipients.
	ClaimDelays map[int]int64
	// LaunchedAt is when the launch was accepted; LiveAt when the launch
	// finished and the campaign went live.
	LaunchedAt *time.Time
	LiveAt     *time.Time
}

// CompletionData describes how a campaign ended: empty until it is
// completed, then who completed it, when, and its counters at that moment.
// LiveData keeps counting afterwards (recipients of a completed campaign
// still get their gifts), so the two may differ later.
type CompletionData struct {
	CompletedAt *time.Time
	CompletedBy string
	// The counters are pointers so that a zero (no credits spent) still
	// shows once the campaign is completed, while a campaign that is not
	// has none.
	TotalRecipients *int64
	StatusCounts    map[gifting.RecipientStatus]int64
	CreditsSpent    *int64
	FeedbackCount   *int64
}

// AcceptsRecipients reports whether recipients may be added to c: every
// state but completed, as long as it is not deleted. A draft accepts them
// (add-recipient while the campaign is built), preparing does (the launch
// job writes them), live and in_progress do (recipients join a running
// campaign).
func (c Campaign) AcceptsRecipients() bool {
	return !c.IsDeleted && c.Status != Completed && c.Status != ""
}

// AcceptingStates are the campaign states that accept new recipients (see
// AcceptsRecipients); storage conditions writes on them.
var AcceptingStates = []Status{Draft, Preparing, Live, InProgress}

// InvitingStates are the states that accept recipients and send their
// invitations at once (AcceptsRecipients and SendsEmails); storage
// conditions the write of an invited recipient on them, so a pause racing
// an add-recipient never lets an invitation through.
var InvitingStates = []Status{Preparing, Live}

// SendsEmails reports whether the service sends c's invitations now. A
// draft sends nothing: its recipients get their invitation once it is
// launched. A campaign in_progress (the original interface: "active", where
// live is "live and sending") is paused: it accepts recipients and they
// keep moving through their journey, but their emails wait, scheduled,
// until it resumes. A completed campaign takes no new recipients, so it
// sends no invitations either.
func (c Campaign) SendsEmails() bool {
	return c.Status == Preparing || c.Status == Live
}

// Sends reports whether the service sends c's email of kind now
// (gifting.EmailKinds): a preparing or live campaign sends every email; a
// completed one only the emails that follow a shipment, a delivery or an
// acknowledgement (its claimed gifts are still on their way); a draft or
// paused one none (they wait).
func (c Campaign) Sends(kind string) bool {
	if c.IsDeleted {
		return false
	}
	if c.Status == Completed {
		return kind == "shipped" || kind == "postDelivery" || kind == "postAcknowledgement"
	}
	return c.SendsEmails()
}

// ClaimExpiry is how many days c's recipients have to claim their gift:
// its ClaimExpiresInDays, gifting.DefaultClaimExpiresInDays when unset.
func (c Campaign) ClaimExpiry() int {
	if d := c.CampaignData.ClaimExpiresInDays; d > 0 {
		return d
	}
	return gifting.DefaultClaimExpiresInDays
}

// Normalize gives a stored campaign's empty collections their shown form
// (empty rather than nil), every status count, and its claim expiry.
func (c *Campaign) Normalize() {
	if c.CampaignData.ContactListIDs == nil {
		c.CampaignData.ContactListIDs = []string{}
	}
	if c.CampaignData.GiftIDs == nil {
		c.CampaignData.GiftIDs = []string{}
	}
	counts := gifting.NewStatusCounts()
	for s, n := range c.LiveData.StatusCounts {
		counts[s] = n
	}
	c.LiveData.StatusCounts = counts
	c.CampaignData.ClaimExpiresInDays = c.ClaimExpiry()
}

// NotDraft is the CONFLICT of an operation only a draft allows, what being
// what it would do to c ("edited", "launched").
func (c Campaign) NotDraft(what string) error {
	return gifting.Errorf(gifting.CodeConflict, "campaign is %s; only a draft can be %s", c.Status, what)
}

// NotFound is the error a user sees for a campaign that does not exist,
// was deleted or is another organization's.
func NotFound(campaignID string) error { return gifting.NotFound("campaign", campaignID) }
