package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/campaign"
)

// reportDefaultDays is the period of a report without from: the 30 days
// up to to.
const reportDefaultDays = 30

// reportFiguresDTO are a group's figures on the wire.
type reportFiguresDTO struct {
	Campaigns       int64   `json:"campaigns"`
	RecipientsAdded int64   `json:"recipientsAdded"`
	Invited         int64   `json:"invited"`
	Claimed         int64   `json:"claimed"`
	Delivered       int64   `json:"delivered"`
	Acknowledged    int64   `json:"acknowledged"`
	Declined        int64   `json:"declined"`
	Expired         int64   `json:"expired"`
	Feedback        int64   `json:"feedback"`
	CreditsSpent    int64   `json:"creditsSpent"`
	CreditsRefunded int64   `json:"creditsRefunded"`
	ClaimRate       float64 `json:"claimRate"`
	// MedianHoursToClaim is null while no claim was timed.
	MedianHoursToClaim *float64 `json:"medianHoursToClaim"`
}

type reportGroupDTO struct {
	Key  string `json:"key"`
	Name string `json:"name,omitempty"`
	reportFiguresDTO
}

type reportDTO struct {
	From    time.Time        `json:"from"`
	To      time.Time        `json:"to"`
	GroupBy string           `json:"groupBy"`
	Groups  []reportGroupDTO `json:"groups"`
	Totals  reportFiguresDTO `json:"totals"`
}

func reportFiguresOf(f campaign.ReportFigures) reportFiguresDTO {
	out := reportFiguresDTO{Campaigns: f.Campaigns, RecipientsAdded: f.RecipientsAdded, Invited: f.Invited, Claimed: f.Claimed,
		Delivered: f.Delivered, Acknowledged: f.Acknowledged, Declined: f.Declined, Expired: f.Expired, Feedback: f.Feedback,
		CreditsSpent: f.CreditsSpent, CreditsRefunded: f.CreditsRefunded, ClaimRate: f.ClaimRate}
	if f.ClaimsTimed > 0 {
		out.MedianHoursToClaim = &f.MedianHoursToClaim
	}
	return out
}

// reportSummary serves GET /reports/summary?from=&to=&groupBy=: the
// campaigns created in the period, grouped by campaign, month or user. A
// date as to takes in that whole day (UTC).
func (s *Server) reportSummary(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	groupBy := q.enum("groupBy", campaign.ReportByCampaign, campaign.ReportGroupings...)
	to := time.Now().UTC()
	if t := q.timestamp("to"); t != nil {
		to = *t
		if len(q.str("to")) == len("2006-01-02") {
			to = to.AddDate(0, 0, 1)
		}
	}
	from := to.AddDate(0, 0, -reportDefaultDays)
	if t := q.timestamp("from"); t != nil {
		from = *t
	}
	if err := q.err(); err != nil {
		return err
	}
	rep, err := s.campaigns.Report(r.Context(), principal(r.Context()).OrgID, groupBy, from, to)
	if err != nil {
		return err
	}
	out := reportDTO{From: rep.From, To: rep.To, GroupBy: rep.GroupBy, Groups: make([]reportGroupDTO, len(rep.Groups)), Totals: reportFiguresOf(rep.Totals)}
	for i, g := range rep.Groups {
		out.Groups[i] = reportGroupDTO{Key: g.Key, Name: g.Name, reportFiguresDTO: reportFiguresOf(g.ReportFigures)}
	}
	writeEnvelope(w, http.StatusOK, "Report retrieved", out)
	return nil
}
