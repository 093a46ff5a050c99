package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/recipient"
)

// previewRoutes are the email previews of a template (docs/email.md,
// "Previewing an email"): a read of the organization's own data.
func (s *Server) previewRoutes() []route {
	return []route{{pattern: "GET /api/campaigns/templates/{templateId}/preview", handle: s.previewEmail}}
}

// previewDTO is one email as it would go out: its subject, both parts,
// and who it says it is from.
type previewDTO struct {
	Kind     string `json:"email"`
	Subject  string `json:"subject"`
	HTML     string `json:"html"`
	Text     string `json:"text"`
	FromName string `json:"fromName"`
	ReplyTo  string `json:"replyTo"`
}

// previewEmail serves GET /templates/{templateId}/preview?email=<kind>
// [&campaignId=…]: the template's email of that kind for a sample
// recipient, rendered by the same code as the emails sent
// (recipient.ComposeEmail), with the organization's branding and, when a
// campaign is named, its note and gifts.
func (s *Server) previewEmail(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	kind, campaignID, locale := q.str("email"), q.str("campaignId"), q.str("locale")
	if kind == "" {
		q.problems.Add("email", "is required: one of the kinds of email, e.g. addressConfirmation")
	}
	if locale != "" {
		var err error
		if locale, err = i18n.Canonical(locale); err != nil {
			q.problems.Add("locale", err.Error())
		}
	}
	if err := q.err(); err != nil {
		return err
	}
	orgID := principal(r.Context()).OrgID
	t, err := s.catalog.Template(r.Context(), orgID, r.PathValue("templateId"))
	if err != nil {
		return err
	}
	emails := make(map[string]gifting.EmailTemplate, len(t.TemplateData.Emails))
	for k, e := range t.TemplateData.Emails {
		emails[k] = gifting.EmailTemplate(e)
	}
	g := t.TemplateData.Goal
	m, err := s.recipients.Preview(r.Context(), orgID, campaignID, kind,
		recipient.PreviewTemplate{Emails: emails, TemplateOrg: t.OrganizationID, Logo: g.Logo, LogoColor: g.LogoColor, Locale: locale})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Email preview rendered",
		previewDTO{Kind: kind, Subject: m.Subject, HTML: m.HTML, Text: m.Text, FromName: m.FromName, ReplyTo: m.ReplyTo})
	return nil
}
