package campaign

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Bounds of a campaign's fields.
const (
	MaxName        = 200
	MaxDescription = 2000
	MaxLists       = 20
	MaxGifts       = 50
	// MaxReason bounds the reason a user gives for a lifecycle action.
	MaxReason = 500
)

// Edit is a campaign's fields as a client sent them, to create a campaign
// or to edit a draft: variant A (name, contactListIds, templateId,
// scheduledAt) and variant B (name, description, campaignData) of the
// original interface (docs/resources.md), which may also be mixed. A nil
// field was not sent and stays as it is.
type Edit struct {
	Name, Description *string
	// Lists are the contact list ids sent, in the order variant A's
	// contactListIds, campaignData.contactListId, then
	// campaignData.contactListIds; ListsSent says whether any of the
	// three was sent.
	Lists     []string
	ListsSent bool
	// TemplateID is variant A's templateId, DataTemplateID
	// campaignData.emailTemplateId.
	TemplateID, DataTemplateID *string
	// Schedule is scheduledAt or campaignData.scheduledAt, nil when
	// neither was sent.
	Schedule            *Schedule
	GiftIDs             []string
	CreditsPerRecipient *int64
	ClaimExpiresInDays  *int64
	// Choice is campaignData.choice.collectionId when choice was sent
	// ("" takes the swap away).
	Choice *string
	// Message is campaignData.message (recipient.CheckNote).
	Message *string
	// Meeting is campaignData.meeting (an empty url takes it away).
	Meeting *gifting.Meeting
}

// Schedule is a launch time as sent: Field names the field it came in; At
// is the instant, nil to clear the schedule; Invalid says the value was
// not a date-time.
type Schedule struct {
	Field   string
	At      *time.Time
	Invalid bool
}

// Apply validates e and applies it to c: every field sent replaces the
// campaign's (creating, the name is required and the claim expiry takes
// its default). Every problem is collected into one VALIDATION_FAILED
// naming each field.
func (e Edit) Apply(c *Campaign, creating bool) error {
	var p gifting.Problems
	e.applyText(c, creating, &p)
	if e.ListsSent {
		lists := distinct(e.Lists, MaxLists+1)
		if len(lists) > MaxLists {
			p.Add("contactListIds", fmt.Sprintf("at most %d contact lists", MaxLists))
		}
		c.CampaignData.ContactListIDs, c.CampaignData.ContactListID = lists, ""
		if len(lists) > 0 {
			c.CampaignData.ContactListID = lists[0]
		}
	}
	if e.TemplateID != nil || e.DataTemplateID != nil {
		a, b := strings.TrimSpace(deref(e.TemplateID)), strings.TrimSpace(deref(e.DataTemplateID))
		if a != "" && b != "" && a != b {
			p.Add("templateId", "differs from campaignData.emailTemplateId; send one of them")
		}
		c.CampaignData.EmailTemplateID = cmp.Or(a, b)
	}
	if s := e.Schedule; s != nil {
		c.CampaignData.ScheduledAt = nil
		switch {
		case s.Invalid:
			p.Add(s.Field, "must be an ISO 8601 date-time such as 2026-01-31T09:00:00Z")
		case s.At != nil:
			t := s.At.Truncate(time.Millisecond)
			c.CampaignData.ScheduledAt = &t
		}
	}
	if e.GiftIDs != nil {
		ids := e.GiftIDs
		if len(ids) > MaxGifts {
			// Too many as sent (the API document's maxItems counts repeats
			// too); the rest is not compared, which would cost the square
			// of the list.
			p.Add("campaignData.giftIds", fmt.Sprintf("at most %d gifts", MaxGifts))
			ids = ids[:MaxGifts]
		}
		c.CampaignData.GiftIDs = distinct(ids, len(ids))
	}
	e.applyNumbers(c, creating, &p)
	if e.Message != nil {
		c.CampaignData.Message = strings.TrimSpace(*e.Message)
		recipient.CheckNote(&p, "campaignData.message", c.CampaignData.Message)
	}
	if e.Meeting != nil {
		c.CampaignData.Meeting = gifting.SetMeeting(&p, "campaignData.meeting", *e.Meeting)
	}
	return p.Err()
}

// applyText applies the name and the description.
func (e Edit) applyText(c *Campaign, creating bool, p *gifting.Problems) {
	if e.Name != nil || creating {
		name := strings.TrimSpace(deref(e.Name))
		switch {
		case name == "":
			p.Add("name", "is required")
		case utf8.RuneCountInString(name) > MaxName:
			p.Add("name", fmt.Sprintf("must be at most %d characters", MaxName))
		}
		c.Name = name
	}
	if e.Description != nil {
		c.Description = strings.TrimSpace(*e.Description)
		if utf8.RuneCountInString(c.Description) > MaxDescription {
			p.Add("description", fmt.Sprintf("must be at most %d characters", MaxDescription))
		}
	}
}

// applyNumbers applies the price and the claim expiry.
func (e Edit) applyNumbers(c *Campaign, creating bool, p *gifting.Problems) {
	if e.CreditsPerRecipient != nil {
		if n := *e.CreditsPerRecipient; n < 0 || n > gifting.MaxCreditsPerRecipient {
			p.Add("campaignData.creditsPerRecipient", fmt.Sprintf("must be a whole number from 0 to %d", gifting.MaxCreditsPerRecipient))
		}
		c.CampaignData.CreditsPerRecipient, c.CampaignData.PriceSet = *e.CreditsPerRecipient, true
	}
	switch {
	case e.ClaimExpiresInDays != nil:
		if n := *e.ClaimExpiresInDays; n < 1 || n > gifting.MaxClaimExpiresInDays {
			p.Add("campaignData.claimExpiresInDays", fmt.Sprintf("must be a whole number of days from 1 to %d", gifting.MaxClaimExpiresInDays))
		} else {
			c.CampaignData.ClaimExpiresInDays = int(n)
		}
	case creating:
		c.CampaignData.ClaimExpiresInDays = gifting.DefaultClaimExpiresInDays
	}
	if e.Choice != nil {
		id := strings.TrimSpace(*e.Choice)
		if utf8.RuneCountInString(id) > gifting.MaxListEntryLength || strings.ContainsFunc(id, unicode.IsControl) {
			p.Add("campaignData.choice.collectionId", fmt.Sprintf("must be a collection id of at most %d characters, one line", gifting.MaxListEntryLength))
		}
		c.CampaignData.ChoiceCollectionID = id
	}
}

// distinct is ids trimmed, without blanks and repeats, in order; it stops
// once it holds limit ids (the rest would cost the square of the list).
func distinct(ids []string, limit int) []string {
	var out []string
	for _, id := range ids {
		if len(out) >= limit {
			break
		}
		if id = strings.TrimSpace(id); id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// References is what a campaign refers to, as read for a create or an
// edit: the ids of its lists not found, whether its template was not
// found, and the error of reading its gifts (nil when all were found).
type References struct {
	MissingLists    []string
	MissingTemplate bool
	// TemplateMeeting is the meeting link of the template, as read.
	TemplateMeeting *gifting.Meeting
	// TemplateLook is the template's logo and colour when it is the
	// organization's own, as read (Data.TemplateLook); nil for no template.
	TemplateLook *gifting.TemplateLook
	GiftsErr     error
	Gifts        []gifting.Gift
}

// CheckReferences refuses a campaign c whose references r shows missing
// (VALIDATION_FAILED naming each), then prices it (Price). A digital gift
// is priced like any other: its claim hands out one of its codes.
func CheckReferences(c *Campaign, r References) error {
	var p gifting.Problems
	for _, id := range r.MissingLists {
		p.Add("contactListIds", fmt.Sprintf("contact list %q was not found", id))
	}
	if r.MissingTemplate {
		p.Add("templateId", fmt.Sprintf("template %q was not found", c.CampaignData.EmailTemplateID))
	}
	if r.GiftsErr != nil {
		p.Add("campaignData.giftIds", gifting.ErrorMessage(r.GiftsErr))
	}
	if err := p.Err(); err != nil {
		e := err.(*gifting.Error)
		e.Message = "The campaign refers to resources that do not exist; see details."
		return e
	}
	c.CampaignData.TemplateMeeting, c.CampaignData.TemplateLook = r.TemplateMeeting, r.TemplateLook
	return Price(c, r.Gifts)
}

// CreatePlan is a new draft, ready to commit: the campaign with its id,
// owner, state, counters and times set, due when it is scheduled, with the
// answer recorded under the request's idempotency key (nil: none).
type CreatePlan struct {
	OrgID    string
	Campaign Campaign
	Response *Response
}

// DecideCreate makes c (validated, references checked and priced) orgID's
// new draft id at now.
func DecideCreate(orgID string, c Campaign, id string, now time.Time) Campaign {
	c.CampaignID, c.OrganizationID, c.Status, c.IsDeleted = id, orgID, Draft, false
	c.CreatedAt, c.UpdatedAt, c.LastUpdatedBy = now, now, c.CreatedBy
	c.TotalRecipients = 0
	c.LiveData = LiveData{StatusCounts: gifting.NewStatusCounts()}
	c.CompletionData = CompletionData{}
	c.Normalize()
	return c
}

// EditPlan is an edit of a draft, ready to commit: its name, description
// and data as edited, written by UserID at Now. Rescheduled (the edit
// changed ScheduledAt) moves the draft's place in the due index with it;
// without, a scheduled launch the scheduler refused is not tried again by
// an edit of anything else. Repriced (the gifts or the price changed)
// conditions the write on the draft still having no recipient.
type EditPlan struct {
	OrgID       string
	Campaign    Campaign
	UserID      string
	Now         time.Time
	Rescheduled bool
	Repriced    bool
}

// DecideEdit decides the edit of draft was into c (edited, references
// checked and priced) by userID at now: CONFLICT when the gifts or price
// changed and the draft has recipients, who were charged its price when
// they were added (their budget for the gifts then offered: a new gift or
// price would let them choose a gift they did not pay for).
func DecideEdit(orgID string, was, c Campaign, userID string, now time.Time) (EditPlan, error) {
	repriced := !slices.Equal(was.CampaignData.GiftIDs, c.CampaignData.GiftIDs) ||
		was.CampaignData.CreditsPerRecipient != c.CampaignData.CreditsPerRecipient
	if repriced && c.TotalRecipients > 0 {
		return EditPlan{}, RecipientsFixPrice(c.CampaignID)
	}
	before, after := was.CampaignData.ScheduledAt, c.CampaignData.ScheduledAt
	rescheduled := (before == nil) != (after == nil) || (before != nil && !before.Equal(*after))
	return EditPlan{OrgID: orgID, Campaign: c, UserID: userID, Now: now, Rescheduled: rescheduled, Repriced: repriced}, nil
}

// RecipientsFixPrice is the CONFLICT of an edit of the gifts or price of a
// draft that has recipients.
func RecipientsFixPrice(campaignID string) error {
	return gifting.Errorf(gifting.CodeConflict,
		"campaign %q has recipients, who were charged its price when they were added: its gifts and price can no longer change; create another campaign for other gifts", campaignID)
}
