package httpapi

import (
	"errors"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wire"
)

// The sender's controls over one recipient (issue 33): send the
// invitation again, give the recipient more time to claim.

// resendInvitation sends a recipient's invitation again. A resend the
// bounds refuse is a 429 with Retry-After while a later one will be
// allowed.
func (s *Server) resendInvitation(w http.ResponseWriter, r *http.Request) error {
	rc, err := s.recipients.Resend(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"), r.PathValue("recipientId"))
	if limited, ok := errors.AsType[*recipient.ResendLimited](err); ok && limited.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(int64(math.Ceil(limited.RetryAfter.Seconds())), 10))
	}
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Invitation sent again", wire.RecipientOf(rc))
	return nil
}

// recipientPatch is the body of PATCH …/recipients/{recipientId}.
type recipientPatch struct {
	ClaimExpiresAt *time.Time `json:"claimExpiresAt"`
}

// updateRecipient moves a recipient's claim expiry.
func (s *Server) updateRecipient(w http.ResponseWriter, r *http.Request) error {
	var body recipientPatch
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if body.ClaimExpiresAt == nil {
		var p gifting.Problems
		p.Add("claimExpiresAt", "is required")
		return p.Err()
	}
	rc, err := s.recipients.ExtendExpiry(r.Context(), principal(r.Context()).OrgID, r.PathValue("campaignId"), r.PathValue("recipientId"), *body.ClaimExpiresAt)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Recipient updated", wire.RecipientOf(rc))
	return nil
}
