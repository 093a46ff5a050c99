package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// brandingRoutes are the organization's branding (docs/email.md, "How a
// tenant brands its pages and emails"): an organization setting, so the
// admin scope for both reading and writing.
func (s *Server) brandingRoutes() []route {
	admin := gifting.ScopeAdmin
	return []route{
		{pattern: "GET /api/campaigns/organization/branding", handle: s.getBranding, scope: admin},
		{pattern: "PUT /api/campaigns/organization/branding", handle: s.putBranding, scope: admin},
	}
}

// brandingDTO is the branding as the API takes and shows it; a PUT
// replaces it whole, so a field left out is cleared.
type brandingDTO struct {
	DisplayName string `json:"displayName"`
	LogoURL     string `json:"logoUrl"`
	BrandColor  string `json:"brandColor"`
	SenderName  string `json:"senderName"`
	ReplyTo     string `json:"replyTo"`
	FooterText  string `json:"footerText"`
	// DigitalCodesInEmail: a digital gift's code in its delivered email
	// (gifting.Branding.DigitalCodesInEmail); false, the default, links
	// the landing page only.
	DigitalCodesInEmail bool       `json:"digitalCodesInEmail"`
	UpdatedAt           *time.Time `json:"updatedAt"`
}

func brandingOf(b gifting.Branding) brandingDTO {
	return brandingDTO{DisplayName: b.DisplayName, LogoURL: b.LogoURL, BrandColor: b.BrandColor, SenderName: b.SenderName,
		ReplyTo: b.ReplyTo, FooterText: b.FooterText, DigitalCodesInEmail: b.DigitalCodesInEmail, UpdatedAt: b.UpdatedAt}
}

func (s *Server) getBranding(w http.ResponseWriter, r *http.Request) error {
	b, err := s.access.Branding(r.Context(), principal(r.Context()).OrgID)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Branding retrieved", brandingOf(b))
	return nil
}

func (s *Server) putBranding(w http.ResponseWriter, r *http.Request) error {
	var in brandingDTO
	if err := decode(w, r, &in); err != nil {
		return err
	}
	b, err := s.access.SetBranding(r.Context(), principal(r.Context()).OrgID, gifting.Branding{DisplayName: in.DisplayName,
		LogoURL: in.LogoURL, BrandColor: in.BrandColor, SenderName: in.SenderName, ReplyTo: in.ReplyTo, FooterText: in.FooterText,
		DigitalCodesInEmail: in.DigitalCodesInEmail})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Branding saved", brandingOf(b))
	return nil
}
