package dynamo

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// campaignItem is a campaign as stored (CAMPAIGN#<id> under the
// organization, DELCAMPAIGN#<id> once deleted). Its attribute names are
// those the API's type had when it was stored as it was
// (docs/data-model.md); the tags name attributes, as the store's marshal
// reads them.
type campaignItem struct {
	CampaignID      string              `json:"campaignId"`
	OrganizationID  string              `json:"organizationId"`
	CreatedBy       string              `json:"createdBy"`
	Status          campaign.Status     `json:"status"`
	CampaignData    campaignDataItem    `json:"campaignData"`
	IsDeleted       bool                `json:"isDeleted"`
	CreatedAt       time.Time           `json:"createdAt"`
	UpdatedAt       time.Time           `json:"updatedAt"`
	LastUpdatedBy   string              `json:"lastUpdatedBy"`
	Reason          string              `json:"reason"`
	Name            string              `json:"name"`
	Description     string              `json:"description"`
	TotalRecipients int64               `json:"totalRecipients"`
	LiveData        liveDataItem        `json:"liveData"`
	CompletionData  completionDataItem  `json:"completionData"`
	LaunchProgress  *launchProgressItem `json:"launchProgress,omitempty"`
}

type campaignDataItem struct {
	ContactListID       string     `json:"contactListId"`
	ContactListIDs      []string   `json:"contactListIds"`
	GiftIDs             []string   `json:"giftIds"`
	EmailTemplateID     string     `json:"emailTemplateId"`
	ScheduledAt         *time.Time `json:"scheduledAt,omitempty"`
	CreditsPerRecipient int64      `json:"creditsPerRecipient"`
	PriceSet            bool       `json:"priceSet"`
	ClaimExpiresInDays  int        `json:"claimExpiresInDays"`
	ChoiceCollectionID  string     `json:"choiceCollectionId,omitempty"`
	Message             string     `json:"message,omitempty"`
	// The campaign's meeting link and its template's copy (campaign.Data).
	Meeting         *gifting.Meeting `json:"meeting,omitempty"`
	TemplateMeeting *gifting.Meeting `json:"templateMeeting,omitempty"`
	// TemplateLook is the template's logo and colour (campaign.Data).
	TemplateLook *gifting.TemplateLook `json:"templateLook,omitempty"`
}

type liveDataItem struct {
	StatusCounts  map[gifting.RecipientStatus]int64 `json:"statusCounts"`
	CreditsSpent  int64                             `json:"creditsSpent"`
	FeedbackCount int64                             `json:"feedbackCount"`
	// CreditsRefunded is kept by the updates that refund (refundedExpr).
	CreditsRefunded int64      `json:"creditsRefunded,omitempty"`
	LaunchedAt      *time.Time `json:"launchedAt,omitempty"`
	LiveAt          *time.Time `json:"liveAt,omitempty"`
}

type completionDataItem struct {
	CompletedAt     *time.Time                        `json:"completedAt,omitempty"`
	CompletedBy     string                            `json:"completedBy,omitempty"`
	TotalRecipients *int64                            `json:"totalRecipients,omitempty"`
	StatusCounts    map[gifting.RecipientStatus]int64 `json:"statusCounts,omitempty"`
	CreditsSpent    *int64                            `json:"creditsSpent,omitempty"`
	FeedbackCount   *int64                            `json:"feedbackCount,omitempty"`
}

type launchProgressItem struct {
	Contacts       int64      `json:"contacts"`
	Created        int64      `json:"created"`
	Refunded       *int64     `json:"refunded,omitempty"`
	LastProgressAt time.Time  `json:"lastProgressAt"`
	FinishedAt     *time.Time `json:"finishedAt,omitempty"`
}

func campaignDataItemOf(d campaign.Data) campaignDataItem {
	return campaignDataItem{ContactListID: d.ContactListID, ContactListIDs: d.ContactListIDs, GiftIDs: d.GiftIDs,
		EmailTemplateID: d.EmailTemplateID, ScheduledAt: d.ScheduledAt, CreditsPerRecipient: d.CreditsPerRecipient,
		PriceSet: d.PriceSet, ClaimExpiresInDays: d.ClaimExpiresInDays, ChoiceCollectionID: d.ChoiceCollectionID, Message: d.Message,
		Meeting: d.Meeting, TemplateMeeting: d.TemplateMeeting, TemplateLook: d.TemplateLook}
}

func completionDataItemOf(d campaign.CompletionData) completionDataItem {
	return completionDataItem{CompletedAt: d.CompletedAt, CompletedBy: d.CompletedBy, TotalRecipients: d.TotalRecipients,
		StatusCounts: d.StatusCounts, CreditsSpent: d.CreditsSpent, FeedbackCount: d.FeedbackCount}
}

func launchProgressItemOf(p *campaign.LaunchProgress) *launchProgressItem {
	if p == nil {
		return nil
	}
	return &launchProgressItem{Contacts: p.Contacts, Created: p.Created, Refunded: p.Refunded,
		LastProgressAt: p.LastProgressAt, FinishedAt: p.FinishedAt}
}

// campaignItemOf is c as stored.
func campaignItemOf(c campaign.Campaign) campaignItem {
	l := c.LiveData
	return campaignItem{
		CampaignID: c.CampaignID, OrganizationID: c.OrganizationID, CreatedBy: c.CreatedBy, Status: c.Status,
		CampaignData: campaignDataItemOf(c.CampaignData), IsDeleted: c.IsDeleted, CreatedAt: c.CreatedAt,
		UpdatedAt: c.UpdatedAt, LastUpdatedBy: c.LastUpdatedBy, Reason: c.Reason, Name: c.Name,
		Description: c.Description, TotalRecipients: c.TotalRecipients,
		LiveData: liveDataItem{StatusCounts: l.StatusCounts, CreditsSpent: l.CreditsSpent, FeedbackCount: l.FeedbackCount,
			CreditsRefunded: l.CreditsRefunded, LaunchedAt: l.LaunchedAt, LiveAt: l.LiveAt},
		CompletionData: completionDataItemOf(c.CompletionData),
		LaunchProgress: launchProgressItemOf(c.LaunchProgress),
	}
}

// campaign is the campaign the item holds, as stored (not normalized).
func (it campaignItem) campaign() campaign.Campaign {
	d, l, done := it.CampaignData, it.LiveData, it.CompletionData
	c := campaign.Campaign{
		CampaignID: it.CampaignID, OrganizationID: it.OrganizationID, CreatedBy: it.CreatedBy, Status: it.Status,
		CampaignData: campaign.Data{ContactListID: d.ContactListID, ContactListIDs: d.ContactListIDs, GiftIDs: d.GiftIDs,
			EmailTemplateID: d.EmailTemplateID, ScheduledAt: d.ScheduledAt, CreditsPerRecipient: d.CreditsPerRecipient,
			PriceSet: d.PriceSet, ClaimExpiresInDays: d.ClaimExpiresInDays, ChoiceCollectionID: d.ChoiceCollectionID, Message: d.Message,
			Meeting: d.Meeting, TemplateMeeting: d.TemplateMeeting, TemplateLook: d.TemplateLook},
		IsDeleted: it.IsDeleted, CreatedAt: it.CreatedAt, UpdatedAt: it.UpdatedAt, LastUpdatedBy: it.LastUpdatedBy,
		Reason: it.Reason, Name: it.Name, Description: it.Description, TotalRecipients: it.TotalRecipients,
		LiveData: campaign.LiveData{StatusCounts: l.StatusCounts, CreditsSpent: l.CreditsSpent,
			FeedbackCount: l.FeedbackCount, CreditsRefunded: l.CreditsRefunded, LaunchedAt: l.LaunchedAt, LiveAt: l.LiveAt},
		CompletionData: campaign.CompletionData{CompletedAt: done.CompletedAt, CompletedBy: done.CompletedBy,
			TotalRecipients: done.TotalRecipients, StatusCounts: done.StatusCounts, CreditsSpent: done.CreditsSpent,
			FeedbackCount: done.FeedbackCount},
	}
	if p := it.LaunchProgress; p != nil {
		c.LaunchProgress = &campaign.LaunchProgress{Contacts: p.Contacts, Created: p.Created, Refunded: p.Refunded,
			LastProgressAt: p.LastProgressAt, FinishedAt: p.FinishedAt}
	}
	return c
}

// decodeCampaign reads a campaign item (not normalized).
func decodeCampaign(it item) (campaign.Campaign, error) {
	var ci campaignItem
	if err := unmarshal(it, &ci); err != nil {
		return campaign.Campaign{}, err
	}
	c := ci.campaign()
	c.LiveData.ClaimDelays = claimDelaysOf(it)
	return c, nil
}

// The claim-delay histogram (gifting.ClaimDelayBucket) lives in top-level
// attributes of the campaign item, cd00 to cd63, each ADDed by a claim's
// transaction: an ADD creates its attribute, where a nested map would
// have to exist first on every campaign written before it.
const claimDelayPrefix = "cd"

// claimDelayAttr names bucket b's attribute.
func claimDelayAttr(b int) string { return fmt.Sprintf("%s%02d", claimDelayPrefix, b) }

// claimDelaysOf reads the histogram of a campaign item (nil when empty).
func claimDelaysOf(it item) map[int]int64 {
	var h map[int]int64
	for k, v := range it {
		b, err := strconv.Atoi(strings.TrimPrefix(k, claimDelayPrefix))
		n, ok := v.(*types.AttributeValueMemberN)
		if len(k) != 4 || !strings.HasPrefix(k, claimDelayPrefix) || err != nil || !ok {
			continue
		}
		c, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			continue
		}
		if h == nil {
			h = map[int]int64{}
		}
		h[b] = c
	}
	return h
}

// refundedExpr is the update clause that counts refund (":refund") in a
// campaign's creditsRefunded; its values need ":zero".
const refundedExpr = "liveData.creditsRefunded = if_not_exists(liveData.creditsRefunded, :zero) + :refund"
