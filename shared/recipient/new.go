package recipient

import (
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// NewSpec is everything a new recipient is built from.
type NewSpec struct {
	RecipientID, OrgID, CampaignID, CampaignName string
	Contact                                      gifting.Contact
	SourceType, SourceID                         string
	// LandingPageID and ClaimPageID name the recipient's pages; they must
	// be unguessable, since the pages need no other credential.
	LandingPageID, ClaimPageID string
	// PublicBaseURL is where the pages live, without a trailing slash.
	PublicBaseURL string
	// Emails are the campaign template's emails by kind (may be nil).
	Emails map[string]gifting.EmailTemplate
	// Gift, when the campaign has exactly one gift, is that gift: it is
	// selected for the recipient at once.
	Gift *gifting.Gift
	// Credits is what adding the recipient costs.
	Credits int64
	// ClaimExpiresInDays is how long the recipient has to claim its gift
	// (Campaign.ClaimExpiryDays).
	ClaimExpiresInDays int
	Now                time.Time
}

// New builds a pending recipient with its pages and its email schedule,
// rendered from the template (RenderEmails).
func New(sp NewSpec) Recipient {
	r := Recipient{
		RecipientID: sp.RecipientID, CampaignID: sp.CampaignID, OrganizationID: sp.OrgID,
		LandingPageID: sp.LandingPageID, ClaimPageID: sp.ClaimPageID,
		ContactDetails: DetailsOf(sp.Contact), SourceType: sp.SourceType, SourceID: sp.SourceID,
		Status: gifting.RecipientPending, CreatedAt: sp.Now, UpdatedAt: sp.Now, CampaignName: sp.CampaignName,
		URLs: URLs{
			LandingPage: sp.PublicBaseURL + "/gift/" + sp.LandingPageID,
			ClaimPage:   sp.PublicBaseURL + "/claim/" + sp.ClaimPageID,
		},
		CreditsCharged: sp.Credits,
	}
	if sp.ClaimExpiresInDays > 0 {
		exp := sp.Now.AddDate(0, 0, sp.ClaimExpiresInDays)
		r.ClaimExpiresAt = &exp
	}
	if g := sp.Gift; g != nil {
		r.GiftDetails, r.SelectedGift = selectGift(*g, sp.Now)
	}
	for _, kind := range gifting.EmailKinds {
		t, ok := sp.Emails[kind]
		if !ok {
			continue
		}
		e := r.Emails.Kind(kind)
		e.Active = true
		// The invitation and its reminders count from the moment the
		// recipient is added; the post-delivery and post-acknowledgement
		// emails from the event they follow (see Advance).
		if kind == "addressConfirmation" || kind == "reminder1" || kind == "reminder2" {
			e.ScheduledTime = gifting.FormatTime(sp.Now.Add(time.Duration(t.DelayHours) * time.Hour))
		}
	}
	r.RenderEmails(sp.Emails)
	r.Normalize()
	return r
}

// Kit is what every recipient of one campaign is built from: the campaign,
// its template's emails, the gift selected at once when the campaign has
// exactly one, and where the recipients' pages live. Storage loads it once
// (dynamo.Store.RecipientKit) and any number of recipients are built with
// it.
type Kit struct {
	Campaign Campaign
	// Emails are the template's emails by kind; nil when the campaign has
	// no template.
	Emails map[string]gifting.EmailTemplate
	// Gift is the campaign's only gift, or nil when it has several.
	Gift *gifting.Gift
	// PublicBaseURL is the base of the landing and claim page URLs,
	// without a trailing slash.
	PublicBaseURL string
	// Invite says the caller sends invitations right after the write (a
	// mailer is configured); see InvitesNow.
	Invite bool
	// AssignTo, when its UserID is set, is the user every recipient built
	// with the kit is assigned to (the one who added or launched it).
	AssignTo AssignedUser
	// EmailSet names the stored copy of Emails the recipients are
	// rendered from when read; "" without emails.
	EmailSet string
}

// NewKit is the kit of campaign c with the template's emails and the
// campaign's only gift (nil when it has several) as read, its pages under
// publicBaseURL.
func NewKit(c Campaign, emails map[string]gifting.EmailTemplate, gift *gifting.Gift, publicBaseURL string) Kit {
	return Kit{Campaign: c, Emails: emails, Gift: gift, PublicBaseURL: strings.TrimRight(publicBaseURL, "/")}
}

// InvitesNow reports whether recipients built with k are written with
// their invitation claimed for the caller to send at once (still pending:
// a recipient is invite_sent only once the invitation went out): the
// caller sends invitations, the campaign is sending (not paused) and its
// template's invitation is due with no delay. Otherwise they are written
// pending with the invitation scheduled (when the template has one).
func (k Kit) InvitesNow() bool {
	t, ok := k.Emails["addressConfirmation"]
	return k.Invite && k.Campaign.SendsEmails && ok && t.DelayHours <= 0
}

// IDs name a new recipient, its organization and its two pages: storage
// derives the recipient's id from its campaign and contact (so a contact is
// a recipient of a campaign at most once) and draws the page ids.
type IDs struct {
	OrgID, RecipientID, LandingPageID, ClaimPageID string
}

// Build is a pending recipient of k's campaign for contact, named by ids,
// its invitation claimed at its creation for the writer to send
// (ClaimInvitation) when k.InvitesNow.
func (k Kit) Build(ids IDs, contact gifting.Contact, sourceType, sourceID string, now time.Time) Recipient {
	c := k.Campaign
	r := New(NewSpec{
		RecipientID: ids.RecipientID, OrgID: ids.OrgID, CampaignID: c.CampaignID, CampaignName: c.Name,
		Contact: contact, SourceType: sourceType, SourceID: sourceID,
		LandingPageID: ids.LandingPageID, ClaimPageID: ids.ClaimPageID, PublicBaseURL: k.PublicBaseURL,
		Emails: k.Emails, Gift: k.Gift, Credits: c.Price, Now: now,
		ClaimExpiresInDays: c.ClaimExpiryDays,
	})
	if k.AssignTo.UserID != "" {
		r.AssignedUsers = []AssignedUser{k.AssignTo}
	}
	if k.InvitesNow() {
		r.ClaimInvitation(r.CreatedAt)
	}
	return r
}

// Stored is r, a new recipient built with k, as first stored (version 1),
// written by the launch slice slice ("" for none). A recipient without an
// email set carries the delays of its event emails itself.
func (k Kit) Stored(r Recipient, slice string) Stored {
	s := Stored{Recipient: r, Version: 1, EmailSet: k.EmailSet, Slice: slice}
	if k.EmailSet == "" {
		s.Delays = EventDelays(k.Emails)
	}
	return s
}

// EventDelays are the delays (hours) of the event-driven emails of a
// template's emails.
func EventDelays(emails map[string]gifting.EmailTemplate) map[string]int {
	d := map[string]int{}
	for _, kind := range []string{"shipped", "postDelivery", "postAcknowledgement"} {
		if t, ok := emails[kind]; ok {
			d[kind] = t.DelayHours
		}
	}
	return d
}
