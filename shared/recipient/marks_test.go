package recipient

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestDecideMark(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	r := Recipient{RecipientID: "r1", CampaignID: "c1", OrganizationID: "acme"}
	m, ok := DecideMark(r, MarkViewed, now)
	if !ok || m.Field != MarkViewed || m.Message.Type != gifting.ChangeRecipientViewed || m.OrgID != "acme" ||
		m.Recipient.ViewedAt == nil || !m.Recipient.ViewedAt.Equal(now) || m.Recipient.MeetingClickedAt != nil {
		t.Fatalf("first view: %+v %v", m, ok)
	}
	if sent, _ := m.Message.Data.(Recipient); sent.ViewedAt == nil {
		t.Error("the message's recipient lacks the mark")
	}
	if _, ok := DecideMark(m.Recipient, MarkViewed, now.Add(time.Hour)); ok {
		t.Error("a second view is marked again")
	}
	c, ok := DecideMark(m.Recipient, MarkMeetingClicked, now)
	if !ok || c.Message.Type != gifting.ChangeRecipientMeetingClicked || c.Recipient.MeetingClickedAt == nil {
		t.Fatalf("first click: %+v %v", c, ok)
	}
	if _, ok := DecideMark(c.Recipient, MarkMeetingClicked, now); ok {
		t.Error("a second click is marked again")
	}
}

func TestMeetingDue(t *testing.T) {
	clicked := time.Now()
	for _, tc := range []struct {
		name    string
		meeting *gifting.Meeting
		clicked *time.Time
		due     bool
	}{
		{"no meeting", nil, nil, false},
		{"optional", &gifting.Meeting{URL: "https://a.example/"}, nil, false},
		{"required, not followed", &gifting.Meeting{URL: "https://a.example/", Required: true}, nil, true},
		{"required, followed", &gifting.Meeting{URL: "https://a.example/", Required: true}, &clicked, false},
		{"required, claimed before it was", &gifting.Meeting{URL: "https://a.example/", Required: true}, nil, false},
	} {
		p := Page{Campaign: Campaign{Meeting: tc.meeting}, Recipient: Recipient{MeetingClickedAt: tc.clicked}}
		if tc.name == "required, claimed before it was" {
			p.Recipient.ClaimedAt = &clicked
		}
		if p.MeetingDue() != tc.due {
			t.Errorf("%s: due %v, want %v", tc.name, !tc.due, tc.due)
		}
	}
}
