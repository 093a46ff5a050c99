package campaign

import (
	"maps"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestMoveEvents: a move counts the milestones it reaches and takes off
// those it leaves, so a month's events sum, over a campaign's life, to
// its figures.
func TestMoveEvents(t *testing.T) {
	for _, tc := range []struct {
		from, to gifting.RecipientStatus
		want     map[string]int64
	}{
		{"", gifting.RecipientPending, nil},
		{"", gifting.RecipientInviteSent, map[string]int64{EventInvited: 1}},
		{gifting.RecipientPending, gifting.RecipientInviteSent, map[string]int64{EventInvited: 1}},
		{gifting.RecipientInviteSent, gifting.RecipientProcessing, map[string]int64{EventClaimed: 1}},
		{gifting.RecipientPending, gifting.RecipientProcessing, map[string]int64{EventInvited: 1, EventClaimed: 1}},
		{gifting.RecipientShipped, gifting.RecipientInTransit, nil},
		{gifting.RecipientInTransit, gifting.RecipientDelivered, map[string]int64{EventDelivered: 1}},
		{gifting.RecipientDelivered, gifting.RecipientAcknowledged, map[string]int64{EventAcknowledged: 1}},
		{gifting.RecipientInviteSent, gifting.RecipientDeclined, map[string]int64{EventDeclined: 1}},
		{gifting.RecipientPending, gifting.RecipientExpired, map[string]int64{EventInvited: 1, EventExpired: 1}},
		// A cancelled order's recipient back at its invitation: the claim
		// comes off the month of the move.
		{gifting.RecipientProcessing, gifting.RecipientInviteSent, map[string]int64{EventClaimed: -1}},
	} {
		if got := MoveEvents(tc.from, tc.to, 1); !maps.Equal(got, tc.want) {
			t.Errorf("%q → %s: %v; want %v", tc.from, tc.to, got, tc.want)
		}
	}
	got := CreatedEvents(map[gifting.RecipientStatus]int64{gifting.RecipientInviteSent: 3, gifting.RecipientPending: 2})
	if !maps.Equal(got, map[string]int64{EventInvited: 3}) {
		t.Errorf("a slice of 3 invited and 2 pending: %v; want 3 invited", got)
	}
}

// TestSummarizeMonths: every month of the period is a group, in order,
// its credits spent net of its refunds; the months the period touches are
// whole calendar months.
func TestSummarizeMonths(t *testing.T) {
	from, to := time.Date(2026, 11, 15, 0, 0, 0, 0, time.UTC), time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
	months := ReportMonths(from, to)
	if len(months) != 3 || months[0] != "2026-11" || months[2] != "2027-01" {
		t.Fatalf("months of [%v, %v): %v", from, to, months)
	}
	r := SummarizeMonths([]MonthCounts{
		{Month: "2026-11", RecipientsAdded: 4, CreditsDebited: 100, CreditsRefund: 10,
			Events: map[string]int64{EventCampaigns: 1, EventInvited: 4, EventClaimed: 1}},
		{Month: "2026-12"},
		{Month: "2027-01", CreditsRefund: 25, Events: map[string]int64{EventClaimed: 1, EventExpired: 2}},
	}, from, to)
	if len(r.Groups) != 3 || r.Groups[1].Key != "2026-12" || r.Groups[1].ReportFigures != (ReportFigures{}) {
		t.Fatalf("groups %+v", r.Groups)
	}
	if g := r.Groups[2]; g.CreditsSpent != -25 || g.CreditsRefunded != 25 || g.Claimed != 1 || g.ClaimRate != 0 {
		t.Errorf("January (refunds, nobody invited): %+v", g)
	}
	want := ReportFigures{Campaigns: 1, RecipientsAdded: 4, Invited: 4, Claimed: 2, Expired: 2, CreditsSpent: 65, CreditsRefunded: 35, ClaimRate: 0.5}
	if r.Totals != want {
		t.Errorf("totals %+v; want %+v", r.Totals, want)
	}
}
