package recipient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/mail"
)

// PreviewTemplate is the template an email preview renders: its emails,
// the organization owning it and its goal's logo and colour; and the
// sample recipient's locale ("" for none: English).
type PreviewTemplate struct {
	Emails                       map[string]gifting.EmailTemplate
	TemplateOrg, Logo, LogoColor string
	Locale                       string
}

// Sample data of a preview: a recipient, its page ids, and the gift shown
// when no campaign is named (one of the demo images the pages serve).
const (
	SampleFirstName = "Grace"
	SampleLastName  = "Hopper"
	SampleCompany   = "Example Co"
	SamplePageID    = "preview"
	sampleGiftImage = "/assets/gifts/gift-box.png"
)

// SampleRecipient is the recipient a preview is rendered for: a sample
// contact, the campaign's name, pages under publicBaseURL named
// SamplePageID, a gift chosen and shipped (so every kind of email has its
// values), and the emails of emails rendered as a real recipient's are.
func SampleRecipient(publicBaseURL, campaignName string, emails map[string]gifting.EmailTemplate) Recipient {
	now := time.Now().UTC()
	r := Recipient{
		ContactDetails: ContactDetails{FirstName: SampleFirstName, LastName: SampleLastName, Company: SampleCompany, Email: "grace@example.com"},
		CampaignName:   campaignName, Status: gifting.RecipientShipped, CreatedAt: now, UpdatedAt: now,
		URLs:         URLs{LandingPage: publicBaseURL + "/gift/" + SamplePageID, ClaimPage: publicBaseURL + "/claim/" + SamplePageID},
		ShipmentInfo: map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784"},
	}
	r.Emails.Shipped.Active = true
	r.RenderEmails(emails)
	return r
}

// Preview renders the email kind of template t for the sample recipient
// with the organization's branding, exactly as ComposeEmail renders a
// real one: with campaignID's note, name and gifts when it is not "",
// else a sample gift. Errors: VALIDATION_FAILED (no such kind of email),
// NOT_FOUND (the campaign).
func (a *App) Preview(ctx context.Context, orgID, campaignID, kind string, t PreviewTemplate) (mail.Message, error) {
	if _, ok := EmailLayouts[kind]; !ok {
		return mail.Message{}, gifting.Problems{"email": fmt.Sprintf("must be one of %s", strings.Join(gifting.EmailKinds, ", "))}.Err()
	}
	mc, err := a.store.MailContext(ctx, orgID, campaignID)
	if errors.Is(err, ErrNoCampaign) {
		return mail.Message{}, gifting.NotFound("campaign", campaignID)
	}
	if err != nil {
		return mail.Message{}, err
	}
	mc.PublicBaseURL, mc.TemplateOrg, mc.Logo, mc.LogoColor = a.cfg.PublicBaseURL, t.TemplateOrg, t.Logo, t.LogoColor
	name := "Sample campaign"
	if campaignID == "" {
		mc.Gifts = []gifting.Gift{{Name: "Your gift", ImageURLs: []string{sampleGiftImage}}}
	} else {
		name = mc.CampaignName
	}
	r := SampleRecipient(a.cfg.PublicBaseURL, name, nil)
	r.ContactDetails.Locale = t.Locale
	r.RenderEmails(t.Emails)
	if r.Emails.Kind(kind).Subject == "" {
		return mail.Message{}, gifting.Problems{"email": "the template has no " + kind + " email"}.Err()
	}
	if kind != "shipped" && kind != "postDelivery" && kind != "postAcknowledgement" {
		r.SelectedGift = SelectedGift{} // before the claim: the campaign's gifts
	} else if len(mc.Gifts) > 0 {
		g := mc.Gifts[0]
		r.SelectedGift = SelectedGift{GiftID: g.GiftID, Name: g.Name}
		if len(g.ImageURLs) > 0 {
			r.SelectedGift.ImageURL = g.ImageURLs[0]
		}
	}
	return ComposeEmail(r, kind, mc)
}
