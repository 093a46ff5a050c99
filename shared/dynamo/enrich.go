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

// Candidates yields org's live contacts whose Slim search text (names,
// company and LinkedIn URL, see searchText) holds q's LinkedIn URL, or
// all of its first name, last name and company, newest first and
// enrichChunk at a time: one filtered pass over the Slim index, about 1
// read unit per 50 contacts, like a search, and a BatchGet of each chunk.
// The filter only finds text containing the query, so lookalikes (Alan Ngo
// for Al Ng) are candidates too; the slice decides which one matches
// (contact.Match). It reads no further than the consumer wants.
func (s *Store) Candidates(ctx context.Context, orgID string, q contact.Query) iter.Seq2[[]contact.Contact, error] {
	return func(yield func([]contact.Contact, error) bool) {
		in := s.slimQuery(contactsLPK(orgID), false)
		in.ProjectionExpression = aws.String("SK")
		var or []string
		if li := srchLinkedin(q.LinkedinURL); li != "" {
			in.ExpressionAttributeValues[":li"] = str(li)
			or = append(or, "contains(srch, :li)")
		}
		if q.Named() {
			in.ExpressionAttributeValues[":f"] = str(strings.ToLower(q.FirstName))
			in.ExpressionAttributeValues[":l"] = str(strings.ToLower(q.LastName))
			in.ExpressionAttributeValues[":c"] = str(strings.ToLower(q.CompanyName))
			or = append(or, "(contains(srch, :f) AND contains(srch, :l) AND contains(srch, :c))")
		}
		if len(or) == 0 {
			return
		}
		in.FilterExpression = aws.String(strings.Join(or, " OR "))
		var ids []string
		// flush reads the chunk of ids and yields it; false when the
		// consumer is done.
		flush := func() bool {
			contacts, err := s.Contacts(ctx, orgID, ids)
			ids = ids[:0]
			return yield(contacts, err) && err == nil
		}
		p := dynamodb.NewQueryPaginator(s.db, in)
		for p.HasMorePages() {
			res, err := p.NextPage(ctx)
			if err != nil {
				yield(nil, fmt.Errorf("enrich: %w", err))
				return
			}
			for _, it := range res.Items {
				ids = append(ids, strings.TrimPrefix(attrS(it, "SK"), contactPrefix))
				if len(ids) == enrichChunk && !flush() {
					return
				}
			}
		}
		if len(ids) > 0 {
			flush()
		}
	}
}
