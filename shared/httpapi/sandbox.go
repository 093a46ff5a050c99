package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wire"
)

// sandboxRoutes are the sandbox's own routes (docs/sandbox.md), served by
// the recipients group, whose function sends (and so captures) email and
// holds the recipient and wallet code they call. A live key is refused
// them (403 TEST_KEY_REQUIRED) before anything is read.
func (s *Server) sandboxRoutes() []route {
	spend := gifting.ScopeSpend
	return []route{
		{pattern: "POST /api/campaigns/sandbox/reset", handle: s.resetSandbox, scope: spend},
		{pattern: "GET /api/campaigns/sandbox/emails", handle: s.sandboxEmails},
		{pattern: "POST /api/campaigns/sandbox/recipients/{recipientId}/advance", handle: s.advanceRecipient, scope: spend},
	}
}

// sandboxWallet is the data of a reset (SandboxReset).
type sandboxWallet struct {
	Balance  int64  `json:"balance"`
	Currency string `json:"currency"`
}

func (s *Server) resetSandbox(w http.ResponseWriter, r *http.Request) error {
	wl, err := s.sandbox.Reset(r.Context(), principal(r.Context()))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "sandbox wallet reset", sandboxWallet{Balance: wl.Balance, Currency: wl.Currency})
	return nil
}

func (s *Server) sandboxEmails(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	if err := access.RequireTestKey(p); err != nil {
		return err
	}
	q := newQuery(r)
	limit, cursor := q.integer("limit", 20, 1, 100), q.filter("cursor")
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.sandbox.Emails(r.Context(), p, cursor, limit)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "captured emails, newest first", page)
	return nil
}

// advanceBody is the body of a sandbox's advance.
type advanceBody struct {
	Status     gifting.RecipientStatus `json:"status"`
	CampaignID string                  `json:"campaignId"`
}

func (s *Server) advanceRecipient(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	if err := access.RequireTestKey(p); err != nil {
		return err
	}
	var body advanceBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	rc, err := s.sandbox.Advance(r.Context(), p, body.CampaignID, r.PathValue("recipientId"), body.Status)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "recipient advanced to "+string(rc.Status), wire.RecipientOf(rc))
	return nil
}
