package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) catalogRoutes() []route {
	return []route{
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
	}
}

// giftList is the bare response of GET /gifts.
type giftList struct {
	Data       []gifting.Gift `json:"data"`
	Page       int            `json:"page"`
	Limit      int            `json:"limit"`
	Total      int            `json:"total"`
	TotalPages int            `json:"totalPages"`
	HasNext    bool           `json:"hasNext"`
	HasPrev    bool           `json:"hasPrev"`
}

func (s *Server) listGifts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	f := gifting.GiftFilter{
		Search:        q.search(maxSearch),
		CollectionID:  q.filter("collectionId"),
		IsDelightloop: q.boolean("isDelightloop"),
		Status:        gifting.GiftStatus(q.enum("status", "", giftStatusNames()...)),
	}
	if err := q.err(); err != nil {
		return err
	}
	gifts, total, err := s.store.ListGifts(r.Context(), principal(r.Context()).OrgID, f, page)
	if err != nil {
		return err
	}
	p := gifting.NewPagination(page, total)
	if gifts == nil {
		gifts = []gifting.Gift{}
	}
	writeJSON(w, http.StatusOK, giftList{Data: gifts, Page: p.Page, Limit: p.Limit, Total: p.Total,
		TotalPages: p.TotalPages, HasNext: p.HasNext, HasPrev: p.HasPrev})
	return nil
}

func giftStatusNames() []string {
	out := make([]string, len(gifting.GiftStatuses))
	for i, s := range gifting.GiftStatuses {
		out[i] = string(s)
	}
	return out
}

func (s *Server) getGift(w http.ResponseWriter, r *http.Request) error {
	g, err := s.store.Gift(r.Context(), principal(r.Context()).OrgID, r.PathValue("giftId"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}

// giftInput is the body of POST /gifts: the Gift fields a tenant sets.
type giftInput struct {
	Name             string              `json:"name"`
	Price            *float64            `json:"price"`
	Currency         string              `json:"currency"`
	Inventory        *gifting.Inventory  `json:"inventory"`
	Status           gifting.GiftStatus  `json:"status"`
	ShortDescription string              `json:"shortDescription"`
	Description      string              `json:"description"`
	ImageURLs        []string            `json:"imageUrls"`
	Dimensions       *gifting.Dimensions `json:"dimensions"`
	Weight           *gifting.Weight     `json:"weight"`
	CollectionIDs    []string            `json:"collectionIds"`
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
	if in.Inventory == nil {
		p.Add("inventory", "is required")
	}
	if err := p.Err(); err != nil {
		return err
	}
	g := gifting.Gift{
		Name: in.Name, Price: *in.Price, Currency: in.Currency, Inventory: *in.Inventory, Status: in.Status,
		ShortDescription: in.ShortDescription, Description: in.Description, ImageURLs: in.ImageURLs,
		Dimensions: in.Dimensions, Weight: in.Weight, CollectionIDs: in.CollectionIDs,
	}
	if err := g.Validate(); err != nil {
		return err
	}
	g, err := s.store.CreateGift(r.Context(), principal(r.Context()).OrgID, g)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Gift created", g)
	return nil
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request) error {
	t, err := s.store.Template(r.Context(), principal(r.Context()).OrgID, r.PathValue("templateId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Template retrieved", t)
	return nil
}

// templateInput is the body of POST /templates.
type templateInput struct {
	TemplateName     string               `json:"templateName"`
	TemplateCategory string               `json:"templateCategory"`
	Tags             []string             `json:"tags"`
	SuccessRate      float64              `json:"successRate"`
	TemplateData     gifting.TemplateData `json:"templateData"`
	Description      string               `json:"description"`
	ImageURL         string               `json:"imageUrl"`
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request) error {
	var in templateInput
	if err := decode(w, r, &in); err != nil {
		return err
	}
	t := gifting.Template{
		TemplateName: in.TemplateName, TemplateCategory: in.TemplateCategory, Tags: in.Tags,
		SuccessRate: in.SuccessRate, TemplateData: in.TemplateData, Description: in.Description, ImageURL: in.ImageURL,
	}
	if err := t.Validate(); err != nil {
		return err
	}
	t, err := s.store.CreateTemplate(r.Context(), principal(r.Context()).OrgID, t)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Template created", t)
	return nil
}

// templatesData is the data of GET /templates.
type templatesData struct {
	Items      []gifting.Template `json:"items"`
	Pagination gifting.Pagination `json:"pagination"`
}

// listTemplates serves GET /templates: the organization's own templates
// and the service catalog's, enveloped like GET /contact-lists.
func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	f := gifting.TemplateFilter{
		Search:        q.search(maxSearch),
		Category:      q.filter("templateCategory"),
		IsDelightloop: q.boolean("isDelightloop"),
		SortBy:        q.enum("sortBy", "createdAt", gifting.TemplateSorts...),
		Order:         q.sortOrder(gifting.Desc),
	}
	if len(f.Category) > 100 {
		q.problems.Add("templateCategory", "must be at most 100 characters")
	}
	if err := q.err(); err != nil {
		return err
	}
	ts, total, err := s.store.ListTemplates(r.Context(), principal(r.Context()).OrgID, f, page)
	if err != nil {
		return err
	}
	if ts == nil {
		ts = []gifting.Template{}
	}
	writeEnvelope(w, http.StatusOK, "Templates retrieved", templatesData{Items: ts, Pagination: gifting.NewPagination(page, total)})
	return nil
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request) error {
	var patch gifting.TemplatePatch
	if err := decode(w, r, &patch); err != nil {
		return err
	}
	t, err := s.store.UpdateTemplate(r.Context(), principal(r.Context()).OrgID, r.PathValue("templateId"), patch)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Template updated", t)
	return nil
}

func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("templateId")
	if err := s.svc.DeleteTemplate(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Template deleted", deleted("templateId", id))
	return nil
}

func (s *Server) updateGift(w http.ResponseWriter, r *http.Request) error {
	var patch gifting.GiftPatch
	if err := decode(w, r, &patch); err != nil {
		return err
	}
	g, err := s.store.UpdateGift(r.Context(), principal(r.Context()).OrgID, r.PathValue("giftId"), patch)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Gift updated", g)
	return nil
}

func (s *Server) deleteGift(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("giftId")
	if err := s.svc.DeleteGift(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Gift deleted", deleted("giftId", id))
	return nil
}
