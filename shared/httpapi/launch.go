package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/campaign"
)

// launchAccepted is the message of an accepted launch.
const launchAccepted = "Campaign launch accepted; the campaign is preparing"

// launchCampaign accepts a launch (campaign.App.Launch): the credits
// are taken and the campaign is preparing when it answers 202; the job
// does the rest.
func (s *Server) launchCampaign(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	p := principal(ctx)
	id := r.PathValue("campaignId")
	idem, err := idempotencyKey(r, "campaign-launch", id, nil)
	if err != nil {
		return err
	}
	l, stored, err := s.campaigns.Launch(ctx, p.OrgID, id, p.UserID,
		idempotent(idem, http.StatusAccepted, launchAccepted, func(l campaign.Launch) any { return toLaunchDTO(l) }))
	if err != nil || stored != nil {
		return writeStored(w, stored, err)
	}
	writeEnvelope(w, http.StatusAccepted, launchAccepted, toLaunchDTO(l))
	return nil
}
