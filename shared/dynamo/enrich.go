package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
)

// ContactEnricher is the default enrichment provider: it answers from the
// organization's own contacts.
type ContactEnricher struct {
	Store *Store
}

var _ gifting.Enricher = ContactEnricher{}

// ProviderContacts names the default provider in enrichment answers.
const ProviderContacts = "organization_contacts"

// enrichChunk is how many candidates are read (one BatchGet) and confirmed
// at a time.
const enrichChunk = 100

// Enrich finds the newest contact of org with the query's LinkedIn URL, or
// else with its first name, last name and company. It filters the Slim
// index (whose search text holds names, company and LinkedIn URL) in one
// pass, newest first, and reads the candidates a hundred at a time to
// confirm the match exactly, stopping at the first LinkedIn match (or the
// first name match when no URL was given): about 1 read unit per 50
// contacts, like a search. The filter only finds text containing the query,
// so lookalikes (Alan Ngo for Al Ng) are candidates too; however many there
// are, the real contact behind them is still read.
func (e ContactEnricher) Enrich(ctx context.Context, orgID string, q gifting.EnrichmentQuery) (gifting.Enrichment, error) {
	s := e.Store
	none := gifting.Enrichment{Provider: ProviderContacts}
	in := s.slimQuery(contactsLPK(orgID), false)
	in.ProjectionExpression = aws.String("SK")
	var or []string
	if li := srchLinkedin(q.LinkedinURL); li != "" {
		in.ExpressionAttributeValues[":li"] = str(li)
		or = append(or, "contains(srch, :li)")
	}
	if q.FirstName != "" && q.LastName != "" && q.CompanyName != "" {
		in.ExpressionAttributeValues[":f"] = str(strings.ToLower(q.FirstName))
		in.ExpressionAttributeValues[":l"] = str(strings.ToLower(q.LastName))
		in.ExpressionAttributeValues[":c"] = str(strings.ToLower(q.CompanyName))
		or = append(or, "(contains(srch, :f) AND contains(srch, :l) AND contains(srch, :c))")
	}
	if len(or) == 0 {
		return none, nil
	}
	in.FilterExpression = aws.String(strings.Join(or, " OR "))
	// A LinkedIn match beats a name match, whichever contact is newer.
	var (
		best   *gifting.Contact
		bestBy string
		ids    []string
	)
	decided := func() bool {
		return bestBy == gifting.MatchedByLinkedin || (bestBy != "" && q.LinkedinURL == "")
	}
	confirm := func() error {
		contacts, err := s.ContactsByID(ctx, orgID, ids)
		ids = ids[:0]
		if err != nil {
			return err
		}
		for i := range contacts {
			by := gifting.MatchContact(contacts[i], q)
			if by != "" && (best == nil || (bestBy != gifting.MatchedByLinkedin && by == gifting.MatchedByLinkedin)) {
				best, bestBy = &contacts[i], by
			}
		}
		return nil
	}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() && !decided() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return none, fmt.Errorf("enrich: %w", err)
		}
		for _, it := range res.Items {
			ids = append(ids, strings.TrimPrefix(attrS(it, "SK"), contactPrefix))
			if len(ids) == enrichChunk {
				if err := confirm(); err != nil {
					return none, err
				}
				if decided() {
					break
				}
			}
		}
	}
	if len(ids) > 0 && !decided() {
		if err := confirm(); err != nil {
			return none, err
		}
	}
	if best == nil {
		return none, nil
	}
	return gifting.Enrichment{Matched: true, MatchedBy: bestBy, Provider: ProviderContacts,
		Person: gifting.PersonFromContact(*best)}, nil
}

// Enrich answers an enrichment query from org's own contacts
// (ContactEnricher): the store is the default provider.
func (s *Store) Enrich(ctx context.Context, orgID string, q gifting.EnrichmentQuery) (gifting.Enrichment, error) {
	return ContactEnricher{Store: s}.Enrich(ctx, orgID, q)
}
