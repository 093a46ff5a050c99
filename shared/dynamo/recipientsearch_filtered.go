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
// items answer it: the word entries' Query finds the matches (at most
// filteredSearchMatches), and the one BatchGetItem that reads the page
// reads all of them, whose st and fb the filter then checks, as the Slim
// partition's filter checks the same attributes: O(matches), where the
// Slim partition is O(campaign). A search matching more reads the keys of
// the status partitions its filter names (recipientstatus.go) and keeps
// its matches (held, or read again past heldMatches) among them: O(the
// filter's recipients + matches), about 1 read unit per 50 keys and per 50
// matches, where the Slim partition reads about 1 per 26 recipients of the
// campaign.

// filteredSearchMatches is how many matches a filtered search reads by
// key: with the campaign and the profile, one BatchGetItem (100 keys).
const filteredSearchMatches = 98

// heldMatches bounds the matches a filtered search holds while it reads the
// status keys (~100 bytes each); past it they are read again instead. It
// is more than filteredSearchMatches. A variable for a test of the
// reading again.
var heldMatches = 10_000

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
	if len(matches) > filteredSearchMatches {
		if len(matches) > heldMatches {
			matches = nil // read again, kept among the keys as they stream by
		}
		return s.listBySearchInStatus(ctx, orgID, campaignID, q, srch, matches)
	}
	keys := []item{key(orgPK(orgID), campaignSK(campaignID))}
	if q.WithOrg {
		keys = append(keys, key(orgPK(orgID), profileSK))
	}
	for _, e := range matches {
		keys = append(keys, key(orgPK(orgID), e.SK))
	}
	// Eventually consistent, as the Slim partition's entries are.
	got, err := s.batchGetAs(ctx, keys, false)
	if err != nil {
		return page, true, err
	}
	bySK := make(map[string]item, len(got))
	for _, it := range got {
		bySK[attrS(it, "SK")] = it
	}
	cit := bySK[campaignSK(campaignID)]
	if cit != nil && attrS(cit, campaignSearchIndexed) != "1" {
		return page, false, nil
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

// slimKeeps reports whether the Slim partition's filter on status and
// feedback (slimRecipients) keeps a recipient whose st and fb are these.
func slimKeeps(q recipient.Query, st string, fb bool) bool {
	if len(q.Statuses) > 0 && !slices.Contains(q.Statuses, gifting.RecipientStatus(st)) {
		return false
	}
	return q.Feedback == nil || *q.Feedback == fb
}

// listBySearchInStatus reads q's page when its search matches more than
// filteredSearchMatches: the campaign (its marks, and its counters, which
// leave out the partitions they show empty), the keys of the status
// partitions q's filter names, whole, then the matches (those read before,
// or, nil, read again), keeping the first of those among the keys in
// creation order and counting them all.
// indexed is false when the campaign is not marked for both kinds of keys.
func (s *Store) listBySearchInStatus(ctx context.Context, orgID, campaignID string, q recipient.Query, srch contact.Search, matches []slimRecipient) (page campaign.RecipientListPage, indexed bool, err error) {
	cit, known, err := s.campaignForList(ctx, orgID, campaignID)
	if err != nil {
		return page, true, err
	}
	if attrS(cit, campaignSearchIndexed) != "1" || attrS(cit, campaignStatusIndexed) != "1" {
		return page, false, nil
	}
	kept := map[string]bool{}
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
					kept[attrS(it, "SK")] = true
				}
			}
		}
	}
	top := newTopRecipients(recipientOrder(q), q.Page.End())
	keep := func(e slimRecipient) bool {
		if kept[e.SK] {
			top.add(e)
		}
		return true
	}
	if matches != nil {
		for _, e := range matches {
			keep(e)
		}
	} else if err = s.searchMatches(ctx, orgID, campaignID, srch, keep); err != nil {
		return page, true, err
	}
	page, _, err = s.recipientPageWith(ctx, orgID, campaignID, q, top.sorted(), cit)
	page.Total = top.total
	return page, true, err
}
