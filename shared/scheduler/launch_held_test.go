package scheduler_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
)

// TestDraftRecipientsInvitedAtLaunch: a recipient added to a draft, whose
// invitation the ticks put off (recipient.EmailHold) while the campaign
// was a draft, is invited by the tick after the launch's job starts, as
// the launched contacts are, not when its hold runs out (SES emulator).
func TestDraftRecipientsInvitedAtLaunch(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	c := e.scheduledDraft(e.orgID, "ann") // launches an hour from now
	e.add(c, "dora")
	e.clock.Advance(55 * time.Minute)
	e.tick() // a draft: dora's invitation is held EmailHold, until 65 minutes
	e.wantSubjects("dora")

	e.clock.Advance(5 * time.Minute)
	e.tick() // scheduledAt: launches
	if got := e.campaignOf(e.orgID, c.CampaignID); got.Status == campaign.Draft {
		t.Fatalf("status %s after scheduledAt, want launched", got.Status)
	}
	e.clock.Advance(dynamo.DueLease)
	e.tick() // no queue here: the tick runs the launch job, which releases dora
	e.clock.Advance(time.Minute)
	e.tick()
	// 62 minutes: dora's hold (55 + EmailHold) has 3 minutes to run.
	e.wantSubjects("dora", invitation)
	e.wantSubjects("ann", invitation)
}
