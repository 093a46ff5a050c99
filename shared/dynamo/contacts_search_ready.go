package dynamo

import (
	"context"
	"fmt"
	"iter"
	"math"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// Contacts written before the search entries have none until the
// contacts-search step of `admin migrate` gives them theirs. Until that
// step is done for an organization, its searches and enrichments read the
// whole Slim index as they did before the entries (the text matched as a
// substring of the search attribute, which old and new contacts both
// carry), so no contact goes missing between a deployment and its
// migration. An organization created since has the step done from the
// start (CreateOrg).

// searchReadyOrgs remembers the organizations whose step is done: a step
// once done stays done, so each process reads the record once per
// organization.
var searchReadyOrgs sync.Map

// searchReady reports whether orgID's contacts all have their search
// entries in the current form (its contacts-search step is done in
// searchForm). An organization whose entries are of an older form (one a
// token, before word entries) is searched as before the entries until the
// step has walked again: correct, at the whole index's cost.
func (s *Store) searchReady(ctx context.Context, orgID string) (bool, error) {
	if _, ok := searchReadyOrgs.Load(s.table + "\x00" + orgID); ok {
		return true, nil
	}
	cur, err := s.migrationProgress(ctx, orgID, stepSearch)
	if err != nil {
		return false, fmt.Errorf("search entries: %w", err)
	}
	ready := cur.Done && cur.Form >= searchForm
	if ready {
		searchReadyOrgs.Store(s.table+"\x00"+orgID, true)
	}
	return ready, nil
}

// searchBeforeEntries is a search of terms (in listID when set) as it ran
// before the search entries: a substring of the Slim search attribute.
func (s *Store) searchBeforeEntries(ctx context.Context, orgID string, terms []string, listID string) ([]string, error) {
	all := gifting.PageRequest{Page: 1, Limit: math.MaxInt32}
	ids, _, err := s.pageOfMatches(ctx, s.slimTextQuery(orgID, terms, ""), contactOfSK, all)
	if err != nil {
		return nil, err
	}
	if listID == "" {
		return ids, nil
	}
	members, err := s.memberIDs(ctx, orgID, listID, -1)
	if err != nil {
		return nil, err
	}
	return contact.Members(ids, members), nil
}

// candidatesBeforeEntries is Candidates as it ran before the search
// entries: one filtered pass over the Slim index for q's LinkedIn URL (as
// the search attribute held it: without its host) or all of its name and
// company.
func (s *Store) candidatesBeforeEntries(ctx context.Context, orgID string, q contact.Query) iter.Seq2[[]contact.Contact, error] {
	return func(yield func([]contact.Contact, error) bool) {
		in := s.slimQuery(contactsLPK(orgID), false)
		in.ProjectionExpression = aws.String("SK")
		var or []string
		if li := strings.TrimPrefix(contact.LinkedinKey(q.LinkedinURL), "linkedin.com"); li != "" {
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
		s.yieldQuery(ctx, orgID, in, contactOfSK, yield)
	}
}
