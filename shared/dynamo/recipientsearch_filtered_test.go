package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestFilteredRecipientSearchAnswersAsBefore: a search with a status or
// feedback filter over a 400-recipient campaign of mixed statuses answers
// the same as the Slim partition does (the campaign's search mark
// forgotten): the same recipients in the same order, the same total, for
// each filter, both orders and two pages; from its matches' items when it
// matches at most 98 (first12: 11), from the keys of the status partitions
// its filter names and its matches when it matches more (first3: 111).
// Either reads under half of what the Slim partition (the whole campaign)
// reads.
func TestFilteredRecipientSearchAnswersAsBefore(t *testing.T) {
	t.Parallel()
	filteredSearchAnswersAsBefore(t, "rsfilter")
}

// TestFilteredRecipientSearchReadsMatchesAgain: a filtered search whose
// matches are more than it holds (here 100, first3 has 111) reads them
// again while it keeps those among the status keys, and answers the same.
// Not parallel: it changes how many matches a search holds.
func TestFilteredRecipientSearchReadsMatchesAgain(t *testing.T) {
	dynamo.HoldMatches(t, 100)
	filteredSearchAnswersAsBefore(t, "rsfilter2")
}

func filteredSearchAnswersAsBefore(t *testing.T, org string) {
	t.Helper()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := testenv.Store(t)
	metered := dynamo.New(m, s.Table())
	orgID, _ := testenv.Org(t, s, org, 0)
	campaignID := statusCampaign(t, s, orgID, 400, map[gifting.RecipientStatus]int{
		gifting.RecipientInviteSent: 5, gifting.RecipientDelivered: 3, gifting.RecipientPending: 1, gifting.RecipientExpired: 1,
	}, 30)
	var queries []recipient.Query
	for _, q := range statusQueries() {
		if q.GroupByStatus || q.SortBy != "" {
			continue
		}
		for _, text := range []string{"first12", "FIRST12 last", "first3", "first399", "las first7", "xyz"} {
			q.Search = text
			queries = append(queries, q)
		}
	}
	answers := func() (map[string][]string, map[string]float64) {
		got, units := map[string][]string{}, map[string]float64{}
		for _, q := range queries {
			for page := 1; page <= 2; page++ {
				q.Page = gifting.PageRequest{Page: page, Limit: 4}
				u := &meter.Usage{Record: true}
				p, err := metered.ListRecipients(meter.WithUsage(ctx, u), orgID, campaignID, q)
				if err != nil {
					t.Fatalf("%+v: %v", q, err)
				}
				ids := []string{fmt.Sprint("total ", p.Total)}
				for _, r := range p.Recipients {
					ids = append(ids, r.RecipientID)
				}
				got[fmt.Sprintf("%q %v fb=%v %s page %d", q.Search, q.Statuses, fbOf(q), q.Order, page)] = ids
				for _, c := range u.Calls() {
					if _, ok := c.Input.(*dynamodb.QueryInput); ok {
						units[q.Search] += c.ReadUnits
					}
				}
			}
		}
		return got, units
	}
	indexed, indexedUnits := answers()
	if err := s.ForgetSearchMark(ctx, orgID, campaignID, true); err != nil {
		t.Fatal(err)
	}
	slim, slimUnits := answers()
	found := 0
	for k, want := range slim {
		if got := indexed[k]; !slices.Equal(got, want) {
			t.Errorf("search %s: from the matches %v; the Slim partition %v", k, got, want)
		}
		found += len(want) - 1
	}
	if found == 0 {
		t.Fatal("no search found anybody")
	}
	for _, text := range []string{"first12", "first3"} {
		t.Logf("searches for %s with a filter: %.1f read units of Query, %.1f from the Slim partition", text, indexedUnits[text], slimUnits[text])
		if indexedUnits[text]*2 > slimUnits[text] {
			t.Errorf("searches for %s with a filter read %.1f units of Query; want under half the Slim partition's %.1f", text, indexedUnits[text], slimUnits[text])
		}
	}
}

func fbOf(q recipient.Query) string {
	if q.Feedback == nil {
		return "any"
	}
	return fmt.Sprint(*q.Feedback)
}
