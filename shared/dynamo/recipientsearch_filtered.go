package dynamo

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// A search with a status or feedback filter cannot be answered by the word
// entries alone: they hold no status (a status move would have to move
// them, decision 0013). When the search matches few recipients, their
// items answer it: the word entries' Query finds the matches, and
// BatchGetItems read them (the first with the campaign and the profile),
// whose st and fb the filter then checks, as the Slim partition's filter
// checks the same attributes: O(matches), where the Slim partition is
// O(campaign). Past the first BatchGetItem's matches, the campaign's
// counters say which is cheaper: the rest of the matches by key (~½ read
// unit each), or the keys of the status partitions the filter names
// (~1 read unit per 50: listBySearchInStatus), which keeps the matches
// (held as the keys stream by, or past heldMatches read again while the
// keys are held) found among them. Past
// filteredSearchByKey matches the keys are read.

// filteredSearchMatches is how many matches the first BatchGetItem of a
// filtered search reads, with the campaign and the profile (100 keys).
const filteredSearchMatches = 98

// filteredSearchByKey bounds the matches a filtered search reads by key
// (~½ read unit and ~2 KB held each; 10 BatchGetItems at most).
const filteredSearchByKey = 1_000

// heldMatches bounds the matches a filtered search holds while it reads the
// status keys (~250 bytes each with their map entry: ~6 MB); past it the
// status keys are held instead, and the matches read again. It is more
// than filteredSearchByKey. A variable for a test of the reading again.
var heldMatches = 25_000

// statusKeysPerMatch is how many status keys cost what one match read by
// key costs: a key ~80 bytes, an item ~1–2 KB, both eventually
// consistent.
const statusKeysPerMatch = 25

// recipientFilteredSearch is q's search when its matches' items may
// answer it: a search with a term of contact.TokenLen characters or more,
// in creation order, filtered on status or feedback, not on a user.
func recipientFilteredSearch(q recipient.Query) (contact.Search, bool) {
	if q.Search == "" || q.SortBy != "createdAt" || len(q.Statuses) == 0 && q.Feedback == nil || q.UserID != "" || q.GroupByStatus {
		return contact.Search{}, false
	}
	srch, ok := recipient.NewSearch(q.Search)
	return srch, ok && srch.Lead != ""
}

// listByFilteredSearch reads q's page from the matches of srch
// (recipientFilteredSearch) and their items, or, past
// filteredSearchMatches, the status keys (listBySearchInStatus). indexed
// is false when the campaign is not marked for the keys read: the caller
// then reads the Slim partition.
func (s *Store) listByFilteredSearch(ctx context.Context, orgID, campaignID string, q recipient.Query, srch contact.Search) (page campaign.RecipientListPage, indexed bool, err error) {
	var matches []slimRecipient
	err = s.searchMatches(ctx, orgID, campaignID, srch, func(e slimRecipient) bool {
		matches = append(matches, e)
		return len(matches) <= heldMatches
	})
	if err != nil {
		return page, true, err
	}
	if len(matches) > min(filteredSearchByKey, heldMatches) {
		if len(matches) > heldMatches {
			matches = nil // read again, while the status keys are held
		}
		return s.listBySearchInStatus(ctx, orgID, campaignID, q, srch, matches, nil, nil)
	}
	head := min(len(matches), filteredSearchMatches)
	keys := []item{key(orgPK(orgID), campaignSK(campaignID))}
	if q.WithOrg {
		keys = append(keys, key(orgPK(orgID), profileSK))
	}
	// Eventually consistent, as the Slim partition's entries are.
	got, err := s.batchGetAs(ctx, append(keys, matchKeys(orgID, matches[:head])...), false)
	if err != nil {
		return page, true, err
	}
	bySK := make(map[string]item, len(matches)+2)
	for _, it := range got {
		bySK[attrS(it, "SK")] = it
	}
	cit := bySK[campaignSK(campaignID)]
	if cit != nil && attrS(cit, campaignSearchIndexed) != "1" {
		return page, false, nil
	}
	if rest := matches[head:]; len(rest) > 0 && cit != nil {
		c, err := decodeCampaign(cit)
		if err != nil {
			return page, true, err
		}
		c.Normalize()
		if !c.IsDeleted && len(rest)*statusKeysPerMatch > filterSize(q, c) {
			return s.listBySearchInStatus(ctx, orgID, campaignID, q, srch, matches, cit, &c)
		}
		more, err := s.batchGetAs(ctx, matchKeys(orgID, rest), false)
		if err != nil {
			return page, true, err
		}
		for _, it := range more {
			bySK[attrS(it, "SK")] = it
		}
	}
	top := newTopRecipients(recipientOrder(q), q.Page.End())
	for _, e := range matches {
		if it := bySK[e.SK]; it != nil && slimKeeps(q, attrS(it, "st"), it["fb"] != nil) {
			top.add(e)
		}
	}
	entries := top.sorted()
	lo, hi := q.Page.Window(len(entries))
	page, _, err = s.recipientPageFrom(ctx, campaignID, q, entries[lo:hi], bySK, cit)
	page.Total = top.total
	return page, true, err
}

// matchKeys are the table keys of matches' recipients.
func matchKeys(orgID string, matches []slimRecipient) []item {
	keys := make([]item, len(matches))
	for i, e := range matches {
		keys[i] = key(orgPK(orgID), e.SK)
	}
	return keys
}

// filterSize is about how many of c's recipients the status partitions
// of q's filter hold, by c's counters (which trail a launch slice until
// it is counted): the keys listBySearchInStatus would read.
func filterSize(q recipient.Query, c campaign.Campaign) int {
	n := countOf(c, q.Statuses)
	if q.Feedback != nil && *q.Feedback {
		n = min(n, int(c.LiveData.FeedbackCount))
	}
	return n
}

// slimKeeps reports whether the Slim partition's filter on status and
// feedback (slimRecipients) keeps a recipient whose st and fb are these.
func slimKeeps(q recipient.Query, st string, fb bool) bool {
	if len(q.Statuses) > 0 && !slices.Contains(q.Statuses, gifting.RecipientStatus(st)) {
		return false
	}
	return q.Feedback == nil || *q.Feedback == fb
}

// listBySearchInStatus reads q's page when its search matches too many to
// read by key: the campaign (its marks, and its counters, which leave out
// the partitions they show empty; cit and known when read already), the
// keys of the status partitions q's filter names, whole, and the matches
// among them (matches, held while the keys stream by; nil: read again
// against the keys held), keeping the first in creation order and counting
// them all.
// indexed is false when the campaign is not marked for both kinds of keys.
func (s *Store) listBySearchInStatus(ctx context.Context, orgID, campaignID string, q recipient.Query, srch contact.Search, matches []slimRecipient, cit item, known *campaign.Campaign) (page campaign.RecipientListPage, indexed bool, err error) {
	if cit == nil {
		if cit, known, err = s.campaignForList(ctx, orgID, campaignID); err != nil {
			return page, true, err
		}
	}
	if attrS(cit, campaignSearchIndexed) != "1" || attrS(cit, campaignStatusIndexed) != "1" {
		return page, false, nil
	}
	// With the matches held, the status keys stream by and the matches
	// among them are kept: the memory of the matches, not of the filter's
	// recipients. Past heldMatches (matches nil) the keys are held instead,
	// and the matches, read again, stream by.
	top := newTopRecipients(recipientOrder(q), q.Page.End())
	var held map[string]slimRecipient
	kept := map[string]bool{}
	if matches != nil {
		held = make(map[string]slimRecipient, len(matches))
		for _, e := range matches {
			held[e.SK] = e
		}
	}
	for _, g := range withoutEmpty(statusGroups(q), *known) {
		for _, p := range g {
			in := s.slimQuery(recipientStatusOPK(orgID, campaignID, p.st, p.fb), true)
			in.IndexName, in.KeyConditionExpression = aws.String(indexOrder), aws.String("OPK = :lpk")
			in.ProjectionExpression = aws.String("SK")
			pages := dynamodb.NewQueryPaginator(s.db, in)
			for pages.HasMorePages() {
				out, err := pages.NextPage(ctx)
				if err != nil {
					return page, true, fmt.Errorf("query status keys: %w", err)
				}
				for _, it := range out.Items {
					sk := attrS(it, "SK")
					if held == nil {
						kept[sk] = true
					} else if e, ok := held[sk]; ok {
						// Once: an index may show a recipient that just
						// moved in both its partitions for a moment.
						top.add(e)
						delete(held, sk)
					}
				}
			}
		}
	}
	if held == nil {
		err = s.searchMatches(ctx, orgID, campaignID, srch, func(e slimRecipient) bool {
			if kept[e.SK] {
				top.add(e)
			}
			return true
		})
		if err != nil {
			return page, true, err
		}
	}
	page, _, err = s.recipientPageWith(ctx, orgID, campaignID, q, top.sorted(), cit)
	page.Total = top.total
	return page, true, err
}
