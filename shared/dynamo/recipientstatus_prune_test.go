package dynamo

import (
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// TestKnownEmpty: the partitions a page leaves unread are those the
// campaign's exact counters show empty — feedback partitions while nobody
// left feedback, statuses nobody is in — never pending's or
// invite_sent's, which a launch writes before it counts them.
func TestKnownEmpty(t *testing.T) {
	c := campaign.Campaign{}
	c.LiveData.StatusCounts = gifting.NewStatusCounts()
	c.LiveData.StatusCounts[gifting.RecipientDelivered] = 4
	yes := true
	groups := statusGroups(recipient.Query{Feedback: &yes, SortBy: "createdAt", Order: gifting.Desc})
	if n := partitions(groups); n != len(gifting.RecipientStatuses) {
		t.Fatalf("a feedback filter reads %d partitions, want one per status (%d)", n, len(gifting.RecipientStatuses))
	}
	if got := withoutEmpty(groups, c); len(got) != 0 {
		t.Errorf("with no feedback counted, a feedback filter still reads %v", got)
	}
	c.LiveData.FeedbackCount = 1
	var read []gifting.RecipientStatus
	for _, g := range withoutEmpty(groups, c) {
		for _, p := range g {
			read = append(read, p.st)
		}
	}
	slices.Sort(read)
	want := []gifting.RecipientStatus{gifting.RecipientDelivered, gifting.RecipientInviteSent, gifting.RecipientPending}
	slices.Sort(want)
	if !slices.Equal(read, want) {
		t.Errorf("with feedback counted and 4 delivered, a feedback filter reads %v, want %v", read, want)
	}

	grouped := statusGroups(recipient.Query{GroupByStatus: true, SortBy: "createdAt", Order: gifting.Asc})
	kept := withoutEmpty(grouped, c)
	if len(kept) != 3 || kept[0][0].st != gifting.RecipientPending || kept[2][0].st != gifting.RecipientDelivered {
		t.Errorf("grouped by status, the groups read are %v; want pending, invite_sent, delivered in the journey's order", kept)
	}
	if len(kept[2]) != 2 {
		t.Errorf("delivered's group reads %v; want both its partitions (with feedback and without)", kept[2])
	}
}
