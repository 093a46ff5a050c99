package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) catalogRoutes() []route {
	return append([]route{
		{pattern: "GET /api/campaigns/gifts", handle: s.listGifts},
		{pattern: "POST /api/campaigns/gifts", handle: s.createGift},
		{pattern: "GET /api/campaigns/gifts/{giftId}", handle: s.getGift},
		{pattern: "PATCH /api/campaigns/gifts/{giftId}", handle: s.updateGift},
		{pattern: "DELETE /api/campaigns/gifts/{giftId}", handle: s.deleteGift},
		{pattern: "GET /api/campaigns/templates", handle: s.listTemplates},
		{pattern: "POST /api/campaigns/templates", handle: s.createTemplate},
		{pattern: "GET /api/campaigns/templates/{templateId}", handle: s.getTemplate},
		{pattern: "PATCH /api/campaigns/templates/{templateId}", handle: s.updateTemplate},
		{pattern: "DELETE /api/campaigns/templates/{templateId}", handle: s.deleteTemplate},
		{pattern: "GET /api/campaigns/openapi.json", handle: s.getOpenAPI, public: true},
		{pattern: "GET /api/campaigns/docs", handle: s.getDocs, public: true},
	}, append(s.giftCodeRoutes(), s.previewRoutes()...)...)
}

// giftList is the bare response of GET /gifts.
type giftList struct {
	Data       []giftDTO `json:"data"`
	Page       int       `json:"page"`
	Limit      int       `json:"limit"`
	Total      int       `json:"total"`
	TotalPages int       `json:"totalPages"`
	HasNext    bool      `json:"hasNext"`
	HasPrev    bool      `json:"hasPrev"`
}

func (s *Server) listGifts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	f := catalog.GiftFilter{
		Search:        q.search(maxSearch),
		CollectionID:  q.filter("collectionId"),
		IsDelightloop: q.boolean("isDelightloop"),
		Status:        catalog.GiftStatus(q.enum("status", "", giftStatusNames()...)),
	}
	if err := q.err(); err != nil {
		return err
	}
	gifts, total, err := s.catalog.ListGifts(r.Context(), principal(r.Context()).OrgID, f, page)
	if err != nil {
		return err
	}
	p := gifting.NewPagination(page, total)
	data := make([]giftDTO, len(gifts))
	for i, g := range gifts {
		data[i] = toGiftDTO(g)
	}
	writeJSON(w, http.StatusOK, giftList{Data: data, Page: p.Page, Limit: p.Limit, Total: p.Total,
		TotalPages: p.TotalPages, HasNext: p.HasNext, HasPrev: p.HasPrev})
	return nil
}

func giftStatusNames() []string {
	out := make([]string, len(catalog.GiftStatuses))
	for i, s := range catalog.GiftStatuses {
		out[i] = string(s)
	}
	return out
}

func (s *Server) getGift(w http.ResponseWriter, r *http.Request) error {
	g, err := s.catalog.Gift(r.Context(), principal(r.Context()).OrgID, r.PathValue("giftId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toGiftDTO(g))
	return nil
}

func (s *Server) createGift(w http.ResponseWriter, r *http.Request) error {
	var in giftInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	var p gifting.Problems
	if in.Price == nil {
		p.Add("price", "is required")
	}
	if in.Inventory == nil && len(in.Variants) == 0 && in.Type != string(catalog.GiftDigital) {
		p.Add("inventory", "is required (unless the gift has variants: their sum is its inventory; or is digital: its codes are)")
	}
	if err := p.Err(); err != nil {
		return err
	}
	g, err := s.catalog.CreateGift(r.Context(), principal(r.Context()).OrgID, in.gift())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Gift created", toGiftDTO(g))
	return nil
}

func (s *Server) updateGift(w http.ResponseWriter, r *http.Request) error {
	var in giftPatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	g, err := s.catalog.UpdateGift(r.Context(), principal(r.Context()).OrgID, r.PathValue("giftId"), in.patch())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Gift updated", toGiftDTO(g))
	return nil
}

func (s *Server) deleteGift(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("giftId")
	if err := s.catalog.DeleteGift(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Gift deleted", deleted("giftId", id))
	return nil
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) error {
	t, err := s.catalog.Template(r.Context(), principal(r.Context()).OrgID, r.PathValue("templateId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Template retrieved", toTemplateDTO(t))
	return nil
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) error {
	var in templateInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	t, err := s.catalog.CreateTemplate(r.Context(), principal(r.Context()).OrgID, in.template())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Template created", toTemplateDTO(t))
	return nil
}

// templatesData is the data of GET /templates.
type templatesData struct {
	Items      []templateDTO      `json:"items"`
	Pagination gifting.Pagination `json:"pagination"`
}

// listTemplates serves GET /templates: the organization's own templates
// and the service catalog's, enveloped like GET /contact-lists.
func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	f := catalog.TemplateFilter{
		Search:        q.search(maxSearch),
		Category:      q.filter("templateCategory"),
		IsDelightloop: q.boolean("isDelightloop"),
		SortBy:        q.enum("sortBy", "createdAt", catalog.TemplateSorts...),
		Order:         q.sortOrder(gifting.Desc),
	}
	if len(f.Category) > 100 {
		q.problems.Add("templateCategory", "must be at most 100 characters")
	}
	if err := q.err(); err != nil {
		return err
	}
	ts, total, err := s.catalog.ListTemplates(r.Context(), principal(r.Context()).OrgID, f, page)
	if err != nil {
		return err
	}
	items := make([]templateDTO, len(ts))
	for i, t := range ts {
		items[i] = toTemplateDTO(t)
	}
	writeEnvelope(w, http.StatusOK, "Templates retrieved", templatesData{Items: items, Pagination: gifting.NewPagination(page, total)})
	return nil
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) error {
	var in templatePatch
	if err := decode(w, r, &in); err != nil {
		return err
	}
	t, err := s.catalog.UpdateTemplate(r.Context(), principal(r.Context()).OrgID, r.PathValue("templateId"), in.patch())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Template updated", toTemplateDTO(t))
	return nil
}

func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("templateId")
	if err := s.catalog.DeleteTemplate(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Template deleted", deleted("templateId", id))
	return nil
}
