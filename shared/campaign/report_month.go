package campaign

import (
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// The report by month counts each recipient event in the month it
// happened (UTC), not in its campaign's creation month: every transaction
// that moves recipients in their campaign's counters adds the same moves,
// as events, to the organization's counters of the transaction's month
// (the usage item of that month, which already counts the recipients
// added and the credits debited and refunded). The events are derived
// here from the status moves, by the same rules as a campaign's own
// figures (reportFigures), so the months of a campaign's life sum to its
// figures.

// Month events: the counters a recipient's moves add to their month.
const (
	EventCampaigns    = "campaignsCreated"
	EventInvited      = "invited"
	EventClaimed      = "claimed"
	EventDelivered    = "delivered"
	EventAcknowledged = "acknowledged"
	EventDeclined     = "declined"
	EventExpired      = "expired"
	EventFeedback     = "feedback"
)

// milestones are the events a recipient at status s has had: invited
// past pending, claimed at address_confirmed or later on the journey,
// delivered at delivered or later, and its end (acknowledged, declined,
// expired). "" (not yet a recipient) has had none.
func milestones(s gifting.RecipientStatus) []string {
	if s == "" || s == gifting.RecipientPending {
		return nil
	}
	out := []string{EventInvited}
	rank := slices.Index(gifting.RecipientJourney, s)
	if rank >= slices.Index(gifting.RecipientJourney, gifting.RecipientAddressConfirmed) {
		out = append(out, EventClaimed)
	}
	if rank >= slices.Index(gifting.RecipientJourney, gifting.RecipientDelivered) {
		out = append(out, EventDelivered)
	}
	switch s {
	case gifting.RecipientAcknowledged:
		out = append(out, EventAcknowledged)
	case gifting.RecipientDeclined:
		out = append(out, EventDeclined)
	case gifting.RecipientExpired:
		out = append(out, EventExpired)
	}
	return out
}

// MoveEvents are the events of n recipients moving from status from ("":
// created) to status to: each milestone to has and from had not counts
// n, each one from had and to has not counts -n (a move back, such as a
// cancelled order's recipient returning to its invitation, takes its
// claim off the month of the move, so the months still sum to the
// campaign's figures). Nil when the move changes no milestone.
func MoveEvents(from, to gifting.RecipientStatus, n int64) map[string]int64 {
	var out map[string]int64
	add := func(e string, d int64) {
		if out == nil {
			out = map[string]int64{}
		}
		if out[e] += d; out[e] == 0 {
			delete(out, e)
		}
	}
	for _, e := range milestones(to) {
		add(e, n)
	}
	for _, e := range milestones(from) {
		add(e, -n)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// CreatedEvents are the events of recipients created with the statuses
// deltas counts (status → how many).
func CreatedEvents(deltas map[gifting.RecipientStatus]int64) map[string]int64 {
	out := map[string]int64{}
	for st, n := range deltas {
		for e, d := range MoveEvents("", st, n) {
			out[e] += d
		}
	}
	return out
}

// MonthCounts are an organization's counters of one month (YYYY-MM): the
// recipients added, the credits debited and refunded by the ledger, the
// campaigns created, the events (Event… → count) and the claims' delays
// (gifting.ClaimDelayBucket → count).
type MonthCounts struct {
	Month                         string
	RecipientsAdded               int64
	CreditsDebited, CreditsRefund int64
	Events                        map[string]int64
	Delays                        map[int]int64
}

// monthFigures are the figures of a month's counters: credits spent are
// the month's debits net of its refunds.
func monthFigures(m MonthCounts) ReportFigures {
	e := m.Events
	return ReportFigures{
		Campaigns: e[EventCampaigns], RecipientsAdded: m.RecipientsAdded, Invited: e[EventInvited],
		Claimed: e[EventClaimed], Delivered: e[EventDelivered], Acknowledged: e[EventAcknowledged],
		Declined: e[EventDeclined], Expired: e[EventExpired], Feedback: e[EventFeedback],
		CreditsSpent: m.CreditsDebited - m.CreditsRefund, CreditsRefunded: m.CreditsRefund,
	}
}

// ReportMonths are the calendar months (UTC, YYYY-MM) the period [from,
// to) touches, in order.
func ReportMonths(from, to time.Time) []string {
	var out []string
	m := time.Date(from.UTC().Year(), from.UTC().Month(), 1, 0, 0, 0, 0, time.UTC)
	for ; m.Before(to); m = m.AddDate(0, 1, 0) {
		out = append(out, m.Format("2006-01"))
	}
	return out
}

// SummarizeMonths is the report by month of the counters ms, one group a
// month in the order given, with the totals of them all.
func SummarizeMonths(ms []MonthCounts, from, to time.Time) Report {
	r := Report{From: from, To: to, GroupBy: ReportByMonth, Groups: make([]ReportGroup, 0, len(ms))}
	for _, m := range ms {
		g := ReportGroup{Key: m.Month, ReportFigures: monthFigures(m)}
		r.Totals.add(g.ReportFigures)
		addDelays(&g.delays, m.Delays)
		addDelays(&r.delays, m.Delays)
		g.rate(g.delays)
		r.Groups = append(r.Groups, g)
	}
	r.Totals.rate(r.delays)
	return r
}
