package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/giftcodes"
)

// The code pools of digital gifts (shared/giftcodes): the catalog group
// serves them beside the gifts. No response ever holds a code: an upload
// reports each code by its masked last four characters, the summary
// counts.
func (s *Server) giftCodeRoutes() []route {
	return []route{
		{pattern: "POST /api/campaigns/gifts/{giftId}/codes", handle: s.uploadCodes},
		{pattern: "GET /api/campaigns/gifts/{giftId}/codes/summary", handle: s.codesSummary},
	}
}

// codesBody is the body of POST /gifts/{giftId}/codes.
type codesBody struct {
	Codes []codeInput `json:"codes"`
}

type codeInput struct {
	Code      string     `json:"code"`
	PIN       string     `json:"pin"`
	URL       string     `json:"url"`
	ExpiresAt *time.Time `json:"expiresAt"`
}

// codeItemDTO is one code's outcome in an upload's report.
type codeItemDTO struct {
	Index   int               `json:"index"`
	Status  string            `json:"status"`
	Code    string            `json:"code"`
	Reason  string            `json:"reason,omitempty"`
	Details map[string]string `json:"details,omitempty"`
}

type codesReportDTO struct {
	Received int           `json:"received"`
	Added    int           `json:"added"`
	Failed   int           `json:"failed"`
	Results  []codeItemDTO `json:"results"`
}

// maxCodesBody bounds an upload's body: 1,000 codes of the longest fields
// are under 3 MB.
const maxCodesBody = 3 << 20

// uploadCodes serves POST /gifts/{giftId}/codes: 201 when every code was
// added, 207 with each code's outcome when some were refused (the
// bulk add's style).
func (s *Server) uploadCodes(w http.ResponseWriter, r *http.Request) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxCodesBody)
	var in codesBody
	if err := decode(w, r, &in); err != nil {
		return err
	}
	codes := make([]giftcodes.Code, len(in.Codes))
	for i, c := range in.Codes {
		codes[i] = giftcodes.Code(c)
	}
	rep, err := s.svc.GiftCodes().Upload(r.Context(), principal(r.Context()).OrgID, r.PathValue("giftId"), codes)
	if err != nil {
		return err
	}
	data := codesReportDTO{Received: len(codes), Added: rep.Added, Failed: rep.Failed, Results: make([]codeItemDTO, len(rep.Items))}
	for i, it := range rep.Items {
		data.Results[i] = codeItemDTO{Index: it.Index, Status: it.Status, Code: it.Masked, Reason: it.Reason, Details: it.Details}
	}
	if rep.Failed > 0 {
		writeJSON(w, http.StatusMultiStatus, Envelope{Success: false, StatusCode: http.StatusMultiStatus,
			Message: fmt.Sprintf("%d of %d codes were not added; see data.results", rep.Failed, len(codes)), Data: data})
		return nil
	}
	writeEnvelope(w, http.StatusCreated, "Codes added", data)
	return nil
}

// codesSummaryDTO counts a digital gift's codes.
type codesSummaryDTO struct {
	GiftID    string `json:"giftId"`
	Total     int    `json:"total"`
	Available int    `json:"available"`
	Assigned  int    `json:"assigned"`
	Expired   int    `json:"expired"`
}

// codesSummary serves GET /gifts/{giftId}/codes/summary.
func (s *Server) codesSummary(w http.ResponseWriter, r *http.Request) error {
	sum, err := s.svc.GiftCodes().Summary(r.Context(), principal(r.Context()).OrgID, r.PathValue("giftId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Code counts", codesSummaryDTO(sum))
	return nil
}
