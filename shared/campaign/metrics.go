package campaign

import (
	"math"
	"slices"

	"github.com/giftcampaign/service/shared/gifting"
)

// Metrics is the performance of a campaign, computed from its counters.
type Metrics struct {
	CampaignID      string
	Status          Status
	TotalRecipients int64
	StatusCounts    map[gifting.RecipientStatus]int64
	CreditsSpent    int64
	FeedbackCount   int64
	Rates           Rates
}

// Rates are fractions in [0, 1] of the campaign's recipients, each
// counting the recipients that reached a stage or went past it.
type Rates struct {
	// AddressConfirmation: at address_confirmed or later.
	AddressConfirmation float64
	// Delivery: delivered or acknowledged.
	Delivery float64
	// Acknowledgement: acknowledged.
	Acknowledgement float64
	// Feedback: left feedback.
	Feedback float64
}

// Metrics computes c's metrics from its counters.
func (c Campaign) Metrics() Metrics {
	counts := gifting.NewStatusCounts()
	for s, n := range c.LiveData.StatusCounts {
		counts[s] = n
	}
	reached := func(stage gifting.RecipientStatus) int64 {
		i := slices.Index(gifting.RecipientJourney, stage)
		var n int64
		for _, s := range gifting.RecipientJourney[i:] {
			n += counts[s]
		}
		return n
	}
	total := c.TotalRecipients
	rate := func(n int64) float64 {
		if total <= 0 {
			return 0
		}
		return math.Round(float64(n)/float64(total)*10000) / 10000
	}
	return Metrics{
		CampaignID:      c.CampaignID,
		Status:          c.Status,
		TotalRecipients: total,
		StatusCounts:    counts,
		CreditsSpent:    c.LiveData.CreditsSpent,
		FeedbackCount:   c.LiveData.FeedbackCount,
		Rates: Rates{
			AddressConfirmation: rate(reached(gifting.RecipientAddressConfirmed)),
			Delivery:            rate(reached(gifting.RecipientDelivered)),
			Acknowledgement:     rate(reached(gifting.RecipientAcknowledged)),
			Feedback:            rate(c.LiveData.FeedbackCount),
		},
	}
}
