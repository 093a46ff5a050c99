package gifting

import "strings"

// Meeting is a meeting link a template or a campaign carries (a Calendly,
// Cal.com, HubSpot or Chili Piper booking page): the recipient's landing
// page shows it as a call to action, and when Required the claim form
// opens only once the recipient followed it. The pages never link to URL
// directly: they go through their own meeting route, which records the
// click and redirects to the URL stored here, so no address in a request
// can choose where a recipient is sent.
type Meeting struct {
	URL      string `json:"url"`
	Required bool   `json:"required"`
}

// SetMeeting checks m, sent as field, and returns what to store: nil for
// an empty URL (which takes a meeting away), else m with its URL trimmed,
// which must be an https URL of at most MaxURLLength characters.
func SetMeeting(p *Problems, field string, m Meeting) *Meeting {
	m.URL = strings.TrimSpace(m.URL)
	switch {
	case m.URL == "":
		return nil
	case p.AtMost(field+".url", m.URL, MaxURLLength):
	case !strings.HasPrefix(m.URL, "https://") || !ValidURL(m.URL):
		p.Add(field+".url", "must be an https URL, such as https://calendly.com/ada/30min")
	}
	return &m
}

// EffectiveMeeting is the meeting a recipient's page shows: the campaign's
// own, else its template's, else none.
func EffectiveMeeting(own, template *Meeting) *Meeting {
	if own != nil {
		return own
	}
	return template
}
