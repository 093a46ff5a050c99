package campaign

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestDecideMove: an action moves a campaign in a state it applies to,
// records a message holding the campaign as written, and completing keeps
// the counters as read; any other state is a CONFLICT naming it.
func TestDecideMove(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	live := draft(10)
	live.Status, live.TotalRecipients = Live, 3
	live.LiveData.StatusCounts[gifting.RecipientInviteSent], live.LiveData.CreditsSpent = 3, 30
	r := Read{Campaign: live, Seen: "as stored"}

	p, err := DecideMove(r, "org", Complete, "u2", "done", now)
	if err != nil {
		t.Fatal(err)
	}
	m := p.Moved
	done := m.CompletionData
	if m.Status != Completed || m.Reason != "done" || m.LastUpdatedBy != "u2" || !m.UpdatedAt.Equal(now) ||
		done.CompletedBy != "u2" || *done.TotalRecipients != 3 || *done.CreditsSpent != 30 ||
		done.StatusCounts[gifting.RecipientInviteSent] != 3 {
		t.Errorf("completed %+v", m)
	}
	if p.Seen != "as stored" || p.Message.Type != gifting.ChangeCampaignCompleted || p.Message.Data.(Campaign).Status != Completed {
		t.Errorf("plan %+v: the write must be conditioned on the read and its message hold the campaign written", p)
	}
	live.LiveData.StatusCounts[gifting.RecipientInviteSent] = 4
	if done.StatusCounts[gifting.RecipientInviteSent] != 3 {
		t.Error("completionData shares the live counters")
	}
	if p, err := DecideMove(r, "org", Pause, "u2", "", now); err != nil || p.Message.Type != gifting.ChangeCampaignPaused ||
		p.Moved.Status != InProgress || p.Moved.CompletionData.CompletedAt != nil {
		t.Errorf("pause: %+v, %v", p, err)
	}
	if _, err := DecideMove(r, "org", Resume, "u2", "", now); gifting.ErrorMessage(err) != "campaign is already live" {
		t.Errorf("resume of a live campaign: %v", err)
	}
}

func TestDecideDelete(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, st := range Statuses {
		c := draft(10)
		c.Status = st
		p, err := DecideDelete(Read{Campaign: c, Seen: 1}, "org", "u2", now)
		if st == Preparing {
			if gifting.ErrorCode(err) != gifting.CodeConflict {
				t.Errorf("a preparing campaign deleted: %v", err)
			}
			continue
		}
		if err != nil || !p.Deleted.IsDeleted || p.Deleted.LastUpdatedBy != "u2" || !p.Deleted.UpdatedAt.Equal(now) || p.Seen != 1 {
			t.Errorf("%s: %+v, %v", st, p, err)
		}
	}
}

func TestFilterKeeps(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	next := day.Add(24 * time.Hour)
	c := Campaign{Status: Live, CreatedBy: "u1", CreatedAt: day.Add(time.Hour), Name: "Spring gifts", Description: "for clients"}
	for _, tt := range []struct {
		name string
		f    Filter
		c    Campaign
		want bool
	}{
		{"no filter", Filter{}, c, true},
		{"deleted", Filter{}, Campaign{IsDeleted: true}, false},
		{"its status", Filter{Status: Live}, c, true},
		{"another status", Filter{Status: Draft}, c, false},
		{"its creator", Filter{CreatedBy: "u1"}, c, true},
		{"another creator", Filter{CreatedBy: "u2"}, c, false},
		{"within the dates", Filter{CreatedFrom: &day, CreatedTo: &next}, c, true},
		{"before the dates", Filter{CreatedFrom: &next}, c, false},
		{"after the dates", Filter{CreatedTo: &day}, c, false},
		{"words of its name and description", Filter{Search: "CLIENTS spring"}, c, true},
		{"a word it lacks", Filter{Search: "autumn"}, c, false},
	} {
		if got := tt.f.Keeps(tt.c); got != tt.want {
			t.Errorf("%s: Keeps = %v, want %v", tt.name, got, tt.want)
		}
	}
}
