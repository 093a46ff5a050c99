package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// slimRecipient is a recipient's entry in the Slim index.
type slimRecipient struct {
	// SK is the recipient's table sort key; LSK orders by creation (for a
	// legacy recipient it is SK).
	SK   string `json:"SK"`
	LSK  string `json:"LSK"`
	St   string `json:"st"`
	Srch string `json:"srch"`
	Upd  string `json:"upd"`
	Srt  string `json:"srt"`
}

// ListRecipients returns a page of a campaign's recipients. It costs two
// requests: a Query of the campaign's Slim partition (small entries: keys
// and the filter and sort attributes), then one BatchGetItem for the
// campaign, the profile (WithOrg) and the page's recipients.
//
// Sorted by createdAt with at most a status filter, the Query stops one
// entry after the page and the total comes from the campaign's counters
// where the entries cannot tell it (gifting.PageTotal: the counters trail
// the recipients a launch slice wrote until the slice is counted, so the
// entry after the page says whether one follows, and the last page's
// total is the entries'): the cost is the Slim entries up to the page's
// end. Any other sort or filter reads the campaign's whole Slim partition
// (about 150 bytes a recipient, so one read unit per ~50 recipients) and
// sorts it in memory.
//
// A missing, deleted or another organization's campaign is
// campaign.ErrNotFound (campaign.Reader).
func (s *Store) ListRecipients(ctx context.Context, orgID, campaignID string, q recipient.Query) (campaign.RecipientListPage, error) {
	if q.SortBy == "" {
		q.SortBy = "createdAt"
	}
	if q.Order == "" {
		q.Order = gifting.Desc
	}
	q.Search = strings.ToLower(strings.TrimSpace(q.Search))
	fast := q.SortBy == "createdAt" && q.Search == "" && q.UserID == "" && q.Feedback == nil && !q.GroupByStatus
	entries, exhausted, err := s.slimRecipients(ctx, orgID, campaignID, q, fast, q.Page.End()+1)
	if err != nil {
		return campaign.RecipientListPage{}, err
	}
	if !fast {
		sortRecipients(entries, q)
	}
	lo, hi := q.Page.Window(len(entries))
	window := entries[lo:hi]

	keys := []item{key(orgPK(orgID), campaignSK(campaignID))}
	if q.WithOrg {
		keys = append(keys, key(orgPK(orgID), profileSK))
	}
	for _, e := range window {
		keys = append(keys, key(orgPK(orgID), e.SK))
	}
	// Eventually consistent, as the Slim entries that chose the page are:
	// a list page need not show a write of the last second (no rule reads
	// it), and it costs half the read units of a consistent read.
	got, err := s.batchGetAs(ctx, keys, false)
	if err != nil {
		return campaign.RecipientListPage{}, err
	}
	var page campaign.RecipientListPage
	bySK := make(map[string]item, len(got))
	for _, it := range got {
		bySK[attrS(it, "SK")] = it
	}
	if it := bySK[campaignSK(campaignID)]; it == nil {
		return page, campaign.ErrNotFound
	} else if page.Campaign, err = decodeCampaign(it); err != nil {
		return page, err
	}
	if page.Campaign.IsDeleted {
		return campaign.RecipientListPage{}, campaign.ErrNotFound
	}
	page.Campaign.Normalize()
	if q.WithOrg {
		if it := bySK[profileSK]; it != nil {
			if err := unmarshal(it, &page.Org); err != nil {
				return page, err
			}
		}
	}
	page.Recipients = make([]recipient.Recipient, 0, len(window))
	for _, e := range window {
		it := bySK[e.SK]
		if it == nil {
			continue // the index saw a write the table has not: cannot happen without deletes
		}
		r, err := s.readRecipient(ctx, it)
		if err != nil {
			return page, err
		}
		page.Recipients = append(page.Recipients, r.Recipient)
	}
	page.Total = len(entries)
	if fast && !exhausted {
		page.Total = gifting.PageTotal(q.Page, countOf(page.Campaign, q.Statuses), len(entries))
	}
	return page, nil
}

// countOf is the number of c's recipients in any of statuses (all when
// empty), from its counters.
func countOf(c campaign.Campaign, statuses []gifting.RecipientStatus) int {
	if len(statuses) == 0 {
		return int(c.TotalRecipients)
	}
	var n int64
	for _, st := range statuses {
		n += c.LiveData.StatusCounts[st]
	}
	return int(n)
}

// slimRecipients queries the campaign's Slim partition with q's filters.
// With stopEarly it reads in createdAt order and stops once need entries
// matched; exhausted reports that it read to the end.
func (s *Store) slimRecipients(ctx context.Context, orgID, campaignID string, q recipient.Query, stopEarly bool, need int) (entries []slimRecipient, exhausted bool, err error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexSlim),
		KeyConditionExpression:    aws.String("LPK = :lpk"),
		ExpressionAttributeValues: item{":lpk": str(recipientsLPK(orgID, campaignID))},
		ScanIndexForward:          aws.Bool(!stopEarly || q.Order == gifting.Asc),
	}
	var conds []string
	if len(q.Statuses) > 0 {
		vs := make([]string, len(q.Statuses))
		for i, st := range q.Statuses {
			vs[i] = ":st" + strconv.Itoa(i)
			in.ExpressionAttributeValues[vs[i]] = str(string(st))
		}
		conds = append(conds, "st IN ("+strings.Join(vs, ", ")+")")
	}
	// Every word of the search must be in "first last" (docs/api.md, "Search
	// parameter"), in any order.
	var words []string
	for _, w := range strings.Fields(q.Search) {
		if !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	for i, w := range words {
		v := ":q" + strconv.Itoa(i)
		conds = append(conds, "contains(srch, "+v+")")
		in.ExpressionAttributeValues[v] = str(w)
	}
	if q.UserID != "" {
		conds = append(conds, "contains(au, :u)")
		in.ExpressionAttributeValues[":u"] = str(" " + q.UserID + " ")
	}
	if q.Feedback != nil {
		if *q.Feedback {
			conds = append(conds, "attribute_exists(fb)")
		} else {
			conds = append(conds, "attribute_not_exists(fb)")
		}
	}
	if len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
	} else if stopEarly {
		// Without a filter every entry read matches: read just enough.
		in.Limit = aws.Int32(int32(min(need, 10_000)))
	}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		if stopEarly && len(entries) >= need {
			return entries, false, nil
		}
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, false, fmt.Errorf("query recipients: %w", err)
		}
		for _, it := range out.Items {
			var e slimRecipient
			if err := unmarshal(it, &e); err != nil {
				return nil, false, err
			}
			entries = append(entries, e)
		}
	}
	return entries, true, nil
}

// statusOrder is where a status sorts: the journey's order, then expired
// (gifting.RecipientStatuses).
func statusOrder(st string) int {
	return slices.Index(gifting.RecipientStatuses, gifting.RecipientStatus(st))
}

// sortRecipients orders Slim entries by q's sort (ties by creation, which
// the ULID in LSK gives), status first when grouping.
func sortRecipients(es []slimRecipient, q recipient.Query) {
	field := func(e slimRecipient, i int) string {
		parts := strings.SplitN(e.Srt, sortSep, 4)
		if i < len(parts) {
			return parts[i]
		}
		return ""
	}
	by := func(a, b slimRecipient) int {
		switch q.SortBy {
		case "updatedAt":
			return cmp.Compare(a.Upd, b.Upd)
		case "firstName":
			return cmp.Compare(field(a, 0), field(b, 0))
		case "lastName":
			return cmp.Compare(field(a, 1), field(b, 1))
		case "email":
			return cmp.Compare(field(a, 2), field(b, 2))
		case "company":
			return cmp.Compare(field(a, 3), field(b, 3))
		case "status":
			return cmp.Compare(statusOrder(a.St), statusOrder(b.St))
		}
		return 0
	}
	slices.SortStableFunc(es, func(a, b slimRecipient) int {
		if q.GroupByStatus {
			if c := cmp.Compare(statusOrder(a.St), statusOrder(b.St)); c != 0 {
				return c
			}
		}
		c := cmp.Or(by(a, b), cmp.Compare(a.LSK, b.LSK))
		if q.Order == gifting.Desc {
			return -c
		}
		return c
	})
}
