package campaign

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// A report across campaigns (GET /reports/summary): what the campaigns
// created in a period cost and what came of them, from each campaign's
// counters (statusCounts, creditsSpent, feedbackCount), which move in the
// transactions that move its recipients and credits: exact, and read
// without a recipient. By campaign or user, a campaign counts whole in
// the group of its own creation; by month, each event counts in the month
// it happened (report_month.go).

// Report groupings.
const (
	ReportByCampaign = "campaign"
	ReportByMonth    = "month"
	ReportByUser     = "user"
)

// ReportGroupings are the values of groupBy.
var ReportGroupings = []string{ReportByCampaign, ReportByMonth, ReportByUser}

// MaxReportDays bounds a report's period, so its read stays bounded.
const MaxReportDays = 366

// ReportFigures are the sums of a group of campaigns.
type ReportFigures struct {
	Campaigns int64
	// RecipientsAdded: every recipient written; Invited: those past
	// pending (an invitation went out).
	RecipientsAdded, Invited int64
	// Claimed: at address_confirmed or later on the journey; Delivered:
	// delivered or acknowledged; Acknowledged; Declined; Expired.
	Claimed, Delivered, Acknowledged, Declined, Expired int64
	// Feedback: recipients who left feedback.
	Feedback int64
	// CreditsSpent: what the recipients cost, net of refunds;
	// CreditsRefunded: the refunds (claims of cheaper gifts, expiries,
	// cancelled orders), already taken off CreditsSpent.
	CreditsSpent, CreditsRefunded int64
	// ClaimsTimed are the claims whose delay from invitation the
	// campaigns' histograms hold (claims since the histogram was kept);
	// MedianHoursToClaim is their median, to a tenth of an hour (within
	// ±19%: gifting.MedianClaimDelay), 0 when ClaimsTimed is.
	ClaimsTimed        int64
	MedianHoursToClaim float64
	// ClaimRate is Claimed ÷ Invited (0 when nobody was invited), to four
	// decimals.
	ClaimRate float64
}

// ReportGroup is one group: its key (the campaign id, the month as
// YYYY-MM, the user id) and, by campaign, the campaign's name.
type ReportGroup struct {
	Key, Name string
	ReportFigures
	delays map[int]int64
}

// Report is a summary of the campaigns created from From (inclusive) to
// To (exclusive), grouped by GroupBy, with the totals of them all.
type Report struct {
	From, To time.Time
	GroupBy  string
	Groups   []ReportGroup
	Totals   ReportFigures
	delays   map[int]int64
}

// reportFigures are c's own figures.
func reportFigures(c Campaign) ReportFigures {
	n := func(s gifting.RecipientStatus) int64 { return c.LiveData.StatusCounts[s] }
	from := func(stage gifting.RecipientStatus) int64 {
		var sum int64
		for _, s := range gifting.RecipientJourney[slices.Index(gifting.RecipientJourney, stage):] {
			sum += n(s)
		}
		return sum
	}
	return ReportFigures{
		Campaigns: 1, RecipientsAdded: c.TotalRecipients, Invited: c.TotalRecipients - n(gifting.RecipientPending),
		Claimed: from(gifting.RecipientAddressConfirmed), Delivered: from(gifting.RecipientDelivered),
		Acknowledged: n(gifting.RecipientAcknowledged), Declined: n(gifting.RecipientDeclined), Expired: n(gifting.RecipientExpired),
		Feedback: c.LiveData.FeedbackCount, CreditsSpent: c.LiveData.CreditsSpent, CreditsRefunded: c.LiveData.CreditsRefunded,
	}
}

// add adds o's sums to f.
func (f *ReportFigures) add(o ReportFigures) {
	f.Campaigns += o.Campaigns
	f.RecipientsAdded += o.RecipientsAdded
	f.Invited += o.Invited
	f.Claimed += o.Claimed
	f.Delivered += o.Delivered
	f.Acknowledged += o.Acknowledged
	f.Declined += o.Declined
	f.Expired += o.Expired
	f.Feedback += o.Feedback
	f.CreditsSpent += o.CreditsSpent
	f.CreditsRefunded += o.CreditsRefunded
}

// addDelays adds histogram h into *into.
func addDelays(into *map[int]int64, h map[int]int64) {
	if *into == nil {
		*into = map[int]int64{}
	}
	for b, n := range h {
		(*into)[b] += n
	}
}

// rate sets f's ClaimRate from its sums and its median from the
// histogram of its claims' delays.
func (f *ReportFigures) rate(delays map[int]int64) {
	f.ClaimRate = 0
	if f.Invited > 0 {
		f.ClaimRate = math.Round(float64(f.Claimed)/float64(f.Invited)*10000) / 10000
	}
	f.ClaimsTimed, f.MedianHoursToClaim = 0, 0
	for _, n := range delays {
		f.ClaimsTimed += n
	}
	if d, ok := gifting.MedianClaimDelay(delays); ok {
		f.MedianHoursToClaim = math.Round(d.Hours()*10) / 10
	}
}

// Summarize groups the live (not deleted) campaigns of cs created in
// [from, to) by groupBy (one of ReportGroupings), in the groups' key
// order (campaigns by creation).
func Summarize(cs []Campaign, groupBy string, from, to time.Time) Report {
	r := Report{From: from, To: to, GroupBy: groupBy}
	at := map[string]int{}
	slices.SortFunc(cs, func(a, b Campaign) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.CampaignID, b.CampaignID))
	})
	for _, c := range cs {
		if c.IsDeleted || c.CreatedAt.Before(from) || !c.CreatedAt.Before(to) {
			continue
		}
		k, name := c.CampaignID, c.Name
		switch groupBy {
		case ReportByMonth:
			k, name = c.CreatedAt.UTC().Format("2006-01"), ""
		case ReportByUser:
			k, name = c.CreatedBy, ""
		}
		i, ok := at[k]
		if !ok {
			i, at[k] = len(r.Groups), len(r.Groups)
			r.Groups = append(r.Groups, ReportGroup{Key: k, Name: name})
		}
		f := reportFigures(c)
		r.Groups[i].add(f)
		r.Totals.add(f)
		addDelays(&r.Groups[i].delays, c.LiveData.ClaimDelays)
		addDelays(&r.delays, c.LiveData.ClaimDelays)
	}
	if groupBy == ReportByUser {
		slices.SortFunc(r.Groups, func(a, b ReportGroup) int { return cmp.Compare(a.Key, b.Key) })
	}
	for i := range r.Groups {
		r.Groups[i].rate(r.Groups[i].delays)
	}
	r.Totals.rate(r.delays)
	return r
}

// Report summarizes orgID's campaigns created from from (inclusive) to to
// (exclusive), grouped by groupBy (ReportGroupings); by month, it is the
// events of each calendar month the period touches, whatever campaign
// they belong to (SummarizeMonths). Errors:
// VALIDATION_FAILED naming groupBy, from or to (an unknown grouping, an
// empty or reversed period, one over MaxReportDays).
func (a *App) Report(ctx context.Context, orgID, groupBy string, from, to time.Time) (Report, error) {
	var p gifting.Problems
	if !slices.Contains(ReportGroupings, groupBy) {
		p.Add("groupBy", "must be one of campaign, month, user")
	}
	switch {
	case !from.Before(to):
		p.Add("to", "must be after from")
	case to.Sub(from) > MaxReportDays*24*time.Hour:
		p.Add("to", "must be at most 366 days after from")
	}
	if err := p.Err(); err != nil {
		return Report{}, err
	}
	if groupBy == ReportByMonth {
		ms, err := a.store.MonthCounts(ctx, orgID, ReportMonths(from, to))
		if err != nil {
			return Report{}, err
		}
		return SummarizeMonths(ms, from, to), nil
	}
	cs, err := a.store.CampaignsCreated(ctx, orgID, from, to)
	if err != nil {
		return Report{}, err
	}
	return Summarize(cs, groupBy, from, to), nil
}
