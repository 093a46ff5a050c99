package httpapi

import (
	"slices"
	"strings"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wire"
)

// The campaign routes' shapes: the request bodies as clients send them and
// the answers, converted to and from the campaign slice's types. A
// campaign itself answers as wire.Campaign, the shape its webhook messages
// carry too.

// campaignInput is the body of POST /api/campaigns and of PATCH: variant A
// (name, contactListIds, templateId, scheduledAt) and variant B (name,
// description, campaignData) of the original interface (docs/resources.md),
// which may also be mixed. On PATCH every field is optional and only those
// sent change.
type campaignInput struct {
	Name           *string            `json:"name"`
	Description    *string            `json:"description"`
	ContactListIDs []string           `json:"contactListIds"`
	TemplateID     *string            `json:"templateId"`
	ScheduledAt    *string            `json:"scheduledAt"`
	CampaignData   *campaignDataInput `json:"campaignData"`
}

// campaignDataInput is campaignData as a client sends it.
type campaignDataInput struct {
	ContactListID       *string  `json:"contactListId"`
	ContactListIDs      []string `json:"contactListIds"`
	GiftIDs             []string `json:"giftIds"`
	EmailTemplateID     *string  `json:"emailTemplateId"`
	ScheduledAt         *string  `json:"scheduledAt"`
	CreditsPerRecipient *int64   `json:"creditsPerRecipient"`
	ClaimExpiresInDays  *int64   `json:"claimExpiresInDays"`
	Choice              *struct {
		CollectionID string `json:"collectionId"`
	} `json:"choice"`
	Message *string          `json:"message"`
	Meeting *gifting.Meeting `json:"meeting"`
}

// edit is in as the campaign slice's Edit, which validates and applies it
// (campaign.Edit.Apply). Only the launch time is read here: its format is
// the API's (an ISO 8601 date-time; a date alone is refused).
func (in campaignInput) edit() campaign.Edit {
	d := in.CampaignData
	if d == nil {
		d = &campaignDataInput{}
	}
	e := campaign.Edit{
		Name: in.Name, Description: in.Description,
		Lists:      slices.Concat(in.ContactListIDs, []string{deref(d.ContactListID)}, d.ContactListIDs),
		ListsSent:  in.ContactListIDs != nil || d.ContactListID != nil || d.ContactListIDs != nil,
		TemplateID: in.TemplateID, DataTemplateID: d.EmailTemplateID,
		GiftIDs: d.GiftIDs, CreditsPerRecipient: d.CreditsPerRecipient, ClaimExpiresInDays: d.ClaimExpiresInDays,
		Message: d.Message, Meeting: d.Meeting,
	}
	if d.Choice != nil {
		e.Choice = &d.Choice.CollectionID
	}
	if in.ScheduledAt != nil || d.ScheduledAt != nil {
		field, raw := "scheduledAt", deref(in.ScheduledAt)
		if in.ScheduledAt == nil {
			field, raw = "campaignData.scheduledAt", deref(d.ScheduledAt)
		}
		e.Schedule = &campaign.Schedule{Field: field}
		if raw = strings.TrimSpace(raw); raw != "" {
			t, ok := parseInstant(raw)
			if !ok || len(raw) == len("2006-01-02") { // a date-time, not a date
				e.Schedule.Invalid = true
			} else {
				e.Schedule.At = &t
			}
		}
	}
	return e
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// campaignList is the bare response of GET /api/campaigns/campaigns.
type campaignList struct {
	Campaigns  []wire.Campaign    `json:"campaigns"`
	Pagination gifting.Pagination `json:"pagination"`
	// NextCursor starts the next page in the creation order ("" on the
	// last page, and when the list is searched, filtered or sorted
	// otherwise: cursor.go).
	NextCursor string `json:"nextCursor"`
}

// toCampaignList is the answer of a list of campaigns cs, one page of
// total, its nextCursor bound to binding.
func toCampaignList(cs []campaign.Campaign, page gifting.PageRequest, total int, binding string) campaignList {
	out := make([]wire.Campaign, len(cs))
	for i, c := range cs {
		out[i] = wire.CampaignOf(c)
	}
	return campaignList{Campaigns: out, Pagination: cursorPagination(page, total), NextCursor: nextCursor(page, binding)}
}

// deletedCampaign is the data of DELETE's response.
type deletedCampaign struct {
	CampaignID string `json:"campaignId"`
	IsDeleted  bool   `json:"isDeleted"`
}

// launchDTO is the data of an accepted launch's response (the OpenAPI
// schema Launch).
type launchDTO struct {
	CampaignID          string          `json:"campaignId"`
	Status              campaign.Status `json:"status"`
	Contacts            int64           `json:"contacts"`
	CreditsPerRecipient int64           `json:"creditsPerRecipient"`
	CreditsDeducted     int64           `json:"creditsDeducted"`
	RemainingBalance    int64           `json:"remainingBalance"`
}

func toLaunchDTO(l campaign.Launch) launchDTO {
	return launchDTO{CampaignID: l.CampaignID, Status: l.Status, Contacts: l.Contacts,
		CreditsPerRecipient: l.CreditsPerRecipient, CreditsDeducted: l.CreditsDeducted, RemainingBalance: l.RemainingBalance}
}

// metricsDTO is the data of GET …/metrics (the OpenAPI schema
// CampaignMetrics).
type metricsDTO struct {
	CampaignID      string                            `json:"campaignId"`
	Status          campaign.Status                   `json:"status"`
	TotalRecipients int64                             `json:"totalRecipients"`
	StatusCounts    map[gifting.RecipientStatus]int64 `json:"statusCounts"`
	CreditsSpent    int64                             `json:"creditsSpent"`
	FeedbackCount   int64                             `json:"feedbackCount"`
	Rates           ratesDTO                          `json:"rates"`
}

type ratesDTO struct {
	AddressConfirmation float64 `json:"addressConfirmation"`
	Delivery            float64 `json:"delivery"`
	Acknowledgement     float64 `json:"acknowledgement"`
	Feedback            float64 `json:"feedback"`
}

func toMetricsDTO(m campaign.Metrics) metricsDTO {
	r := m.Rates
	return metricsDTO{CampaignID: m.CampaignID, Status: m.Status, TotalRecipients: m.TotalRecipients,
		StatusCounts: m.StatusCounts, CreditsSpent: m.CreditsSpent, FeedbackCount: m.FeedbackCount,
		Rates: ratesDTO{AddressConfirmation: r.AddressConfirmation, Delivery: r.Delivery, Acknowledgement: r.Acknowledgement,
			Feedback: r.Feedback}}
}
