package recipient

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/giftcampaign/service/shared/gifting"
)

// MaxMessage bounds a sender's note (add-recipient's message, a
// campaign's default message), MaxSenderName the name it is signed with.
const (
	MaxMessage    = 1000
	MaxSenderName = 100
)

// NotePlaceholders are the placeholders a note may use, filled for each
// recipient (Recipient.Note).
var NotePlaceholders = []string{"firstName", "companyName", "senderName"}

// placeholder finds {{…}} in a note, whatever is between the braces.
var placeholder = regexp.MustCompile(`\{\{([^{}]*)\}\}`)

// CheckNote records in p the problems of a note sent as field: too long,
// or a placeholder other than NotePlaceholders (a typo would otherwise
// reach every recipient as written).
func CheckNote(p *gifting.Problems, field, text string) {
	if p.AtMost(field, text, MaxMessage) {
		return
	}
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		if !slices.Contains(NotePlaceholders, m[1]) {
			p.Add(field, fmt.Sprintf("has the unknown placeholder %s; a note may use {{firstName}}, {{companyName}} and {{senderName}}", m[0]))
			return
		}
	}
}

// CheckSenderName records in p the problem of a sender name sent as field:
// too long, or holding a line break or other control character (it goes
// into the invitation's text).
func CheckSenderName(p *gifting.Problems, field, name string) {
	if !p.AtMost(field, name, MaxSenderName) && strings.ContainsFunc(name, unicode.IsControl) {
		p.Add(field, "must not contain control characters such as line breaks")
	}
}

// Note is the sender's note to r, as plain text: its own message, else
// campaignMessage (the campaign's default), with the placeholders filled
// for r ({{senderName}} with SenderName(sender)). Whoever shows it
// escapes it (the pages and emails render it with html/template), so a
// name such as <script> shows as text.
func (r Recipient) Note(campaignMessage, sender string) string {
	text := r.Personalization.Message
	if text == "" {
		text = campaignMessage
	}
	if text == "" {
		return ""
	}
	first := r.ContactDetails.FirstName
	if first == "" {
		first = "there"
	}
	return fill(text, map[string]string{"firstName": first, "companyName": r.ContactDetails.Company, "senderName": r.SenderName(sender)})
}

// SenderName is who r's gift is from: the sender named when r was added,
// else sender (the organization's branding).
func (r Recipient) SenderName(sender string) string {
	return cmp.Or(r.Personalization.SenderName, sender)
}
