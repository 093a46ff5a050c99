package gifting

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Campaign is a gifting campaign (the OpenAPI schema Campaign).
//
// Besides the original interface's fields it carries counters, kept in the same
// transactions as the changes they count so metrics and recipient lists never
// read every recipient: totalRecipients (an original field) and, inside
// liveData, statusCounts, creditsSpent and feedbackCount.
type Campaign struct {
	CampaignID      string         `json:"campaignId"`
	OrganizationID  string         `json:"organizationId"`
	CreatedBy       string         `json:"createdBy"`
	Status          CampaignStatus `json:"status"`
	CampaignData    CampaignData   `json:"campaignData"`
	IsDeleted       bool           `json:"isDeleted"`
	CreatedAt       time.Time      `json:"createdAt"`
	UpdatedAt       time.Time      `json:"updatedAt"`
	LastUpdatedBy   string         `json:"lastUpdatedBy"`
	Reason          string         `json:"reason"`
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	TotalRecipients int64          `json:"totalRecipients"`
	LiveData        LiveData       `json:"liveData"`
	CompletionData  CompletionData `json:"completionData"`
	// LaunchProgress is how far the launch got, from its acceptance on;
	// absent before the launch.
	LaunchProgress *LaunchProgress `json:"launchProgress,omitempty"`
}

// LaunchProgress mirrors a campaign's launch record on the campaign, in the
// same transactions that change the record: the contacts paid for, the
// recipients created so far, the last progress and, once it is over, when
// it finished and the credits given back. A preparing campaign whose
// lastProgressAt is old is a launch the scheduler has not yet finished.
type LaunchProgress struct {
	Contacts       int64      `json:"contacts"`
	Created        int64      `json:"created"`
	Refunded       *int64     `json:"refunded,omitempty"`
	LastProgressAt time.Time  `json:"lastProgressAt"`
	FinishedAt     *time.Time `json:"finishedAt,omitempty"`
}

// CampaignData is what a campaign is made of. The original interface shows
// contactListId, giftIds and emailTemplateId (create variant B); contactListIds
// and scheduledAt come from create variant A, whose templateId is stored as
// emailTemplateId. ContactListID is always the first of ContactListIDs, so
// readers of either variant find the list where they expect it.
type CampaignData struct {
	ContactListID   string     `json:"contactListId"`
	ContactListIDs  []string   `json:"contactListIds"`
	GiftIDs         []string   `json:"giftIds"`
	EmailTemplateID string     `json:"emailTemplateId"`
	ScheduledAt     *time.Time `json:"scheduledAt,omitempty"`
	// CreditsPerRecipient is the price of one recipient in wallet credits
	// (1 credit = 1 unit of the organization's budget currency): the
	// highest price among the campaign's gifts, rounded up to whole
	// credits (a budget held for the recipient's choice), unless the
	// campaign sets its own (PriceSet).
	CreditsPerRecipient int64 `json:"creditsPerRecipient"`
	// PriceSet is true when CreditsPerRecipient was set by the campaign
	// rather than derived from its gifts.
	PriceSet bool `json:"priceSet"`
	// ClaimExpiresInDays is how many days a recipient has, from when it is
	// added, to confirm an address before it expires (ClaimExpiry).
	ClaimExpiresInDays int `json:"claimExpiresInDays"`
}

// LiveData holds the campaign's running counters and its launch.
type LiveData struct {
	// StatusCounts maps every recipient status to the number of the
	// campaign's recipients in it. Every status is present from creation,
	// so an update can add to any of them.
	StatusCounts map[RecipientStatus]int64 `json:"statusCounts"`
	// CreditsSpent is the total of the credits its recipients cost.
	CreditsSpent int64 `json:"creditsSpent"`
	// FeedbackCount is the number of recipients who left feedback.
	FeedbackCount int64 `json:"feedbackCount"`
	// LaunchedAt is when the launch was accepted; LiveAt when the launch
	// finished and the campaign went live.
	LaunchedAt *time.Time `json:"launchedAt,omitempty"`
	LiveAt     *time.Time `json:"liveAt,omitempty"`
}

// CompletionData describes how a campaign ended: empty until it is
// completed, then who completed it, when, and its counters at that moment.
// liveData keeps counting afterwards (recipients of a completed campaign
// still get their gifts), so the two may differ later.
type CompletionData struct {
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	CompletedBy string     `json:"completedBy,omitempty"`
	// The counters are pointers so that a zero (no credits spent) still
	// shows once the campaign is completed, while a campaign that is not
	// has an empty object.
	TotalRecipients *int64                    `json:"totalRecipients,omitempty"`
	StatusCounts    map[RecipientStatus]int64 `json:"statusCounts,omitempty"`
	CreditsSpent    *int64                    `json:"creditsSpent,omitempty"`
	FeedbackCount   *int64                    `json:"feedbackCount,omitempty"`
}

// NewStatusCounts returns a count of zero for every recipient status.
func NewStatusCounts() map[RecipientStatus]int64 {
	m := make(map[RecipientStatus]int64, len(RecipientStatuses))
	for _, s := range RecipientStatuses {
		m[s] = 0
	}
	return m
}

// AcceptsRecipients reports whether recipients may be added to c: every
// state but completed, as long as it is not deleted. A draft accepts them
// (add-recipient while the campaign is built), preparing does (the launch
// job writes them), live and in_progress do (recipients join a running
// campaign).
func (c Campaign) AcceptsRecipients() bool {
	return !c.IsDeleted && c.Status != CampaignCompleted && c.Status != ""
}

// ErrCampaignHasRecipients is storage's refusal of an edit of a draft's
// gifts or price once it has recipients (they were charged the price of
// the gifts then).
var ErrCampaignHasRecipients = Errorf(CodeConflict, "the campaign has recipients: its gifts and price can no longer change")

// RecipientStatesAccepting are the campaign states that accept new
// recipients (see AcceptsRecipients); storage conditions writes on them.
var RecipientStatesAccepting = []CampaignStatus{CampaignDraft, CampaignPreparing, CampaignLive, CampaignInProgress}

// InvitingStates are the states that accept recipients and send their
// invitations at once (AcceptsRecipients and SendsEmails); storage
// conditions the write of an invited recipient on them, so a pause racing
// an add-recipient never lets an invitation through.
var InvitingStates = []CampaignStatus{CampaignPreparing, CampaignLive}

// Valid reports whether s is a known campaign state.
func (s CampaignStatus) Valid() bool { return slices.Contains(CampaignStatuses, s) }

// SendsEmails reports whether the service sends c's invitations now. A draft
// sends nothing: its recipients get their invitation once it is launched. A
// campaign in_progress (the original interface: "active", where live is "live
// and sending") is paused: it accepts recipients and they keep moving through
// their journey, but their emails wait, scheduled, until it resumes. A
// completed campaign takes no new recipients, so it sends no invitations
// either.
func (c Campaign) SendsEmails() bool {
	return c.Status == CampaignPreparing || c.Status == CampaignLive
}

// Sends reports whether the service sends c's email of kind now
// (EmailKinds): a preparing or live campaign sends every email; a
// completed one only the emails that follow a delivery or an
// acknowledgement; a draft or paused one none (they wait).
func (c Campaign) Sends(kind string) bool {
	if c.IsDeleted {
		return false
	}
	if c.Status == CampaignCompleted {
		return kind == "postDelivery" || kind == "postAcknowledgement"
	}
	return c.SendsEmails()
}

// campaignMoves is the campaign state machine: the states each state may
// move to. Launch moves draft to preparing (credits are taken); the launch
// job moves preparing to live when every recipient is written. A user
// pauses a live campaign (in_progress), resumes it (live) and completes
// either (CampaignPause, CampaignResume, CampaignComplete).
var campaignMoves = map[CampaignStatus][]CampaignStatus{
	CampaignDraft:      {CampaignPreparing},
	CampaignPreparing:  {CampaignLive},
	CampaignLive:       {CampaignInProgress, CampaignCompleted},
	CampaignInProgress: {CampaignLive, CampaignCompleted},
	CampaignCompleted:  nil,
}

// CanMove reports whether a campaign may move from one state to another.
func CanMove(from, to CampaignStatus) bool { return slices.Contains(campaignMoves[from], to) }

// CampaignAction is a move of the state machine a user asks for through
// the API. The launch and its job make the other moves themselves.
type CampaignAction struct {
	// Name is the action's endpoint; Done says what happened to the
	// campaign ("paused"), for messages.
	Name, Done string
	// From are the states the action applies to; To is where it leads.
	From []CampaignStatus
	To   CampaignStatus
}

// The user's campaign actions.
var (
	// CampaignPause stops a live campaign's emails; it stays active.
	CampaignPause = CampaignAction{Name: "pause", Done: "paused", From: []CampaignStatus{CampaignLive}, To: CampaignInProgress}
	// CampaignResume sends a paused campaign's emails again.
	CampaignResume = CampaignAction{Name: "resume", Done: "resumed", From: []CampaignStatus{CampaignInProgress}, To: CampaignLive}
	// CampaignComplete ends a live or paused campaign: it takes no more
	// recipients, and its counters are kept in completionData.
	CampaignComplete = CampaignAction{Name: "complete", Done: "completed", From: []CampaignStatus{CampaignLive, CampaignInProgress}, To: CampaignCompleted}
)

// CampaignActions lists the user's campaign actions.
var CampaignActions = []CampaignAction{CampaignPause, CampaignResume, CampaignComplete}

// Allows reports whether a applies to a campaign in state st.
func (a CampaignAction) Allows(st CampaignStatus) bool { return slices.Contains(a.From, st) }

// Refused is the CONFLICT of a on a campaign in state st: it names the
// current state and the states a applies to.
func (a CampaignAction) Refused(st CampaignStatus) error {
	if st == a.To {
		return Errorf(CodeConflict, "campaign is already %s", st)
	}
	from := make([]string, len(a.From))
	for i, f := range a.From {
		from[i] = string(f)
	}
	return Errorf(CodeConflict, "campaign is %s; it can be %s only when %s", st, a.Done, strings.Join(from, " or "))
}

// CreditsFor returns the price of one recipient in credits for gifts: the
// highest gift price in whole credits (CreditsForPrice). A price out of
// range (a gift stored before prices were bounded) is a VALIDATION_FAILED.
func CreditsFor(gifts []Gift) (int64, error) {
	var top int64
	for _, g := range gifts {
		c, err := CreditsForPrice(g.Price)
		if err != nil {
			return 0, fmt.Errorf("gift %q: %w", g.GiftID, err)
		}
		top = max(top, c)
	}
	return top, nil
}

// CatalogFloor returns the lowest price of a recipient a campaign of gifts
// may set: the highest price, in whole credits, among the service catalog's
// gifts (IsDelightloop), so no campaign gives the catalog's gifts away
// below their price. An organization's own gifts set no floor: their price
// is the organization's business. 0 when gifts holds no catalog gift.
func CatalogFloor(gifts []Gift) (int64, error) {
	var catalog []Gift
	for _, g := range gifts {
		if g.IsDelightloop {
			catalog = append(catalog, g)
		}
	}
	return CreditsFor(catalog)
}

// CampaignMetrics is the performance of a campaign, computed from its
// counters.
type CampaignMetrics struct {
	CampaignID      string                    `json:"campaignId"`
	Status          CampaignStatus            `json:"status"`
	TotalRecipients int64                     `json:"totalRecipients"`
	StatusCounts    map[RecipientStatus]int64 `json:"statusCounts"`
	CreditsSpent    int64                     `json:"creditsSpent"`
	FeedbackCount   int64                     `json:"feedbackCount"`
	Rates           CampaignRates             `json:"rates"`
}

// CampaignRates are fractions in [0, 1] of the campaign's recipients, each
// counting the recipients that reached a stage or went past it.
type CampaignRates struct {
	// AddressConfirmation: at address_confirmed or later.
	AddressConfirmation float64 `json:"addressConfirmation"`
	// Delivery: delivered or acknowledged.
	Delivery float64 `json:"delivery"`
	// Acknowledgement: acknowledged.
	Acknowledgement float64 `json:"acknowledgement"`
	// Feedback: left feedback.
	Feedback float64 `json:"feedback"`
}

// Metrics computes c's metrics from its counters.
func (c Campaign) Metrics() CampaignMetrics {
	counts := NewStatusCounts()
	for s, n := range c.LiveData.StatusCounts {
		counts[s] = n
	}
	reached := func(stage RecipientStatus) int64 {
		i := slices.Index(RecipientJourney, stage)
		var n int64
		for _, s := range RecipientJourney[i:] {
			n += counts[s]
		}
		return n
	}
	total := c.TotalRecipients
	rate := func(n int64) float64 {
		if total <= 0 {
			return 0
		}
		return math.Round(float64(n)/float64(total)*10000) / 10000
	}
	return CampaignMetrics{
		CampaignID:      c.CampaignID,
		Status:          c.Status,
		TotalRecipients: total,
		StatusCounts:    counts,
		CreditsSpent:    c.LiveData.CreditsSpent,
		FeedbackCount:   c.LiveData.FeedbackCount,
		Rates: CampaignRates{
			AddressConfirmation: rate(reached(RecipientAddressConfirmed)),
			Delivery:            rate(reached(RecipientDelivered)),
			Acknowledgement:     rate(reached(RecipientAcknowledged)),
			Feedback:            rate(c.LiveData.FeedbackCount),
		},
	}
}

// Normalize gives a stored campaign's empty collections their JSON form
// ([] and {} rather than null) and every status count.
func (c *Campaign) Normalize() {
	if c.CampaignData.ContactListIDs == nil {
		c.CampaignData.ContactListIDs = []string{}
	}
	if c.CampaignData.GiftIDs == nil {
		c.CampaignData.GiftIDs = []string{}
	}
	counts := NewStatusCounts()
	for s, n := range c.LiveData.StatusCounts {
		counts[s] = n
	}
	c.LiveData.StatusCounts = counts
	c.CampaignData.ClaimExpiresInDays = c.ClaimExpiry()
}

// NotDraft is the CONFLICT of an operation only a draft allows, what being
// what it would do to c ("edited", "launched").
func (c Campaign) NotDraft(what string) error {
	return Errorf(CodeConflict, "campaign is %s; only a draft can be %s", c.Status, what)
}
