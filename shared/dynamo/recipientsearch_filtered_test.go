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

// TestFilteredRecipientSearchReadsTheCheaperWay: first3 matches 111 of
// 600 recipients, 13 more than the first BatchGetItem holds. With a filter
// of nine in ten recipients, reading those 13 by key (~½ read unit each)
// is cheaper than the filter's ~540 status keys (~1 unit per 50): the
// search reads them in a second BatchGetItem and no status partition.
// With a filter of one in ten (~60 keys) it reads the keys instead. Both
// answer as the Slim partition does (TestFilteredRecipientSearchAnswersAsBefore
// compares every filter), and both find every match the filter keeps.
func TestFilteredRecipientSearchReadsTheCheaperWay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := testenv.Store(t)
	metered := dynamo.New(m, s.Table())
	orgID, _ := testenv.Org(t, s, "rscheap", 0)
	campaignID := statusCampaign(t, s, orgID, 600, map[gifting.RecipientStatus]int{gifting.RecipientInviteSent: 9, gifting.RecipientExpired: 1}, 41)
	for _, tt := range []struct {
		status gifting.RecipientStatus
		byKey  bool
	}{{gifting.RecipientInviteSent, true}, {gifting.RecipientExpired, false}} {
		t.Run(string(tt.status), func(t *testing.T) {
			q := recipient.Query{Search: "first3", Statuses: []gifting.RecipientStatus{tt.status}, Page: gifting.PageRequest{Page: 1, Limit: 200}}
			u := &meter.Usage{Record: true}
			p, err := metered.ListRecipients(meter.WithUsage(ctx, u), orgID, campaignID, q)
			if err != nil {
				t.Fatal(err)
			}
			ops := map[string]int{}
			for _, c := range u.Calls() {
				op := c.Op
				if in, ok := c.Input.(*dynamodb.QueryInput); ok && in.IndexName != nil {
					op += " " + *in.IndexName
				}
				ops[op]++
			}
			if got := ops["Query Order"] == 0 && ops["BatchGetItem"] == 2; got != tt.byKey {
				t.Errorf("operations %v; want the matches read by key: %v", ops, tt.byKey)
			}
			// Every match the filter keeps, none it does not.
			all, err := s.ListRecipients(ctx, orgID, campaignID, recipient.Query{Search: "first3", Page: gifting.PageRequest{Page: 1, Limit: 200}})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, r := range all.Recipients {
				if r.Status == tt.status {
					want = append(want, r.RecipientID)
				}
			}
			var got []string
			for _, r := range p.Recipients {
				got = append(got, r.RecipientID)
			}
			if len(all.Recipients) != 111 || !slices.Equal(got, want) || p.Total != len(want) {
				t.Errorf("%d of %d matches, total %d: %v; want %v", len(got), len(all.Recipients), p.Total, got, want)
			}
		})
	}
}
