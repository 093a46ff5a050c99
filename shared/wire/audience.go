package wire

import (
	"time"

	"github.com/giftcampaign/service/shared/audience"
)

// Audience is an audience list as the API answers it (the audience-lists
// endpoints) and as the audience.ready and audience.failed messages carry
// it: one shape, declared once, for both doors (the OpenAPI document's
// AudienceList).
type Audience struct {
	AudienceID     string       `json:"audienceId"`
	OrganizationID string       `json:"organizationId"`
	CreatedBy      string       `json:"createdBy"`
	Name           string       `json:"name"`
	ICPID          string       `json:"icpId"`
	TotalMatch     int64        `json:"totalMatch"`
	CreditRequired int64        `json:"creditRequired"`
	Status         string       `json:"status"`
	Tags           []string     `json:"tags"`
	CreatedAt      time.Time    `json:"createdAt"`
	UpdatedAt      time.Time    `json:"updatedAt"`
	Description    string       `json:"description"`
	Metadata       AudienceMeta `json:"metadata"`
}

// AudienceMeta is an audience's metadata object: the price creditRequired
// is computed at, the progress of the build, and the contact lists made
// from it.
type AudienceMeta struct {
	CreditsPerContact int64                   `json:"creditsPerContact"`
	PricedBy          string                  `json:"pricedBy"`
	GiftID            string                  `json:"giftId,omitempty"`
	ContactsScanned   int64                   `json:"contactsScanned"`
	BuildStartedAt    time.Time               `json:"buildStartedAt"`
	BuildFinishedAt   *time.Time              `json:"buildFinishedAt,omitempty"`
	Error             string                  `json:"error,omitempty"`
	ContactLists      map[string]ListProgress `json:"contactLists"`
}

// ListProgress is how far filling a contact list made from an audience
// has got.
type ListProgress struct {
	Status    string `json:"status"`
	Added     int64  `json:"added"`
	Unchanged int64  `json:"unchanged"`
	Failed    int64  `json:"failed"`
	Cursor    string `json:"cursor,omitempty"`
	Failures  int    `json:"failures,omitempty"`
}

// AudienceOf is a as it leaves the service (a nil list or map stays null:
// a message carries the audience as its record holds it).
func AudienceOf(a audience.Audience) Audience {
	m := a.Meta
	var lists map[string]ListProgress
	if m.ContactLists != nil {
		lists = make(map[string]ListProgress, len(m.ContactLists))
		for id, p := range m.ContactLists {
			lists[id] = ListProgress(p)
		}
	}
	return Audience{
		AudienceID: a.ID, OrganizationID: a.OrganizationID, CreatedBy: a.CreatedBy, Name: a.Name, ICPID: a.ICPID,
		TotalMatch: a.TotalMatch, CreditRequired: a.CreditRequired, Status: string(a.Status), Tags: a.Tags,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, Description: a.Description,
		Metadata: AudienceMeta{CreditsPerContact: m.CreditsPerContact, PricedBy: m.PricedBy, GiftID: m.GiftID,
			ContactsScanned: m.ContactsScanned, BuildStartedAt: m.BuildStartedAt, BuildFinishedAt: m.BuildFinishedAt,
			Error: m.Error, ContactLists: lists},
	}
}
