package dynamo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// TestTopRecipientsKeepsThePageEnd: streaming a campaign's entries through
// topRecipients keeps exactly the first n of the order the whole sort
// gives, whatever order they arrive in, for every sort and grouping, and
// counts every entry.
func TestTopRecipientsKeepsThePageEnd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	statuses := []gifting.RecipientStatus{gifting.RecipientPending, gifting.RecipientInviteSent, gifting.RecipientAddressConfirmed, gifting.RecipientExpired}
	names := []string{"ada", "bob", "cy", "dee"}
	var all []slimRecipient
	for i := range 2_000 {
		all = append(all, slimRecipient{
			SK: fmt.Sprintf("R#%05d", i), LSK: fmt.Sprintf("L#%07d#%05d", rng.IntN(1_000_000), i), // unique, as ULIDs are
			St:  string(statuses[rng.IntN(len(statuses))]),
			Upd: fmt.Sprintf("2026-11-%02d", 1+rng.IntN(28)),
			Srt: names[rng.IntN(4)] + sortSep + names[rng.IntN(4)] + sortSep + names[rng.IntN(4)] + "@x" + sortSep + names[rng.IntN(4)],
		})
	}
	for _, sortBy := range []string{"updatedAt", "firstName", "lastName", "email", "company", "status"} {
		for _, q := range []recipient.Query{
			{SortBy: sortBy, Order: gifting.Asc}, {SortBy: sortBy, Order: gifting.Desc},
			{SortBy: sortBy, Order: gifting.Desc, GroupByStatus: true},
		} {
			order := recipientOrder(q)
			want := slices.SortedFunc(slices.Values(all), order)
			for _, n := range []int{0, 1, 25, 300, 5_000} {
				top := newTopRecipients(order, n)
				for _, i := range rng.Perm(len(all)) {
					top.add(all[i])
				}
				got := top.sorted()
				if top.total != len(all) || !slices.Equal(got, want[:min(n, len(want))]) {
					t.Errorf("%+v, first %d: kept %d of %d counted; want the first %d of the sorted %d", q, n, len(got), top.total, min(n, len(want)), len(all))
				}
			}
		}
	}
}
