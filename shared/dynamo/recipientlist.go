package dynamo

import (
	"cmp"
	"container/heap"
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

// slimRecipient is a recipient's entry in the Slim index, as a list page
// reads it: SK is the recipient's table sort key; LSK orders by creation
// (for a legacy recipient it is SK); St, Upd and Srt are its status,
// updatedAt and sort text (the other sorts' fields).
type slimRecipient struct {
	SK, LSK, St, Upd, Srt string
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
// (about 150 bytes a recipient, so one read unit per ~50 recipients),
// keeping only the first entries of its order up to the page's end as
// they stream by (topRecipients): the memory of the page's end, not of the
// campaign.
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
	if q.Page.Resume.Cursor() {
		return s.recipientsAfter(ctx, orgID, campaignID, q)
	}
	if srch, ok := recipientSearch(q); ok {
		page, indexed, err := s.listBySearch(ctx, orgID, campaignID, q, srch)
		if err != nil || indexed {
			return page, err
		}
	}
	if srch, ok := recipientFilteredSearch(q); ok {
		page, indexed, err := s.listByFilteredSearch(ctx, orgID, campaignID, q, srch)
		if err != nil || indexed {
			return page, err
		}
	}
	if statusIndexable(q) {
		page, indexed, err := s.listByStatus(ctx, orgID, campaignID, q)
		if err != nil || indexed {
			return page, err
		}
	}
	if nameIndexable(q) {
		page, indexed, err := s.listByName(ctx, orgID, campaignID, q)
		if err != nil || indexed {
			return page, err
		}
	}
	fast := slimOrdered(q)
	var entries []slimRecipient
	var total int
	exhausted := true
	if fast {
		var err error
		if entries, exhausted, err = s.slimRecipients(ctx, orgID, campaignID, q, true, q.Page.End()+1, nil, nil); err != nil {
			return campaign.RecipientListPage{}, err
		}
		total = len(entries)
	} else {
		top := newTopRecipients(recipientOrder(q), q.Page.End())
		if _, _, err := s.slimRecipients(ctx, orgID, campaignID, q, false, 0, nil, top.add); err != nil {
			return campaign.RecipientListPage{}, err
		}
		entries, total = top.sorted(), top.total
	}
	page, _, err := s.recipientPageOf(ctx, orgID, campaignID, q, entries)
	if err != nil {
		return page, err
	}
	page.Total = total
	if fast && !exhausted {
		page.Total = gifting.PageTotal(q.Page, countOf(page.Campaign, q.Statuses), len(entries))
	}
	if fast {
		setRecipientNext(q.Page, entries, posCreated)
	}
	return page, nil
}

// slimOrdered reports whether q's page is the Slim partition's creation
// order, at most filtered on status: read up to the page's end.
func slimOrdered(q recipient.Query) bool {
	return q.SortBy == "createdAt" && q.Search == "" && q.UserID == "" && q.Feedback == nil && !q.GroupByStatus
}

// recipientPageOf reads q's page of entries (the entries up to the page's
// end, in its order): one BatchGetItem of the campaign, the profile
// (WithOrg) and the page's recipients. It returns the campaign's item as
// read too. A missing or deleted campaign is campaign.ErrNotFound.
func (s *Store) recipientPageOf(ctx context.Context, orgID, campaignID string, q recipient.Query, entries []slimRecipient) (campaign.RecipientListPage, item, error) {
	return s.recipientPageWith(ctx, orgID, campaignID, q, entries, nil)
}

// recipientPageWith is recipientPageOf when the campaign's item was read
// already (cit; nil: read it with the page): the batch then leaves it out,
// and an empty page with no profile to read makes no request.
func (s *Store) recipientPageWith(ctx context.Context, orgID, campaignID string, q recipient.Query, entries []slimRecipient, cit item) (campaign.RecipientListPage, item, error) {
	lo, hi := q.Page.Window(len(entries))
	window := entries[lo:hi]
	var keys []item
	if cit == nil {
		keys = append(keys, key(orgPK(orgID), campaignSK(campaignID)))
	}
	if q.WithOrg {
		keys = append(keys, key(orgPK(orgID), profileSK))
	}
	for _, e := range window {
		keys = append(keys, key(orgPK(orgID), e.SK))
	}
	// Eventually consistent, as the index entries that chose the page are:
	// a list page need not show a write of the last second (no rule reads
	// it), and it costs half the read units of a consistent read.
	var got []item
	if len(keys) > 0 {
		var err error
		if got, err = s.batchGetAs(ctx, keys, false); err != nil {
			return campaign.RecipientListPage{}, nil, err
		}
	}
	bySK := make(map[string]item, len(got))
	for _, it := range got {
		bySK[attrS(it, "SK")] = it
	}
	return s.recipientPageFrom(ctx, campaignID, q, window, bySK, cit)
}

// recipientPageFrom is the page of window's recipients from the items read
// (bySK: the recipients, the campaign unless cit holds it, the profile
// when q.WithOrg), and the campaign's item.
func (s *Store) recipientPageFrom(ctx context.Context, campaignID string, q recipient.Query, window []slimRecipient, bySK map[string]item, cit item) (campaign.RecipientListPage, item, error) {
	var page campaign.RecipientListPage
	if cit == nil {
		cit = bySK[campaignSK(campaignID)]
	}
	var err error
	if cit == nil {
		return page, nil, campaign.ErrNotFound
	} else if page.Campaign, err = decodeCampaign(cit); err != nil {
		return page, nil, err
	}
	if page.Campaign.IsDeleted {
		return campaign.RecipientListPage{}, nil, campaign.ErrNotFound
	}
	page.Campaign.Normalize()
	if q.WithOrg {
		if it := bySK[profileSK]; it != nil {
			if err := unmarshal(it, &page.Org); err != nil {
				return page, nil, err
			}
		}
	}
	page.Recipients, err = s.recipientsOf(ctx, window, bySK)
	return page, cit, err
}

// recipientsOf are the recipients of window's entries among the items
// read, in window's order.
func (s *Store) recipientsOf(ctx context.Context, window []slimRecipient, bySK map[string]item) ([]recipient.Recipient, error) {
	out := make([]recipient.Recipient, 0, len(window))
	for _, e := range window {
		it := bySK[e.SK]
		if it == nil {
			continue // the index saw a write the table has not: cannot happen without deletes
		}
		r, err := s.readRecipient(ctx, it)
		if err != nil {
			return out, err
		}
		out = append(out, r.Recipient)
	}
	return out, nil
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
// matched; exhausted reports that it read to the end. Each entry goes to
// each when it is not nil, else into entries.
//
// start, when not nil, is the ExclusiveStartKey the Query starts after (a
// page by cursor).
func (s *Store) slimRecipients(ctx context.Context, orgID, campaignID string, q recipient.Query, stopEarly bool, need int, start item, each func(slimRecipient)) (entries []slimRecipient, exhausted bool, err error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexSlim),
		KeyConditionExpression:    aws.String("LPK = :lpk"),
		ExpressionAttributeValues: item{":lpk": str(recipientsLPK(orgID, campaignID))},
		ScanIndexForward:          aws.Bool(!stopEarly || q.Order == gifting.Asc),
		// What an entry is read for (the filters still see the rest).
		ProjectionExpression: aws.String("SK, LSK, st, upd, srt"),
		ExclusiveStartKey:    start,
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
	// Every word of the search must start a word of "first last", in any
	// order (recipient.NewSearch; the word entries answer the same).
	if srch, ok := recipient.NewSearch(q.Search); ok {
		for i, w := range srch.Terms {
			v := ":q" + strconv.Itoa(i)
			conds = append(conds, fmt.Sprintf("(begins_with(srch, %s) OR contains(srch, %s_))", v, v))
			in.ExpressionAttributeValues[v], in.ExpressionAttributeValues[v+"_"] = str(w), str(" "+w)
		}
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
			e := slimRecipient{SK: attrS(it, "SK"), LSK: attrS(it, "LSK"), St: attrS(it, "st"), Upd: attrS(it, "upd"), Srt: attrS(it, "srt")}
			if each != nil {
				each(e)
			} else {
				entries = append(entries, e)
			}
		}
	}
	return entries, true, nil
}

// statusOrder is where a status sorts: the journey's order, then expired
// (gifting.RecipientStatuses).
func statusOrder(st string) int {
	return slices.Index(gifting.RecipientStatuses, gifting.RecipientStatus(st))
}

// recipientOrder is the order of Slim entries q asks for (ties by
// creation, which the ULID in LSK gives, so no two entries tie), status
// first when grouping.
func recipientOrder(q recipient.Query) func(a, b slimRecipient) int {
	field := func(e slimRecipient, i int) string { return srtField(e.Srt, i) }
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
	return func(a, b slimRecipient) int {
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
	}
}

// srtField is field i of a Slim entry's srt (0 first name, 1 last name,
// 2 email, 3 company), "" when it has none.
func srtField(srt string, i int) string {
	parts := strings.SplitN(srt, sortSep, 4)
	if i < len(parts) {
		return parts[i]
	}
	return ""
}

// topRecipients keeps, of the entries streamed to it, the first n in an
// order, and counts them all: a heap whose root is the last entry kept, so
// an entry that sorts after it is dropped at once. It holds n entries
// whatever the campaign's size.
type topRecipients struct {
	order func(a, b slimRecipient) int
	n     int
	kept  []slimRecipient
	total int
}

func newTopRecipients(order func(a, b slimRecipient) int, n int) *topRecipients {
	return &topRecipients{order: order, n: n, kept: make([]slimRecipient, 0, min(n, 1024))}
}

// add takes the next entry.
func (t *topRecipients) add(e slimRecipient) {
	t.total++
	switch {
	case t.n <= 0:
	case len(t.kept) < t.n:
		heap.Push(t, e)
	case t.order(e, t.kept[0]) < 0:
		t.kept[0] = e
		heap.Fix(t, 0)
	}
}

// sorted returns the entries kept, in order.
func (t *topRecipients) sorted() []slimRecipient {
	slices.SortFunc(t.kept, t.order)
	return t.kept
}

// heap.Interface: the root is the entry that sorts last.
func (t *topRecipients) Len() int           { return len(t.kept) }
func (t *topRecipients) Less(i, j int) bool { return t.order(t.kept[i], t.kept[j]) > 0 }
func (t *topRecipients) Swap(i, j int)      { t.kept[i], t.kept[j] = t.kept[j], t.kept[i] }
func (t *topRecipients) Push(x any)         { t.kept = append(t.kept, x.(slimRecipient)) }
func (t *topRecipients) Pop() any {
	e := t.kept[len(t.kept)-1]
	t.kept = t.kept[:len(t.kept)-1]
	return e
}
