package wire

import (
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// Campaign is a campaign as the API answers with it (the OpenAPI schema
// Campaign) and as the campaign.* webhook messages carry it: one shape,
// declared once, for both doors.
type Campaign struct {
	CampaignID      string          `json:"campaignId"`
	OrganizationID  string          `json:"organizationId"`
	CreatedBy       string          `json:"createdBy"`
	Status          campaign.Status `json:"status"`
	CampaignData    CampaignData    `json:"campaignData"`
	IsDeleted       bool            `json:"isDeleted"`
	CreatedAt       time.Time       `json:"createdAt"`
	UpdatedAt       time.Time       `json:"updatedAt"`
	LastUpdatedBy   string          `json:"lastUpdatedBy"`
	Reason          string          `json:"reason"`
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	TotalRecipients int64           `json:"totalRecipients"`
	LiveData        LiveData        `json:"liveData"`
	CompletionData  CompletionData  `json:"completionData"`
	LaunchProgress  *LaunchProgress `json:"launchProgress,omitempty"`
}

// CampaignData is a campaign's campaignData.
type CampaignData struct {
	ContactListID       string     `json:"contactListId"`
	ContactListIDs      []string   `json:"contactListIds"`
	GiftIDs             []string   `json:"giftIds"`
	EmailTemplateID     string     `json:"emailTemplateId"`
	ScheduledAt         *time.Time `json:"scheduledAt,omitempty"`
	CreditsPerRecipient int64      `json:"creditsPerRecipient"`
	PriceSet            bool       `json:"priceSet"`
	ClaimExpiresInDays  int        `json:"claimExpiresInDays"`
	Choice              *Choice    `json:"choice,omitempty"`
	Message             string     `json:"message,omitempty"`
	// Meeting is the campaign's own meeting link (not its template's).
	Meeting *gifting.Meeting `json:"meeting,omitempty"`
}

// LiveData is a campaign's liveData: its counters and its launch.
type LiveData struct {
	StatusCounts  map[gifting.RecipientStatus]int64 `json:"statusCounts"`
	CreditsSpent  int64                             `json:"creditsSpent"`
	FeedbackCount int64                             `json:"feedbackCount"`
	LaunchedAt    *time.Time                        `json:"launchedAt,omitempty"`
	LiveAt        *time.Time                        `json:"liveAt,omitempty"`
}

// CompletionData is a campaign's completionData: {} until it is completed.
type CompletionData struct {
	CompletedAt     *time.Time                        `json:"completedAt,omitempty"`
	CompletedBy     string                            `json:"completedBy,omitempty"`
	TotalRecipients *int64                            `json:"totalRecipients,omitempty"`
	StatusCounts    map[gifting.RecipientStatus]int64 `json:"statusCounts,omitempty"`
	CreditsSpent    *int64                            `json:"creditsSpent,omitempty"`
	FeedbackCount   *int64                            `json:"feedbackCount,omitempty"`
}

// LaunchProgress is a campaign's launchProgress, from its launch on.
type LaunchProgress struct {
	Contacts       int64      `json:"contacts"`
	Created        int64      `json:"created"`
	Refunded       *int64     `json:"refunded,omitempty"`
	LastProgressAt time.Time  `json:"lastProgressAt"`
	FinishedAt     *time.Time `json:"finishedAt,omitempty"`
}

// Choice is a campaign's swap: every available gift of the collection
// whose price fits the credits held for the recipient.
type Choice struct {
	CollectionID string `json:"collectionId"`
}

// CampaignOf is c as it leaves the service.
func CampaignOf(c campaign.Campaign) Campaign {
	d, l, done := c.CampaignData, c.LiveData, c.CompletionData
	out := Campaign{
		CampaignID: c.CampaignID, OrganizationID: c.OrganizationID, CreatedBy: c.CreatedBy, Status: c.Status,
		CampaignData: CampaignData{
			ContactListID: d.ContactListID, ContactListIDs: d.ContactListIDs, GiftIDs: d.GiftIDs,
			EmailTemplateID: d.EmailTemplateID, ScheduledAt: d.ScheduledAt, CreditsPerRecipient: d.CreditsPerRecipient,
			PriceSet: d.PriceSet, ClaimExpiresInDays: d.ClaimExpiresInDays, Message: d.Message,
		},
		IsDeleted: c.IsDeleted, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt, LastUpdatedBy: c.LastUpdatedBy,
		Reason: c.Reason, Name: c.Name, Description: c.Description, TotalRecipients: c.TotalRecipients,
		LiveData: LiveData{StatusCounts: l.StatusCounts, CreditsSpent: l.CreditsSpent, FeedbackCount: l.FeedbackCount,
			LaunchedAt: l.LaunchedAt, LiveAt: l.LiveAt},
		CompletionData: CompletionData{CompletedAt: done.CompletedAt, CompletedBy: done.CompletedBy,
			TotalRecipients: done.TotalRecipients, StatusCounts: done.StatusCounts, CreditsSpent: done.CreditsSpent,
			FeedbackCount: done.FeedbackCount},
	}
	out.CampaignData.Meeting = d.Meeting
	if d.ChoiceCollectionID != "" {
		out.CampaignData.Choice = &Choice{CollectionID: d.ChoiceCollectionID}
	}
	if p := c.LaunchProgress; p != nil {
		out.LaunchProgress = &LaunchProgress{Contacts: p.Contacts, Created: p.Created, Refunded: p.Refunded,
			LastProgressAt: p.LastProgressAt, FinishedAt: p.FinishedAt}
	}
	return out
}
