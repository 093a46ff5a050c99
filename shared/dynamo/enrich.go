package dynamo

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/contact"
)

// enrichChunk is how many candidates are read at a time (one BatchGet).
const enrichChunk = 100

// Candidates yields org's live contacts that may match q, in the contacts
// page's order, the slice deciding which one does (contact.Finder):
//
//   - with a LinkedIn URL, the first contact with it, from its LinkedIn
//     entry (contacts_search.go): one Query of one entry and one read of
//     the contact;
//   - then, when q names someone, the contacts that have every word of the
//     first name, last name and company as a whole word, from the word
//     entries of the longest of those words (filtered on the others), read
//     enrichChunk at a time. When no word is contact.TokenLen characters
//     long, the whole Slim index is read with that filter instead.
//
// Every read is eventually consistent: an enrichment is a lookup, not a
// rule. It reads no further than the consumer wants.
func (s *Store) Candidates(ctx context.Context, orgID string, q contact.Query) iter.Seq2[[]contact.Contact, error] {
	return func(yield func([]contact.Contact, error) bool) {
		if ready, err := s.searchReady(ctx, orgID); err != nil || !ready {
			if err != nil {
				yield(nil, err)
				return
			}
			s.candidatesBeforeEntries(ctx, orgID, q)(yield)
			return
		}
		if li := contact.LinkedinKey(q.LinkedinURL); li != "" {
			res, err := s.db.Query(ctx, &dynamodb.QueryInput{
				TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk"),
				ExpressionAttributeValues: item{":pk": str(searchPK(orgID, linkedinSuffix(li)))},
				ProjectionExpression:      aws.String("SK"), ScanIndexForward: aws.Bool(false), Limit: aws.Int32(1),
			})
			if err != nil {
				yield(nil, fmt.Errorf("enrich: %w", err))
				return
			}
			if len(res.Items) > 0 && !s.yieldContacts(ctx, orgID, []string{contactOfEntrySK(attrS(res.Items[0], "SK"))}, yield) {
				return
			}
		}
		if !q.Named() {
			return
		}
		words, lead := q.NameWords()
		var in *dynamodb.QueryInput
		idOf := contactOfEntrySK
		if lead {
			filter, vals := termFilter(words, "", true)
			vals[":pk"] = str(searchPK(orgID, tokenSuffix(contact.Token(words[0]))))
			// The entries of that whole word: one a contact, in the
			// contacts page's order (wordEntrySK).
			vals[":word"] = str(wordEntrySK(words[0], ""))
			in = &dynamodb.QueryInput{TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :word)"),
				FilterExpression: aws.String(filter), ExpressionAttributeValues: vals, ScanIndexForward: aws.Bool(false)}
		} else {
			in = s.slimQuery(contactsLPK(orgID), false)
			conds := make([]string, len(words))
			for i, w := range words {
				name := fmt.Sprintf(":w%d", i)
				conds[i] = "contains(srch, " + name + ")"
				in.ExpressionAttributeValues[name] = str(" " + w + " ")
			}
			in.FilterExpression = aws.String(strings.Join(conds, " AND "))
			idOf = contactOfSK
		}
		in.ProjectionExpression = aws.String("SK")
		s.yieldQuery(ctx, orgID, in, idOf, yield)
	}
}

// yieldQuery runs a query of contact entries (idOf their SK is the
// contact's id) and yields their contacts enrichChunk at a time, until the
// consumer is done.
func (s *Store) yieldQuery(ctx context.Context, orgID string, in *dynamodb.QueryInput, idOf func(string) string, yield func([]contact.Contact, error) bool) {
	var ids []string
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			yield(nil, fmt.Errorf("enrich: %w", err))
			return
		}
		for _, it := range res.Items {
			ids = append(ids, idOf(attrS(it, "SK")))
			if len(ids) == enrichChunk {
				if !s.yieldContacts(ctx, orgID, ids, yield) {
					return
				}
				ids = ids[:0]
			}
		}
	}
	if len(ids) > 0 {
		s.yieldContacts(ctx, orgID, ids, yield)
	}
}

// yieldContacts reads the live contacts ids name, eventually consistent,
// and yields them; false when the consumer is done or the read failed.
func (s *Store) yieldContacts(ctx context.Context, orgID string, ids []string, yield func([]contact.Contact, error) bool) bool {
	stored, err := s.contactsByIDWith(ctx, orgID, ids, false)
	if err != nil {
		yield(nil, err)
		return false
	}
	out := make([]contact.Contact, 0, len(ids))
	for _, id := range ids {
		if c, ok := stored[id]; ok {
			out = append(out, c.contact())
		}
	}
	return yield(out, nil)
}
