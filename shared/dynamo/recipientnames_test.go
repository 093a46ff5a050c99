package dynamo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// lastNames are drawn for namesCampaign: ties, case variants, prefixes of
// each other, letters beyond ASCII, an empty name and a control character.
var lastNames = []string{"Smith", "smith", "SMITH", "Ann", "Anna", "ann-marie", "Åberg", "Zoë", "élise", "O'Brien",
	"", "van Dyke", "Tab\tName", "Ann\x01x", "Ann\x00", "Müller", "Mueller", "日本", "Z"}

// namesCampaign is a live campaign of n recipients with last names drawn
// from lastNames, in mixed statuses, some with feedback, written as the
// store writes recipients.
func namesCampaign(t *testing.T, s *dynamo.Store, orgID string, n int, seed uint64) string {
	t.Helper()
	ctx := context.Background()
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "names", Status: campaign.Live})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	like := recipient.Rating{Value: "like", SubmittedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rs := make([]recipient.Recipient, n)
	for i := range rs {
		r := recipient.Recipient{CampaignID: c.CampaignID, RecipientID: fmt.Sprintf("r%05d", i),
			Status:    gifting.RecipientStatuses[rng.IntN(len(gifting.RecipientStatuses))],
			CreatedAt: start.Add(time.Duration(rng.IntN(1_000)) * time.Second), // ties of createdAt too
			ContactDetails: recipient.ContactDetails{FirstName: fmt.Sprintf("First%d", i), LastName: lastNames[rng.IntN(len(lastNames))],
				Email: fmt.Sprintf("p%d@example.com", i)}}
		r.UpdatedAt = r.CreatedAt
		if rng.IntN(8) == 0 {
			r.Feedback.Rating = &like
		}
		rs[i] = r
	}
	if err := s.PutRecipients(ctx, orgID, c.CampaignID, rs); err != nil {
		t.Fatal(err)
	}
	return c.CampaignID
}

// nameQueries are last-name pages: those the Sort partition answers, and
// those with a filter or grouping that still read the Slim partition.
func nameQueries() []recipient.Query {
	yes := true
	var qs []recipient.Query
	for _, order := range []gifting.SortOrder{gifting.Desc, gifting.Asc, ""} {
		qs = append(qs,
			recipient.Query{SortBy: "lastName", Order: order},
			recipient.Query{SortBy: "lastName", Order: order, GroupByStatus: true},
			recipient.Query{SortBy: "lastName", Order: order, Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered}},
			recipient.Query{SortBy: "lastName", Order: order, Feedback: &yes},
		)
	}
	return qs
}

// sameNamePages checks that every last-name query's pages (the first, two
// in the middle, the last and one past it) are the Slim partition's
// answer: the same recipients in the same order, the same total.
func sameNamePages(t *testing.T, s *dynamo.Store, orgID, campaignID string, limit int, pages []int) {
	t.Helper()
	ctx := context.Background()
	type answer struct {
		ids   []string
		total int
	}
	got := map[string]answer{}
	for _, slim := range []bool{false, true} {
		if err := s.ForgetNamesMark(ctx, orgID, campaignID, slim); err != nil {
			t.Fatal(err)
		}
		for i, q := range nameQueries() {
			for _, page := range pages {
				q.Page = gifting.PageRequest{Page: page, Limit: limit}
				ids, total := pageIDs(t, s, orgID, campaignID, q)
				k := fmt.Sprintf("query %d (%q group %v statuses %v feedback %v) page %d", i, q.Order, q.GroupByStatus, q.Statuses, q.Feedback != nil, page)
				if !slim {
					got[k] = answer{ids, total}
					continue
				}
				if a := got[k]; !slices.Equal(a.ids, ids) || a.total != total {
					t.Errorf("%s: the Sort partition gave %v (total %d); the Slim partition %v (total %d)", k, a.ids, a.total, ids, total)
				}
			}
		}
	}
	if err := s.ForgetNamesMark(ctx, orgID, campaignID, false); err != nil {
		t.Fatal(err)
	}
}

// TestRecipientNamePagesAnswerAsBefore: over a campaign whose recipients'
// last names tie, differ only in case, prefix each other and hold letters
// beyond ASCII, in every state, every last-name page is the one the whole
// Slim partition gave (same recipients, order and total); a status move
// and feedback leave a recipient where it was in that order.
func TestRecipientNamePagesAnswerAsBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rnames", 0)
	campaignID := namesCampaign(t, s, orgID, 250, 1)
	sameNamePages(t, s, orgID, campaignID, 11, []int{1, 7, 12, 23, 24})

	q := recipient.Query{SortBy: "lastName", Order: gifting.Asc, Page: gifting.PageRequest{Page: 1, Limit: 100}}
	before, _ := pageIDs(t, s, orgID, campaignID, q)
	r, err := s.Recipient(ctx, orgID, campaignID, before[40])
	if err != nil {
		t.Fatal(err)
	}
	r.Status, r.Feedback.Rating = gifting.RecipientAcknowledged, &recipient.Rating{Value: "love", SubmittedAt: time.Now()}
	if err := s.RewriteRecipient(ctx, orgID, r); err != nil {
		t.Fatal(err)
	}
	if after, _ := pageIDs(t, s, orgID, campaignID, q); !slices.Equal(after, before) {
		t.Errorf("after a status move the last-name page changed: %v, was %v", after, before)
	}
	sameNamePages(t, s, orgID, campaignID, 25, []int{1, 5, 10, 11})
}

// TestRecipientNameMigration: a campaign whose recipients were written
// without name keys (the code before) answers its last-name pages from
// the Slim partition; `admin migrate -steps recipient-names` keys every
// recipient and marks the campaign, after which the pages are the same; a
// second run changes nothing.
func TestRecipientNameMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rnmigrate", 0)
	campaignID := namesCampaign(t, s, orgID, 120, 2)
	q := recipient.Query{SortBy: "lastName", Page: gifting.PageRequest{Page: 2, Limit: 50}}
	want, wantTotal := pageIDs(t, s, orgID, campaignID, q)
	if err := s.UnkeyNames(ctx, orgID, campaignID); err != nil {
		t.Fatal(err)
	}
	if got, total := pageIDs(t, s, orgID, campaignID, q); !slices.Equal(got, want) || total != wantTotal {
		t.Fatalf("before the migration: %v (total %d), want %v (%d)", got, total, want, wantTotal)
	}
	res, err := s.Migrate(ctx, orgID, []string{"recipient-names"})
	if err != nil || len(res) != 1 || res[0].Changed != 120 {
		t.Fatalf("migration: %+v, %v; want 120 recipients keyed", res, err)
	}
	sameNamePages(t, s, orgID, campaignID, 13, []int{1, 4, 10, 11})
	if res, err := s.Migrate(ctx, orgID, []string{"recipient-names"}); err != nil || res[0].Changed != 0 {
		t.Fatalf("second run: %+v, %v; want nothing changed", res, err)
	}
}

// TestLastNamePageCost: the first last-name page of a 3,000-recipient
// campaign reads the Sort partition's keys up to the page's end, not the
// campaign: its queries read under 2 read units, where the Slim partition
// (the campaign's mark forgotten) reads the whole campaign's entries.
func TestLastNamePageCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "lastname", 0)
	campaignID := namesCampaign(t, s, orgID, 3_000, 3)
	queried := func() (float64, int) {
		t.Helper()
		u := &meter.Usage{Record: true}
		_, err := s.ListRecipients(meter.WithUsage(ctx, u), orgID, campaignID, recipient.Query{
			SortBy: "lastName", Page: gifting.PageRequest{Page: 1, Limit: 12}})
		if err != nil {
			t.Fatal(err)
		}
		units := 0.0
		for _, c := range u.Calls() {
			if _, ok := c.Input.(*dynamodb.QueryInput); ok {
				units += c.ReadUnits
			}
		}
		return units, len(u.Calls())
	}
	indexed, requests := queried()
	if err := s.ForgetNamesMark(ctx, orgID, campaignID, true); err != nil {
		t.Fatal(err)
	}
	whole, _ := queried()
	t.Logf("last-name page of a 3,000-recipient campaign: %d requests, %.1f read units of queries; the Slim partition %.1f", requests, indexed, whole)
	if indexed > 2 || whole < 20*indexed || requests != 2 {
		t.Errorf("the last-name page: %d requests, its queries read %.1f units (the Slim partition: %.1f); want 2 requests and under 2 units", requests, indexed, whole)
	}
}
