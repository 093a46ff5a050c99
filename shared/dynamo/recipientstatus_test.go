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

// statusCampaign is a live campaign of n recipients whose statuses are
// drawn from weights (status → share), a tenth of those delivered or later
// with feedback, written as the store writes recipients.
func statusCampaign(t *testing.T, s *dynamo.Store, orgID string, n int, weights map[gifting.RecipientStatus]int, seed uint64) string {
	t.Helper()
	ctx := context.Background()
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "statuses", Status: campaign.Live})
	if err != nil {
		t.Fatal(err)
	}
	var pool []gifting.RecipientStatus
	for st, w := range weights {
		for range w {
			pool = append(pool, st)
		}
	}
	slices.Sort(pool)
	rng := rand.New(rand.NewPCG(seed, 7))
	like := recipient.Rating{Value: "like", SubmittedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rs := make([]recipient.Recipient, n)
	for i := range rs {
		r := recipient.Recipient{CampaignID: c.CampaignID, RecipientID: fmt.Sprintf("r%05d", i),
			Status:         pool[rng.IntN(len(pool))],
			CreatedAt:      start.Add(time.Duration(rng.IntN(1_000_000)) * time.Second),
			ContactDetails: recipient.ContactDetails{FirstName: fmt.Sprintf("First%d", i), LastName: "Last", Email: fmt.Sprintf("p%d@example.com", i)}}
		r.UpdatedAt = r.CreatedAt
		if r.Status.Rank() >= gifting.RecipientDelivered.Rank() && rng.IntN(10) == 0 || r.Status == gifting.RecipientInviteSent && rng.IntN(50) == 0 {
			r.Feedback.Rating = &like
		}
		rs[i] = r
	}
	if err := s.PutRecipients(ctx, orgID, c.CampaignID, rs); err != nil {
		t.Fatal(err)
	}
	return c.CampaignID
}

// statusQueries are the pages the status partitions answer.
func statusQueries() []recipient.Query {
	yes, no := true, false
	var qs []recipient.Query
	for _, order := range []gifting.SortOrder{gifting.Desc, gifting.Asc} {
		qs = append(qs,
			recipient.Query{Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered}, Order: order},
			recipient.Query{Statuses: []gifting.RecipientStatus{gifting.RecipientInviteSent, gifting.RecipientExpired}, Order: order},
			recipient.Query{Statuses: []gifting.RecipientStatus{gifting.RecipientDeclined, gifting.RecipientPending}, Order: order},
			recipient.Query{Feedback: &yes, Order: order},
			recipient.Query{Feedback: &no, Order: order},
			recipient.Query{Feedback: &yes, Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered, gifting.RecipientInviteSent}, Order: order},
			recipient.Query{Feedback: &no, Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered}, Order: order},
			recipient.Query{GroupByStatus: true, Order: order},
			recipient.Query{SortBy: "status", Order: order},
			recipient.Query{SortBy: "status", GroupByStatus: true, Statuses: []gifting.RecipientStatus{gifting.RecipientShipped, gifting.RecipientPending}, Order: order},
		)
	}
	return qs
}

// pageIDs lists the page's recipient ids and its total.
func pageIDs(t *testing.T, s *dynamo.Store, orgID, campaignID string, q recipient.Query) ([]string, int) {
	t.Helper()
	p, err := s.ListRecipients(context.Background(), orgID, campaignID, q)
	if err != nil {
		t.Fatalf("%+v: %v", q, err)
	}
	ids := make([]string, len(p.Recipients))
	for i, r := range p.Recipients {
		ids[i] = r.RecipientID
	}
	return ids, p.Total
}

// samePages checks that every query's pages (the first, one in the middle,
// the last and one past it) are the same as the Slim partition's answer:
// the same recipients in the same order, the same total.
func samePages(t *testing.T, s *dynamo.Store, orgID, campaignID string) {
	t.Helper()
	ctx := context.Background()
	type answer struct {
		ids   []string
		total int
	}
	got := map[string]answer{}
	pages := []int{1, 4, 12, 40}
	for _, slim := range []bool{false, true} {
		if err := s.ForgetStatusMark(ctx, orgID, campaignID, slim); err != nil {
			t.Fatal(err)
		}
		for i, q := range statusQueries() {
			for _, page := range pages {
				q.Page = gifting.PageRequest{Page: page, Limit: 9}
				ids, total := pageIDs(t, s, orgID, campaignID, q)
				k := fmt.Sprintf("query %d (%s %s group %v statuses %v feedback %v) page %d", i, q.SortBy, q.Order, q.GroupByStatus, q.Statuses, q.Feedback != nil && *q.Feedback, page)
				if !slim {
					got[k] = answer{ids, total}
					continue
				}
				if a := got[k]; !slices.Equal(a.ids, ids) || a.total != total {
					t.Errorf("%s: status partitions gave %v (total %d); the Slim partition %v (total %d)", k, a.ids, a.total, ids, total)
				}
			}
		}
	}
	if err := s.ForgetStatusMark(ctx, orgID, campaignID, false); err != nil {
		t.Fatal(err)
	}
}

// TestRecipientStatusPagesAnswerAsBefore: over a campaign of recipients in
// every state, some with feedback, every page a status filter, a feedback
// filter or a status order asks for is the one the whole Slim partition
// gave (same recipients, order and total); a status move shows in the new
// status's pages and not the old one's.
func TestRecipientStatusPagesAnswerAsBefore(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rstatus", 0)
	w := map[gifting.RecipientStatus]int{}
	for i, st := range gifting.RecipientStatuses {
		w[st] = 1 + i%3
	}
	campaignID := statusCampaign(t, s, orgID, 300, w, 1)
	samePages(t, s, orgID, campaignID)

	// Move the oldest delivered recipient on: it leaves delivered's pages.
	q := recipient.Query{Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered}, Order: gifting.Asc, Page: gifting.PageRequest{Page: 1, Limit: 100}}
	before, _ := pageIDs(t, s, orgID, campaignID, q)
	ctx := context.Background()
	r, err := s.Recipient(ctx, orgID, campaignID, before[0])
	if err != nil {
		t.Fatal(err)
	}
	r.Status = gifting.RecipientAcknowledged
	if err := s.RewriteRecipient(ctx, orgID, r); err != nil {
		t.Fatal(err)
	}
	after, _ := pageIDs(t, s, orgID, campaignID, q)
	if slices.Contains(after, before[0]) || len(after) != len(before)-1 {
		t.Errorf("after its move to acknowledged, delivered lists %d (had %d), the moved one still there: %v", len(after), len(before), slices.Contains(after, before[0]))
	}
	q.Statuses = []gifting.RecipientStatus{gifting.RecipientAcknowledged}
	if acked, _ := pageIDs(t, s, orgID, campaignID, q); !slices.Contains(acked, before[0]) {
		t.Errorf("the moved recipient is not among the acknowledged")
	}
}

// TestRecipientStatusMigration: a campaign whose recipients were written
// without status keys (the code before) answers from the Slim partition;
// `admin migrate -steps recipient-status` keys every recipient and marks
// the campaign, after which the pages are the same; a second run changes
// nothing.
func TestRecipientStatusMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rmigrate", 0)
	w := map[gifting.RecipientStatus]int{gifting.RecipientInviteSent: 5, gifting.RecipientDelivered: 2, gifting.RecipientExpired: 1}
	campaignID := statusCampaign(t, s, orgID, 120, w, 2)
	q := recipient.Query{Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered}, Page: gifting.PageRequest{Page: 1, Limit: 100}}
	want, wantTotal := pageIDs(t, s, orgID, campaignID, q)
	if err := s.UnkeyStatuses(ctx, orgID, campaignID); err != nil {
		t.Fatal(err)
	}
	if got, total := pageIDs(t, s, orgID, campaignID, q); !slices.Equal(got, want) || total != wantTotal {
		t.Fatalf("before the migration: %d recipients (total %d), want %d (%d)", len(got), total, len(want), wantTotal)
	}
	res, err := s.Migrate(ctx, orgID, []string{"recipient-status"})
	if err != nil || len(res) != 1 || res[0].Changed != 120 {
		t.Fatalf("migration: %+v, %v; want 120 recipients keyed", res, err)
	}
	samePages(t, s, orgID, campaignID)
	if res, err := s.Migrate(ctx, orgID, []string{"recipient-status"}); err != nil || res[0].Changed != 0 {
		t.Fatalf("second run: %+v, %v; want nothing changed", res, err)
	}
}

// TestRareStatusPageCost: a page of the ten delivered recipients of a
// 3,000-recipient campaign reads their partition and the page, not the
// campaign: its queries read under 2 read units, where the Slim partition
// (the campaign's mark forgotten) reads the whole campaign's entries.
func TestRareStatusPageCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "rare", 0)
	campaignID := statusCampaign(t, s, orgID, 3_000, map[gifting.RecipientStatus]int{gifting.RecipientInviteSent: 299, gifting.RecipientDelivered: 1}, 3)
	queried := func() float64 {
		t.Helper()
		u := &meter.Usage{Record: true}
		_, err := s.ListRecipients(meter.WithUsage(ctx, u), orgID, campaignID, recipient.Query{
			Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered}, Page: gifting.PageRequest{Page: 1, Limit: 12}})
		if err != nil {
			t.Fatal(err)
		}
		units := 0.0
		for _, c := range u.Calls() {
			if _, ok := c.Input.(*dynamodb.QueryInput); ok {
				units += c.ReadUnits
			}
		}
		return units
	}
	indexed := queried()
	if err := s.ForgetStatusMark(ctx, orgID, campaignID, true); err != nil {
		t.Fatal(err)
	}
	whole := queried()
	t.Logf("delivered page of a 3,000-recipient campaign: %.1f read units of queries, the Slim partition %.1f", indexed, whole)
	if indexed > 2 || whole < 20*indexed {
		t.Errorf("the status page's queries read %.1f units (the Slim partition: %.1f); want under 2", indexed, whole)
	}
}

// TestFeedbackPageRequests: a feedback filter over a 1,000-recipient
// campaign where nobody left feedback answers an empty page from the
// campaign's counters (one read, where each status's feedback partition
// was a Query); once some did, it reads the partitions of the statuses
// recipients are in, and the page is the Slim partition's.
func TestFeedbackPageRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "fbpage", 0)
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "no feedback", Status: campaign.Live})
	if err != nil {
		t.Fatal(err)
	}
	rs := make([]recipient.Recipient, 1_000)
	for i := range rs {
		at := time.Date(2026, 11, 1, 0, 0, i, 0, time.UTC)
		rs[i] = recipient.Recipient{CampaignID: c.CampaignID, RecipientID: fmt.Sprintf("r%04d", i), CreatedAt: at, UpdatedAt: at,
			Status:         []gifting.RecipientStatus{gifting.RecipientInviteSent, gifting.RecipientDelivered}[i%2],
			ContactDetails: recipient.ContactDetails{FirstName: "F", LastName: "L", Email: fmt.Sprintf("p%d@example.com", i)}}
	}
	if err := s.PutRecipients(ctx, orgID, c.CampaignID, rs); err != nil {
		t.Fatal(err)
	}
	yes := true
	q := recipient.Query{Feedback: &yes, Page: gifting.PageRequest{Page: 1, Limit: 20}}
	u := &meter.Usage{Record: true}
	p, err := s.ListRecipients(meter.WithUsage(ctx, u), orgID, c.CampaignID, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Recipients) != 0 || p.Total != 0 {
		t.Errorf("nobody left feedback, yet the page lists %d (total %d)", len(p.Recipients), p.Total)
	}
	if n := len(u.Calls()); n > 1 {
		t.Errorf("a feedback page of a campaign without feedback made %d requests, want 1 (its counters)", n)
	}

	like := recipient.Rating{Value: "like", SubmittedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}
	for i := range rs {
		if i%10 == 1 {
			rs[i].Feedback.Rating = &like
		}
	}
	if err := s.PutRecipients(ctx, orgID, c.CampaignID, rs); err != nil {
		t.Fatal(err)
	}
	u = &meter.Usage{Record: true}
	ids, total := pageIDs(t, s, orgID, c.CampaignID, q)
	if _, err := s.ListRecipients(meter.WithUsage(ctx, u), orgID, c.CampaignID, q); err != nil {
		t.Fatal(err)
	}
	// The campaign, the feedback partitions of pending, invite_sent and
	// delivered (the others counted empty), the page.
	if n := len(u.Calls()); n > 5 {
		t.Errorf("a feedback page made %d requests, want at most 5", n)
	}
	if err := s.ForgetStatusMark(ctx, orgID, c.CampaignID, true); err != nil {
		t.Fatal(err)
	}
	slim, slimTotal := pageIDs(t, s, orgID, c.CampaignID, q)
	if !slices.Equal(ids, slim) || total != slimTotal || total != 100 {
		t.Errorf("the feedback page lists %v (total %d); the Slim partition %v (total %d); want 100 in all", ids, total, slim, slimTotal)
	}
}
