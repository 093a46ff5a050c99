package testenv

import (
	"context"
	"log/slog"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
)

// CreateCampaign stores c as orgID's new draft as it is given: its
// references are not checked and its price is not fixed (the campaign
// slice's Create does both), so a test can set up a draft the API would
// refuse, or one priced as the test needs.
func CreateCampaign(ctx context.Context, s *dynamo.Store, orgID string, c campaign.Campaign) (campaign.Campaign, error) {
	c = campaign.DecideCreate(orgID, c, s.NewID(), s.Now())
	return c, s.CommitCreate(ctx, campaign.CreatePlan{OrgID: orgID, Campaign: c})
}

// Campaigns is the campaign slice's use cases over s, with no job queue
// (an accepted launch waits for the test to run its slices) and no mailer
// (a launch's recipients are written pending, their invitation
// scheduled) unless invite is given; recipients' pages are under
// https://gifts.test.
func Campaigns(s *dynamo.Store, invite ...campaign.Inviter) *campaign.App {
	cfg := campaign.Config{PublicBaseURL: "https://gifts.test", Logger: func(context.Context) *slog.Logger { return Quiet }}
	if len(invite) > 0 {
		cfg.Inviter = invite[0]
	}
	return campaign.NewApp(s, cfg)
}

// LaunchCampaign accepts the launch of a draft of orgID without an
// idempotency key (campaign.App.Launch).
func LaunchCampaign(ctx context.Context, s *dynamo.Store, orgID, campaignID, userID string) (campaign.Launch, error) {
	l, _, err := Campaigns(s).Launch(ctx, orgID, campaignID, userID, nil)
	return l, err
}

// Inviter is a campaign.Inviter that sends with a function.
type Inviter func(ctx context.Context, orgID string, inv gifting.Invitation) bool

// SendInvitation sends inv with f.
func (f Inviter) SendInvitation(ctx context.Context, orgID string, inv gifting.Invitation) bool {
	return f(ctx, orgID, inv)
}
