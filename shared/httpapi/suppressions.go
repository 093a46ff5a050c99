package httpapi

import (
	"net/http"
	"regexp"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// The organization's suppression list (shared/suppression): the addresses
// it never mails again. The contacts group serves it.
func (s *Server) suppressionRoutes() []route {
	return []route{
		{pattern: "GET /api/campaigns/suppressions", handle: s.listSuppressions},
		{pattern: "POST /api/campaigns/suppressions", handle: s.addSuppression},
		{pattern: "DELETE /api/campaigns/suppressions", handle: s.removeSuppression},
	}
}

// suppressionDTO is one suppressed address on the wire.
type suppressionDTO struct {
	Email        string    `json:"email"`
	Reason       string    `json:"reason"`
	SuppressedAt time.Time `json:"suppressedAt"`
}

type suppressionList struct {
	Items      []suppressionDTO `json:"items"`
	NextCursor string           `json:"nextCursor"`
}

// suppressionCursor is a page position: the hex key of the last address
// read (a keyed hash, or a plain SHA-256 not yet migrated: it names no
// address).
var suppressionCursor = regexp.MustCompile(`^[0-9a-f]{64}$`)

// listSuppressions serves GET /suppressions: a page of up to limit entries
// (default 50), in no order a reader would recognise but a stable one,
// paged by nextCursor; with email, that address's entry alone (an
// address travels in the query, not the path: paths name ids).
func (s *Server) listSuppressions(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	if q.v.Has("email") {
		return s.getSuppression(w, r, q.str("email"))
	}
	limit := q.integer("limit", 50, 1, 100)
	cursor := q.str("cursor")
	if cursor != "" && !suppressionCursor.MatchString(cursor) {
		q.problems.Add("cursor", "is not a nextCursor of this list")
	}
	if err := q.err(); err != nil {
		return err
	}
	entries, next, err := s.suppressions.List(r.Context(), principal(r.Context()).OrgID, cursor, limit)
	if err != nil {
		return err
	}
	out := suppressionList{Items: make([]suppressionDTO, len(entries)), NextCursor: next}
	for i, e := range entries {
		out.Items[i] = suppressionDTO(e)
	}
	writeEnvelope(w, http.StatusOK, "Suppressed addresses", out)
	return nil
}

// addSuppression serves POST /suppressions {email}: 201 with the entry
// when the address was added, 200 with the entry it had when it was on
// the list already (its first reason stays).
func (s *Server) addSuppression(w http.ResponseWriter, r *http.Request) error {
	var in struct {
		Email string `json:"email"`
	}
	if err := decode(w, r, &in); err != nil {
		return err
	}
	e, added, err := s.suppressions.Add(r.Context(), principal(r.Context()).OrgID, in.Email)
	if err != nil {
		return err
	}
	if added {
		writeEnvelope(w, http.StatusCreated, "Address suppressed", suppressionDTO(e))
	} else {
		writeEnvelope(w, http.StatusOK, "Address already suppressed", suppressionDTO(e))
	}
	return nil
}

// getSuppression answers GET /suppressions?email=: a page holding the
// address's entry, or none when it is not suppressed.
func (s *Server) getSuppression(w http.ResponseWriter, r *http.Request, address string) error {
	e, err := s.suppressions.Get(r.Context(), principal(r.Context()).OrgID, address)
	out := suppressionList{Items: []suppressionDTO{}}
	switch {
	case err == nil:
		out.Items = append(out.Items, suppressionDTO(e))
	case gifting.ErrorCode(err) != gifting.CodeNotFound:
		return err
	}
	writeEnvelope(w, http.StatusOK, "Suppressed addresses", out)
	return nil
}

// removeSuppression serves DELETE /suppressions?email=: a bounced or
// manually added address comes off the list; one whose owner complained
// or unsubscribed is a 409.
func (s *Server) removeSuppression(w http.ResponseWriter, r *http.Request) error {
	e, err := s.suppressions.Remove(r.Context(), principal(r.Context()).OrgID, r.URL.Query().Get("email"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Address no longer suppressed", map[string]any{"email": e.Email, "isDeleted": true})
	return nil
}
