package dynamo

import (
	"container/heap"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// SearchContacts returns the page of org's live contacts q finds, in the
// contacts page's order, and how many it finds (exact: every matching
// entry is counted, reading its key only).
//
// Costs: with a Lead term, one Query of the word entries whose word
// starts with the Lead (contacts_search.go), eventually consistent,
// filtered on every term and the list: about 1 read unit per 40-50 such
// entries (an entry is ~150-200 bytes), whatever the collection's size: a
// whole email reads its own entry; then one eventually
// consistent BatchGetItem of the page's items. Without one (every term
// shorter than contact.TokenLen) the whole Slim index is read with the
// same filter on its search text, about 1 read unit per 40 contacts, as
// every search did before the token entries; a list's search of such
// terms reads the list's members too.
func (s *Store) SearchContacts(ctx context.Context, orgID string, q contact.Search, page gifting.PageRequest) ([]contact.Contact, int, error) {
	ready, err := s.searchReady(ctx, orgID)
	if err != nil {
		return nil, 0, err
	}
	var ids []string
	var total int
	switch {
	case !ready:
		if ids, err = s.searchBeforeEntries(ctx, orgID, q.Terms, q.ListID); err != nil {
			return nil, 0, err
		}
		total = len(ids)
		lo, hi := page.Window(total)
		ids = ids[lo:hi]
	case q.Lead != "":
		ids, total, err = s.searchTokens(ctx, orgID, q, page)
	case q.ListID == "":
		ids, total, err = s.searchSlim(ctx, orgID, q.Terms, page)
	default:
		var matched, members []string
		if matched, _, err = s.searchSlim(ctx, orgID, q.Terms, gifting.PageRequest{Page: 1, Limit: 1 << 30}); err != nil {
			return nil, 0, err
		}
		if members, err = s.memberIDs(ctx, orgID, q.ListID, -1); err != nil {
			return nil, 0, err
		}
		ids = contact.Members(matched, members)
		total = len(ids)
		lo, hi := page.Window(total)
		ids = ids[lo:hi]
	}
	if err != nil {
		return nil, 0, err
	}
	stored, err := s.contactsByIDWith(ctx, orgID, ids, false)
	if err != nil {
		return nil, 0, err
	}
	out := make([]contact.Contact, 0, len(ids))
	for _, id := range ids {
		if c, ok := stored[id]; ok {
			out = append(out, c.contact())
		}
	}
	return out, total, nil
}

// searchTokens runs q through the word entries of its Lead: those whose
// word starts with it (a key condition: a long Lead reads its matches,
// not its token's every entry), filtered on the other terms and the list.
// They come in word order; the page is the matches' End() first in the
// contacts page's order (pageOfWordMatches).
func (s *Store) searchTokens(ctx context.Context, orgID string, q contact.Search, page gifting.PageRequest) ([]string, int, error) {
	filter, vals := termFilter(q.Terms, q.ListID, false)
	vals[":pk"] = str(searchPK(orgID, tokenSuffix(contact.Token(q.Lead))))
	vals[":lead"] = str(q.Lead)
	in := &dynamodb.QueryInput{
		TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :lead)"),
		FilterExpression: aws.String(filter), ExpressionAttributeValues: vals, ProjectionExpression: aws.String("SK, w"),
	}
	return s.pageOfWordMatches(ctx, in, q.Lead, page)
}

// pageOfWordMatches runs a Query of word entries whose word starts with
// lead to its end, counting each contact once (at its first entry word
// that lead starts: contact.FirstEntryWord, from the words the entry
// holds, so no set of ids) and keeping the page's End() greatest entry
// sort keys (the contacts page's order: newest first) in a bounded heap:
// the memory of the pages up to this one, whatever the matches.
func (s *Store) pageOfWordMatches(ctx context.Context, in *dynamodb.QueryInput, lead string, page gifting.PageRequest) ([]string, int, error) {
	top := &newestFirst{}
	n := 0
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("search contacts: %w", err)
		}
		for _, it := range res.Items {
			word, sk, _ := strings.Cut(attrS(it, "SK"), " ")
			if word != contact.FirstEntryWord(strings.Fields(attrS(it, "w")), lead) {
				continue // the contact is counted at another of its words
			}
			n++
			if top.Len() < page.End() {
				heap.Push(top, sk)
			} else if top.Len() > 0 && sk > (*top)[0] {
				(*top)[0] = sk
				heap.Fix(top, 0)
			}
		}
	}
	sks := []string(*top)
	slices.SortFunc(sks, func(a, b string) int { return strings.Compare(b, a) })
	lo, hi := page.Window(len(sks))
	ids := make([]string, 0, hi-lo)
	for _, sk := range sks[lo:hi] {
		ids = append(ids, contactOfEntrySK(sk))
	}
	return ids, n, nil
}

// newestFirst is a min-heap of entry sort keys: its root is the least of
// the greatest kept, the one a greater key replaces.
type newestFirst []string

func (h newestFirst) Len() int           { return len(h) }
func (h newestFirst) Less(i, j int) bool { return h[i] < h[j] }
func (h newestFirst) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *newestFirst) Push(x any)        { *h = append(*h, x.(string)) }
func (h *newestFirst) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// searchSlim runs terms through the whole Slim index, filtered on its
// search text (srch, contact.WordsText): the page's ids, and how many
// match.
func (s *Store) searchSlim(ctx context.Context, orgID string, terms []string, page gifting.PageRequest) ([]string, int, error) {
	return s.pageOfMatches(ctx, s.slimTextQuery(orgID, terms, " "), contactOfSK, page)
}

// slimTextQuery is the query of org's Slim index for the contacts whose
// search text holds every term, each after prefix (" ": at a word's
// start; "": anywhere, as before the search entries).
func (s *Store) slimTextQuery(orgID string, terms []string, prefix string) *dynamodb.QueryInput {
	in := s.slimQuery(contactsLPK(orgID), false)
	in.ProjectionExpression = aws.String("SK")
	conds := make([]string, len(terms))
	for i, t := range terms {
		name := fmt.Sprintf(":t%d", i)
		conds[i] = "contains(srch, " + name + ")"
		in.ExpressionAttributeValues[name] = str(prefix + strings.ToLower(t))
	}
	in.FilterExpression = aws.String(strings.Join(conds, " AND "))
	return in
}

// pageOfMatches runs a filtered query to its end, counting what it
// returns and keeping the ids (idOf its SK) of the page's window only: the
// memory of a page, whatever the matches.
func (s *Store) pageOfMatches(ctx context.Context, in *dynamodb.QueryInput, idOf func(string) string, page gifting.PageRequest) ([]string, int, error) {
	var ids []string
	n := 0
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return nil, 0, fmt.Errorf("search contacts: %w", err)
		}
		for _, it := range res.Items {
			if n >= page.Offset() && n < page.End() {
				ids = append(ids, idOf(attrS(it, "SK")))
			}
			n++
		}
	}
	return ids, n, nil
}
