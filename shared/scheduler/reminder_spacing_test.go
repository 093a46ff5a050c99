package scheduler_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestRemindersKeepTheirDistanceFromALateEmail: a recipient whose
// invitation went out late (added to a draft launched days later, or held
// while its campaign was paused) gets the invitation alone and its
// reminders as long after it as the template says (72 and 168 hours); a
// first reminder held by a pause is not followed by the second in the same
// tick either.
func TestRemindersKeepTheirDistanceFromALateEmail(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	tests := []struct {
		name, who string
		// hold is the state the campaign is in for 8 days after the
		// recipient is added: before the invitation, or after it.
		start, hold campaign.Status
		// want are the emails when the campaign is live again, then 72
		// hours later, then 96 more.
		want [3][]string
	}{
		{"added to a draft launched 8 days later", "draft", campaign.Draft, campaign.Draft,
			[3][]string{{invitation}, {invitation, reminder1}, {invitation, reminder1, reminder2}}},
		{"added while paused, resumed 8 days later", "paused", campaign.InProgress, campaign.InProgress,
			[3][]string{{invitation}, {invitation, reminder1}, {invitation, reminder1, reminder2}}},
		{"invited, then paused for 8 days", "invited", campaign.Live, campaign.InProgress,
			[3][]string{{invitation, reminder1}, {invitation, reminder1}, {invitation, reminder1, reminder2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.campaign(campaign.Draft)
			if tt.start != campaign.Draft {
				testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, tt.start)
			}
			res := e.add(c, tt.who)
			testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, tt.hold)
			e.clock.Advance(8 * 24 * time.Hour) // past both reminders' times
			e.tick()
			testenv.SetCampaignStatus(t, e.store, e.orgID, c.CampaignID, campaign.Live)
			e.clock.Advance(recipient.EmailHold)
			e.tick()
			e.tick()
			e.wantSubjects(tt.who, tt.want[0]...)
			e.clock.Advance(72 * time.Hour)
			e.tick()
			e.wantSubjects(tt.who, tt.want[1]...)
			e.clock.Advance(96 * time.Hour)
			e.tick()
			e.wantSubjects(tt.who, tt.want[2]...)
			if r := e.recipient(c.CampaignID, res.Response.RecipientID); r.Status != gifting.RecipientInviteSent {
				t.Errorf("status %s, want invite_sent", r.Status)
			}
		})
	}
}

// TestDeletedCampaignsEmailsLeaveTheDueIndex: a claimed recipient whose
// thank-you email was scheduled when its campaign was deleted gets no
// email, and leaves the due index instead of being claimed, read and put
// back every minute for ever.
func TestDeletedCampaignsEmailsLeaveTheDueIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newMailEnv(t)
	c := e.campaign(campaign.Live)
	jane := e.add(c, "deleted")
	id := jane.Response.RecipientID
	testenv.Claim(t, e.store, e.orgID, c.CampaignID, id)
	testenv.Ship(t, e.store, e.orgID, c.CampaignID, id) // its order ships first (issue 31)
	for _, to := range []gifting.RecipientStatus{gifting.RecipientDelivered, gifting.RecipientAcknowledged} {
		if _, err := e.svc.Recipients().Move(ctx, e.orgID, c.CampaignID, id, to); err != nil {
			t.Fatal(err)
		}
	}
	e.tick()
	e.wantSubjects("deleted", invitation, delivered) // the thank-you waits 24 hours
	if _, err := testenv.Campaigns(e.store).Delete(ctx, e.orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(24 * time.Hour)
	e.tick()
	for range 3 {
		e.clock.Advance(dynamo.DueLease)
		e.tick()
	}
	e.wantSubjects("deleted", invitation, delivered)
	due, err := e.store.DueItems(ctx, e.clock.Now().Add(365*24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		if d.OrgID == e.orgID && strings.Contains(d.Ref, id) {
			t.Errorf("the deleted campaign's recipient is still due (%s at %s)", d.Kind, d.At)
		}
	}
}
