package httpapi

import (
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wire"
)

// lifecycleRoutes are the campaign actions of the state machine a user
// performs: pause (live → in_progress), resume (in_progress → live) and
// complete (live or in_progress → completed).
func (s *Server) lifecycleRoutes() []route {
	out := make([]route, len(campaign.Actions))
	for i, act := range campaign.Actions {
		out[i] = route{pattern: "POST /api/campaigns/{campaignId}/" + act.Name, handle: s.campaignAction(act)}
		if act.Name == campaign.Complete.Name {
			// Completing expires the unclaimed recipients: their credits
			// come back.
			out[i].scope = gifting.ScopeSpend
		}
	}
	return out
}

// lifecycleBody is the optional body of a campaign action.
type lifecycleBody struct {
	// Reason says why; it becomes the campaign's reason.
	Reason string `json:"reason"`
}

// campaignAction is the handler of act: an optional body {reason}, one
// conditional transaction with its change record (campaign.App.Move:
// completing also starts the expiry of the unclaimed recipients), the
// campaign as written in an envelope.
func (s *Server) campaignAction(act campaign.Action) func(w http.ResponseWriter, r *http.Request) error {
	message := "Campaign " + act.Done
	return func(w http.ResponseWriter, r *http.Request) error {
		var body lifecycleBody
		if r.ContentLength != 0 {
			if err := decode(w, r, &body); err != nil {
				return err
			}
		}
		reason := strings.TrimSpace(body.Reason)
		if utf8.RuneCountInString(reason) > campaign.MaxReason {
			var p gifting.Problems
			p.Add("reason", fmt.Sprintf("must be at most %d characters", campaign.MaxReason))
			return p.Err()
		}
		p := principal(r.Context())
		c, err := s.campaigns.Move(r.Context(), p.OrgID, r.PathValue("campaignId"), act, p.UserID, reason)
		if err != nil {
			return err
		}
		writeEnvelope(w, http.StatusOK, message, wire.CampaignOf(c))
		return nil
	}
}
