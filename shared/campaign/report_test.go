package campaign

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TestSummarize: a report keeps the live campaigns created in [from, to),
// each whole in the group of its creation; claim rate is claimed ÷
// invited, 0 when nobody was invited.
func TestSummarize(t *testing.T) {
	at := func(month, day int) time.Time { return time.Date(2026, time.Month(month), day, 12, 0, 0, 0, time.UTC) }
	counts := func(pending, invited, claimed, acked, expired int64) map[gifting.RecipientStatus]int64 {
		m := gifting.NewStatusCounts()
		m[gifting.RecipientPending], m[gifting.RecipientInviteSent], m[gifting.RecipientProcessing] = pending, invited, claimed
		m[gifting.RecipientAcknowledged], m[gifting.RecipientExpired] = acked, expired
		return m
	}
	mk := func(id, by string, created time.Time, c map[gifting.RecipientStatus]int64, spent int64) Campaign {
		var total int64
		for _, n := range c {
			total += n
		}
		return Campaign{CampaignID: id, Name: "c " + id, CreatedBy: by, CreatedAt: created, TotalRecipients: total,
			LiveData: LiveData{StatusCounts: c, CreditsSpent: spent, FeedbackCount: 1}}
	}
	cs := []Campaign{
		mk("B", "zoe", at(11, 20), counts(0, 2, 1, 1, 0), 40),  // 4 invited, 2 claimed
		mk("A", "ann", at(10, 5), counts(2, 0, 0, 0, 0), 20),   // nobody invited
		mk("C", "ann", at(11, 2), counts(0, 1, 0, 0, 3), 10),   // 4 invited, none claimed
		mk("OUT", "ann", at(12, 1), counts(0, 1, 0, 0, 0), 99), // after to
	}
	deleted := mk("DEL", "ann", at(11, 3), counts(0, 5, 5, 0, 0), 500)
	deleted.IsDeleted = true
	cs = append(cs, deleted)
	from, to := at(10, 1), at(12, 1)

	r := Summarize(cs, ReportByCampaign, from, to)
	if len(r.Groups) != 3 || r.Groups[0].Key != "A" || r.Groups[1].Key != "C" || r.Groups[2].Key != "B" {
		t.Fatalf("by campaign: %+v; want A, C, B (creation order; OUT after the period, DEL deleted)", r.Groups)
	}
	if g := r.Groups[0]; g.ClaimRate != 0 || g.Invited != 0 || g.RecipientsAdded != 2 {
		t.Errorf("A (nobody invited): %+v", g)
	}
	if g := r.Groups[2]; g.Invited != 4 || g.Claimed != 2 || g.Delivered != 1 || g.Acknowledged != 1 || g.ClaimRate != 0.5 || g.Name != "c B" {
		t.Errorf("B: %+v; want 4 invited, 2 claimed, 1 delivered and acknowledged, claim rate 0.5", g)
	}
	want := ReportFigures{Campaigns: 3, RecipientsAdded: 10, Invited: 8, Claimed: 2, Delivered: 1, Acknowledged: 1, Expired: 3,
		Feedback: 3, CreditsSpent: 70, ClaimRate: 0.25}
	if r.Totals != want {
		t.Errorf("totals %+v; want %+v", r.Totals, want)
	}

	m := Summarize(cs, ReportByMonth, from, to)
	if len(m.Groups) != 2 || m.Groups[0].Key != "2026-10" || m.Groups[1].Key != "2026-11" || m.Groups[1].Campaigns != 2 || m.Totals != want {
		t.Errorf("by month: %+v", m.Groups)
	}
	u := Summarize(cs, ReportByUser, from, to)
	if len(u.Groups) != 2 || u.Groups[0].Key != "ann" || u.Groups[0].Campaigns != 2 || u.Groups[1].Key != "zoe" || u.Groups[0].ClaimRate != 0 {
		t.Errorf("by user: %+v", u.Groups)
	}
}
