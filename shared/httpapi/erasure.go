package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/gifting"
)

// erasureRoutes are the erasure of a person (docs/erasure.md): an admin
// call, since it destroys data no other call can bring back.
func (s *Server) erasureRoutes() []route {
	return []route{
		{pattern: "POST /api/campaigns/contacts/{contactId}/erase", handle: s.eraseContact, scope: gifting.ScopeAdmin},
		{pattern: "GET /api/campaigns/contacts/{contactId}/erasure", handle: s.getErasure, scope: gifting.ScopeAdmin},
	}
}

// erasureDTO is an erasure's receipt: what kinds of records were erased
// and how many of each, and where to read it again.
type erasureDTO struct {
	ContactID  string         `json:"contactId"`
	Status     string         `json:"status"`
	StartedAt  time.Time      `json:"startedAt"`
	FinishedAt *time.Time     `json:"finishedAt"`
	Erased     map[string]int `json:"erased"`
	ReceiptURL string         `json:"receiptUrl"`
}

func erasureOf(j erasure.Job) erasureDTO {
	erased := make(map[string]int, len(erasure.Steps))
	for _, k := range erasure.Steps {
		erased[k] = j.Erased[k]
	}
	return erasureDTO{ContactID: j.ContactID, Status: j.Status, StartedAt: j.StartedAt, FinishedAt: j.FinishedAt,
		Erased: erased, ReceiptURL: erasureURL(j.ContactID)}
}

func erasureURL(contactID string) string { return "/api/campaigns/contacts/" + contactID + "/erasure" }

// eraseContact serves POST /contacts/{contactId}/erase: 200 with the
// receipt when the erasure is done (now or before: a repeated request
// changes nothing), 202 with it while the job still runs.
func (s *Server) eraseContact(w http.ResponseWriter, r *http.Request) error {
	j, err := s.svc.Erase(r.Context(), principal(r.Context()).OrgID, r.PathValue("contactId"))
	if err != nil {
		return err
	}
	w.Header().Set("Location", erasureURL(j.ContactID))
	if j.Status != erasure.Done {
		writeEnvelope(w, http.StatusAccepted, "Erasure running", erasureOf(j))
		return nil
	}
	writeEnvelope(w, http.StatusOK, "Contact erased", erasureOf(j))
	return nil
}

// getErasure serves GET /contacts/{contactId}/erasure: the receipt.
func (s *Server) getErasure(w http.ResponseWriter, r *http.Request) error {
	contactID := r.PathValue("contactId")
	if !gifting.ValidID(contactID) {
		return gifting.NotFound("contact", contactID)
	}
	j, err := s.svc.ErasureReceipt(r.Context(), principal(r.Context()).OrgID, contactID)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Erasure receipt", erasureOf(j))
	return nil
}
