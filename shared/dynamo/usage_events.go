package dynamo

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The report by month (campaign.SummarizeMonths) reads the usage items of
// its months: beside the usage counters, each holds the month's recipient
// events (campaign.Event…: invited, claimed, …, as top-level counters) and
// the histogram of its claims' delays (cd00 to cd63, as on a campaign),
// ADDed by the transaction of each event, in the same usage update as the
// recipients, credits and emails that transaction counts: a transaction
// may write the item only once.

// addCounts adds more's counts to counts (created when nil) and returns it.
func addCounts(counts, more map[string]int64) map[string]int64 {
	if len(more) == 0 {
		return counts
	}
	if counts == nil {
		counts = map[string]int64{}
	}
	for k, n := range more {
		counts[k] += n
	}
	return counts
}

// eventsAdd is, in a list, the usage item update counting events in the
// month of now; empty when there are none.
func (s *Store) eventsAdd(orgID string, events map[string]int64) []types.TransactWriteItem {
	if len(events) == 0 {
		return nil
	}
	return []types.TransactWriteItem{s.usageAdd(orgID, s.Now(), events)}
}

// claimEvents are a claim's events: its recipient's move, and its delay
// from invitation in its bucket.
func claimEvents(p recipient.ClaimPlan) map[string]int64 {
	r := p.Recipient
	return addCounts(campaign.MoveEvents(p.From, r.Status, 1),
		map[string]int64{claimDelayAttr(gifting.ClaimDelayBucket(r.ClaimDelay())): 1})
}

// MonthCounts reads orgID's counters of months (campaign.Reader): their
// usage items, with one eventually consistent BatchGetItem (half a read
// unit an item: a year is 6 read units), zeros for a month without one.
func (s *Store) MonthCounts(ctx context.Context, orgID string, months []string) ([]campaign.MonthCounts, error) {
	keys := make([]item, len(months))
	for i, m := range months {
		keys[i] = key(orgPK(orgID), usageSK(m))
	}
	got, err := s.batchGetAs(ctx, keys, false)
	if err != nil {
		return nil, err
	}
	byMonth := map[string]item{}
	for _, it := range got {
		byMonth[attrS(it, "month")] = it
	}
	out := make([]campaign.MonthCounts, len(months))
	for i, m := range months {
		it := byMonth[m]
		n := func(name string) int64 {
			v, ok := it[name].(*types.AttributeValueMemberN)
			if !ok {
				return 0
			}
			c, _ := strconv.ParseInt(v.Value, 10, 64)
			return c
		}
		mc := campaign.MonthCounts{Month: m, RecipientsAdded: n(usageRecipients),
			CreditsDebited: n(usageSpent), CreditsRefund: n(usageRefunded), Events: map[string]int64{}, Delays: claimDelaysOf(it)}
		for _, e := range []string{campaign.EventCampaigns, campaign.EventInvited, campaign.EventClaimed, campaign.EventDelivered,
			campaign.EventAcknowledged, campaign.EventDeclined, campaign.EventExpired, campaign.EventFeedback} {
			mc.Events[e] = n(e)
		}
		out[i] = mc
	}
	return out, nil
}
