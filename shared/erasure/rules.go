package erasure

import (
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// AddContact records the personal values of contact c: every address,
// name, phone, postal address line, profile link, note and tag.
func (p *Person) AddContact(c gifting.Contact) {
	p.Add(c.MailID, c.FirstName, c.LastName, c.FullName, c.PhoneNumber, c.LinkedinURL, c.ProfileImage, c.Notes,
		c.JobTitle, c.Address.Line1, c.Address.Line2, c.Address.Zip, c.Address.City)
	for _, e := range c.Emails {
		p.Add(e.Email)
	}
	for _, a := range c.Addresses {
		p.Add(a.Line1, a.Line2, a.Zip, a.City)
	}
	for _, t := range c.Tags {
		p.Add(t.Name)
	}
}

// AddRecipient records what recipient r holds of the person beyond the
// contact's copy: the shipping address they typed and their feedback.
func (p *Person) AddRecipient(r recipient.Recipient) {
	d := r.ContactDetails
	p.Add(d.Email, d.FirstName, d.LastName, d.Phone, d.LinkedInURL, d.ProfileImage, d.JobTitle,
		d.AddressLine1, d.AddressLine2, d.Zip, d.City)
	if a := r.Address; a != nil {
		p.Add(a.Line1, a.Line2, a.Zip, a.City, a.PhoneNumber)
	}
	for _, m := range r.Feedback.Message {
		p.Add(m.Text, m.URL)
	}
}

// Recipient is recipient r with the person erased: its copy of the contact
// and its shipping address replaced field by field (the country, which
// tells the gift's route and not the person, stays), its feedback texts
// and links replaced (the rating and the times stay: they are the
// campaign's figures, not the person), the rest of its text scrubbed, and
// every email not sent yet stopped, so nothing is mailed to the erased
// address. Its ids, status, gift and credits stay: they are money records.
func Recipient(r recipient.Recipient, s *Scrubber) recipient.Recipient {
	d := &r.ContactDetails
	*d = recipient.ContactDetails{ContactID: d.ContactID, FirstName: Erased, LastName: Erased, Email: ErasedEmail,
		Country: d.Country}
	if a := r.Address; a != nil {
		r.Address = &recipient.ShippingAddress{Line1: Erased, City: Erased, Zip: Erased, Country: a.Country}
	}
	for i := range r.Feedback.Message {
		m := &r.Feedback.Message[i]
		if m.Text != "" {
			m.Text = Erased
		}
		if m.URL != "" {
			m.URL = Erased
		}
	}
	if v, changed := s.Value(map[string]any(r.Personalization.GiftCard)); changed {
		r.Personalization.GiftCard = v.(map[string]any)
	}
	if v, changed := s.Value(map[string]any(r.ShipmentInfo)); changed {
		r.ShipmentInfo = v.(map[string]any)
	}
	for _, e := range []*recipient.EmailSchedule{&r.Emails.AddressConfirmation, &r.Emails.Reminder1, &r.Emails.Reminder2,
		&r.Emails.Shipped, &r.Emails.PostDelivery, &r.Emails.PostAcknowledgement} {
		if !e.Sent {
			e.Active = false
		}
		e.HTML, _ = s.String(e.HTML)
		e.Subject, _ = s.String(e.Subject)
	}
	return r
}

// MessageIDs are the mail provider's ids of the emails sent to r: each
// names a message item (the bounce and complaint lookup) to scrub.
func MessageIDs(r recipient.Recipient) []string {
	var ids []string
	for _, e := range []recipient.EmailSchedule{r.Emails.AddressConfirmation, r.Emails.Reminder1, r.Emails.Reminder2,
		r.Emails.Shipped, r.Emails.PostDelivery, r.Emails.PostAcknowledgement} {
		if e.MessageID != "" {
			ids = append(ids, e.MessageID)
		}
	}
	return ids
}
