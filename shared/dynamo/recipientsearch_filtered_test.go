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
// the same from its matches' items (when it matches at most 98) as from
// the Slim partition (the campaign's search mark forgotten): the same
// recipients in the same order, the same total, for each filter, both
// orders and two pages; a search matching more reads the Slim partition
// either way. A search matching 11 recipients reads under a read unit of
// Query, where the Slim partition reads the campaign.
func TestFilteredRecipientSearchAnswersAsBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := testenv.Store(t)
	metered := dynamo.New(m, s.Table())
	orgID, _ := testenv.Org(t, s, "rsfilter", 0)
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
	answers := func() (map[string][]string, float64) {
		got, units := map[string][]string{}, 0.0
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
					if _, ok := c.Input.(*dynamodb.QueryInput); ok && q.Search == "first12" {
						units += c.ReadUnits
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
	t.Logf("searches for first12 with a filter: %.1f read units of Query from the matches, %.1f from the Slim partition", indexedUnits, slimUnits)
	if indexedUnits*4 > slimUnits {
		t.Errorf("searches for first12 with a filter read %.1f units of Query; want under a quarter of the Slim partition's %.1f", indexedUnits, slimUnits)
	}
}

func fbOf(q recipient.Query) string {
	if q.Feedback == nil {
		return "any"
	}
	return fmt.Sprint(*q.Feedback)
}
