package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// maxReason bounds the reason a user gives for a lifecycle action.
const maxReason = 500

// lifecycleRoutes are the campaign actions of the state machine a user
// performs: pause (live → in_progress), resume (in_progress → live) and
// complete (live or in_progress → completed).
func (s *Server) lifecycleRoutes() []route {
	out := make([]route, len(gifting.CampaignActions))
	for i, act := range gifting.CampaignActions {
		out[i] = route{pattern: "POST /api/campaigns/{campaignId}/" + act.Name, handle: s.campaignAction(act)}
	}
	return out
}

// lifecycleBody is the optional body of a campaign action.
type lifecycleBody struct {
	// Reason says why; it becomes the campaign's reason.
	Reason string `json:"reason"`
}

// campaignAction is the handler of act: an optional body {reason}, one
// conditional transaction with its change record (service.MoveCampaign:
// completing also starts the expiry of the unclaimed recipients), the
// campaign as written in an envelope.
func (s *Server) campaignAction(act gifting.CampaignAction) func(w http.ResponseWriter, r *http.Request) error {
	message := "Campaign " + act.Done
	return func(w http.ResponseWriter, r *http.Request) error {
		var body lifecycleBody
		if r.ContentLength != 0 {
			if err := decode(w, r, &body); err != nil {
				return err
			}
		}
		reason := strings.TrimSpace(body.Reason)
		if utf8.RuneCountInString(reason) > maxReason {
			var p gifting.Problems
			p.Add("reason", fmt.Sprintf("must be at most %d characters", maxReason))
			return p.Err()
		}
		p := principal(r.Context())
		c, err := s.svc.MoveCampaign(r.Context(), p.OrgID, r.PathValue("campaignId"), act, p.UserID, reason)
		if err != nil {
			return err
		}
		writeEnvelope(w, http.StatusOK, message, c)
		return nil
	}
}
