package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/gifting"
)

// launchAccepted is the message of an accepted launch.
const launchAccepted = "Campaign launch accepted; the campaign is preparing"

// launchCampaign accepts a launch (service.LaunchCampaign): the credits
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
	l, stored, err := s.svc.LaunchCampaign(ctx, p.OrgID, id, p.UserID,
		idempotent(idem, http.StatusAccepted, launchAccepted, func(l gifting.Launch) any { return l }))
	if err != nil || stored != nil {
		return writeStored(w, stored, err)
	}
	writeEnvelope(w, http.StatusAccepted, launchAccepted, l)
	return nil
}
