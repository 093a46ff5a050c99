package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// maxSearchTerms bounds the words of a search; each is one contains() of
// the filter.
const maxSearchTerms = 8

// ListContacts returns a page of org's live contacts, newest first, and how
// many there are. A non-empty search keeps the contacts whose names, email
// or company contain every word of it, case-insensitively.
//
// Costs: page 1 is one Query of the page's items, next to a read of the
// contacts counter. A deeper page reads the counter, skips the contacts
// before it in the Slim index (small entries: about 1 read unit per 48
// contacts skipped), then queries the page's items from where the skip
// ended. The Slim index is eventually consistent, so a contact written in
// the last moment may shift a deep page by one. A search reads
// the whole Slim partition with a filter (about 1 read unit per 50
// contacts) and then the page's items by key: it is O(collection) in index
// entries, never in items.
func (s *Store) ListContacts(ctx context.Context, orgID, search string, page gifting.PageRequest) ([]gifting.Contact, int, error) {
	if terms := strings.Fields(strings.ToLower(search)); len(terms) > 0 {
		return s.searchContacts(ctx, orgID, terms, page)
	}
	if page.Offset() > 0 {
		// A deep page reads the counter first: a page past the end then
		// costs one read instead of a walk through the whole index.
		total, err := s.counter(ctx, orgID, counterContacts)
		if err != nil {
			return nil, 0, err
		}
		if int64(page.Offset()) >= total {
			return []gifting.Contact{}, int(total), nil
		}
		contacts, err := s.contactPage(ctx, orgID, page)
		return contacts, int(total), err
	}
	// Page 1: the counter and the page are independent reads, made at once.
	type count struct {
		n   int64
		err error
	}
	ch := make(chan count, 1)
	go func() {
		n, err := s.counter(ctx, orgID, counterContacts)
		ch <- count{n, err}
	}()
	contacts, err := s.contactPage(ctx, orgID, page)
	total := <-ch
	if err != nil {
		return nil, 0, err
	}
	if total.err != nil {
		return nil, 0, total.err
	}
	return contacts, int(total.n), nil
}

// contactPage reads the items of one page of contacts.
func (s *Store) contactPage(ctx context.Context, orgID string, page gifting.PageRequest) ([]gifting.Contact, error) {
	in := s.contactRange(orgID, false)
	in.ConsistentRead = aws.Bool(true)
	if off := page.Offset(); off > 0 {
		last, err := s.skipSlim(ctx, contactsLPK(orgID), false, off)
		if err != nil || last == "" {
			return []gifting.Contact{}, err
		}
		in.ExclusiveStartKey = key(orgPK(orgID), last)
	}
	out := make([]gifting.Contact, 0, page.Limit)
	for len(out) < page.Limit {
		in.Limit = aws.Int32(int32(page.Limit - len(out)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("query contacts: %w", err)
		}
		for _, it := range res.Items {
			c, err := decodeContact(it)
			if err != nil {
				return nil, err
			}
			out = append(out, c.Contact)
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}

// searchContacts pages through the contacts whose search text contains
// every term.
func (s *Store) searchContacts(ctx context.Context, orgID string, terms []string, page gifting.PageRequest) ([]gifting.Contact, int, error) {
	ids, err := s.searchContactIDs(ctx, orgID, terms)
	if err != nil {
		return nil, 0, err
	}
	lo, hi := page.Window(len(ids))
	contacts, err := s.ContactsByID(ctx, orgID, ids[lo:hi])
	if err != nil {
		return nil, 0, err
	}
	return contacts, len(ids), nil
}

// searchContactIDs returns the ids of org's live contacts whose search text
// contains every term, newest first: one walk of the Slim partition.
func (s *Store) searchContactIDs(ctx context.Context, orgID string, terms []string) ([]string, error) {
	if len(terms) > maxSearchTerms {
		terms = terms[:maxSearchTerms]
	}
	in := s.slimQuery(contactsLPK(orgID), false)
	in.ProjectionExpression = aws.String("LSK")
	filterTerms(in, terms)
	var ids []string
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("search contacts: %w", err)
		}
		for _, it := range res.Items {
			if lsk, ok := it["LSK"].(*types.AttributeValueMemberS); ok {
				ids = append(ids, strings.TrimPrefix(lsk.Value, contactPrefix))
			}
		}
	}
	return ids, nil
}
