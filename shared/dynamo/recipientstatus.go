package dynamo

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Every recipient carries a key of the Order index naming its campaign,
// its status and whether it has feedback (recipientStatusOPK), sorted by
// its creation (OSK = recipientCreationKey). A page of one status, of
// recipients with feedback, or grouped by status then reads those
// partitions, keys only, up to the page's end: O(page), where the Slim
// partition filtered on st or fb read the whole campaign. A status move
// moves the recipient's entry (two index writes); creating one writes
// one. Campaigns created before these keys are marked once `admin
// migrate -steps recipient-status` has keyed their recipients
// (campaignStatusIndexed); until then their pages read the Slim
// partition as before.

// recipientStatusOPK is the Order partition of a campaign's recipients in
// status st, with feedback (fb) or without.
func recipientStatusOPK(org, campaign string, st gifting.RecipientStatus, fb bool) string {
	k := recipientsLPK(org, campaign) + "#ST#" + string(st)
	if fb {
		k += "#FB"
	}
	return k
}

// campaignStatusIndexed names the attribute marking a campaign whose
// every recipient carries its status key ("1"): written when the campaign
// is created, or by the migration step once it keyed the recipients.
// Campaigns marked rstx were keyed with OSK = the whole LSK, before OSK
// was cut to recipientCreationKey; mixed with the shorter keys in one
// partition they would merge out of order, so they read the Slim
// partition until the step has keyed them again (it rewrites every OSK
// that differs) and marked them rst2.
const campaignStatusIndexed = "rst2"

// statusIndexable reports whether q's page can be read from the status
// partitions: no search and no user filter, and either sorted by creation
// with a status or feedback filter, or ordered by status (sortBy=status,
// or groupBy with a creation or status sort), which orders by status,
// then creation.
func statusIndexable(q recipient.Query) bool {
	if q.Search != "" || q.UserID != "" {
		return false
	}
	switch q.SortBy {
	case "status":
		return true
	case "createdAt":
		return q.GroupByStatus || len(q.Statuses) > 0 || q.Feedback != nil
	}
	return false
}

// statusPartition is one Order partition of a page's read: a status,
// with or without feedback.
type statusPartition struct {
	st gifting.RecipientStatus
	fb bool
}

// statusGroups are the partitions q reads, in groups read one after the
// other: one group per status in the page's order when the page is
// ordered by status, else one group holding them all (merged by
// creation). Feedback nil reads both kinds of each status.
func statusGroups(q recipient.Query) [][]statusPartition {
	statuses := q.Statuses
	if len(statuses) == 0 {
		statuses = gifting.RecipientStatuses
	}
	statuses = slices.Clone(statuses)
	slices.SortFunc(statuses, func(a, b gifting.RecipientStatus) int {
		return cmp.Compare(statusOrder(string(a)), statusOrder(string(b)))
	})
	statuses = slices.Compact(statuses)
	// Grouped, the groups keep the journey's order whatever the order
	// (which orders each group); sorted by status, desc reverses it.
	if q.Order == gifting.Desc && !q.GroupByStatus {
		slices.Reverse(statuses)
	}
	var parts []statusPartition
	for _, st := range statuses {
		if q.Feedback == nil || !*q.Feedback {
			parts = append(parts, statusPartition{st, false})
		}
		if q.Feedback == nil || *q.Feedback {
			parts = append(parts, statusPartition{st, true})
		}
	}
	if !q.GroupByStatus && q.SortBy != "status" {
		return [][]statusPartition{parts}
	}
	var groups [][]statusPartition
	for _, p := range parts {
		if n := len(groups); n > 0 && groups[n-1][0].st == p.st {
			groups[n-1] = append(groups[n-1], p)
		} else {
			groups = append(groups, []statusPartition{p})
		}
	}
	return groups
}

// statusEntries reads the entries of q's page from the status partitions
// up to need (the page's end and one more), in q's order: each group's
// partitions at once, keys only and eventually consistent, merged by
// creation; the groups one after the other until need entries are read.
// exhausted reports that every partition was read to its end (the total
// is then the entries read).
//
// after, when not nil, is a page by cursor's start (posStatus): the groups
// before the one of its status are passed over, that group's partitions
// are read from right after it, the next ones from their start.
//
// counted, when not nil, is the campaign as read before: the partitions
// its counters show empty are not read (knownEmpty).
func (s *Store) statusEntries(ctx context.Context, orgID, campaignID string, q recipient.Query, need int, after *slimRecipient, counted *campaign.Campaign) (entries []slimRecipient, exhausted bool, err error) {
	asc := q.Order == gifting.Asc
	exhausted = true
	groups := statusGroups(q)
	if after != nil {
		at := slices.IndexFunc(groups, func(g []statusPartition) bool {
			return slices.ContainsFunc(g, func(p statusPartition) bool { return string(p.st) == after.St })
		})
		if at < 0 {
			return nil, false, campaign.ErrCursorUnkeyed
		}
		groups = groups[at:]
	}
	if counted != nil {
		groups = withoutEmpty(groups, *counted)
	}
	for i, group := range groups {
		if len(entries) >= need {
			return entries, false, nil
		}
		start := after
		if i > 0 {
			start = nil
		}
		read, done, err := s.readStatusGroup(ctx, orgID, campaignID, group, asc, need-len(entries), start)
		if err != nil {
			return nil, false, err
		}
		entries = append(entries, read...)
		exhausted = exhausted && done
	}
	return entries, exhausted, nil
}

// readStatusGroup reads up to n entries of each partition of group at
// once, and returns the first n of them merged in creation order (asc or
// desc), and whether every partition ended within them.
func (s *Store) readStatusGroup(ctx context.Context, orgID, campaignID string, group []statusPartition, asc bool, n int, after *slimRecipient) ([]slimRecipient, bool, error) {
	got := make([][]slimKey, len(group))
	errs := make([]error, len(group))
	var wg sync.WaitGroup
	for i, p := range group {
		wg.Go(func() {
			in := s.slimQuery(recipientStatusOPK(orgID, campaignID, p.st, p.fb), asc)
			in.IndexName, in.KeyConditionExpression = aws.String(indexOrder), aws.String("OPK = :lpk")
			in.ProjectionExpression = aws.String("SK, OSK")
			if after != nil {
				// Right after the cursor's entry, whichever partition
				// holds it now: the partitions share the creation order.
				in.ExclusiveStartKey = item{"PK": str(orgPK(orgID)), "SK": str(after.SK),
					"OPK": str(recipientStatusOPK(orgID, campaignID, p.st, p.fb)), "OSK": str(after.LSK)}
			}
			got[i], errs[i] = s.orderKeysUpTo(ctx, in, n+1)
		})
	}
	wg.Wait()
	var merged []slimRecipient
	done := true
	for i, keys := range got {
		if errs[i] != nil {
			return nil, false, errs[i]
		}
		if len(keys) > n {
			done = false
		}
		for _, k := range keys {
			merged = append(merged, slimRecipient{SK: k.SK, LSK: k.LSK, St: string(group[i].st)})
		}
	}
	slices.SortFunc(merged, func(a, b slimRecipient) int {
		if asc {
			return cmp.Compare(a.LSK, b.LSK)
		}
		return cmp.Compare(b.LSK, a.LSK)
	})
	if len(merged) > n {
		merged, done = merged[:n], false
	}
	return merged, done, nil
}

// orderKeysUpTo is keysUpTo over the Order index, whose sort key is OSK.
func (s *Store) orderKeysUpTo(ctx context.Context, in *dynamodb.QueryInput, n int) ([]slimKey, error) {
	return s.indexKeysUpTo(ctx, in, n, "OSK")
}

// listByStatus reads q's page from the status partitions
// (statusIndexable). indexed is false when the campaign's recipients are
// not all keyed yet (campaignStatusIndexed): the caller then reads the
// Slim partition, and this read is lost (only until the migration step
// has run over the campaigns created before the keys).
//
// A read of more than two partitions (a feedback filter, several
// statuses, grouped) reads the campaign first, eventually consistent, and
// leaves out the partitions its counters show empty: a request to save
// several. One or two partitions read the campaign with the page.
func (s *Store) listByStatus(ctx context.Context, orgID, campaignID string, q recipient.Query) (page campaign.RecipientListPage, indexed bool, err error) {
	var cit item
	var known *campaign.Campaign
	if partitions(statusGroups(q)) > 2 {
		if cit, known, err = s.campaignForList(ctx, orgID, campaignID); err != nil {
			return page, true, err
		}
		if attrS(cit, campaignStatusIndexed) != "1" {
			return page, false, nil
		}
	}
	entries, exhausted, err := s.statusEntries(ctx, orgID, campaignID, q, q.Page.End()+1, nil, known)
	if err != nil {
		return page, true, err
	}
	page, cit, err = s.recipientPageWith(ctx, orgID, campaignID, q, entries, cit)
	if err != nil {
		return page, true, err
	}
	if attrS(cit, campaignStatusIndexed) != "1" {
		return campaign.RecipientListPage{}, false, nil
	}
	setRecipientNext(q.Page, entries, posStatus)
	if exhausted {
		page.Total = len(entries)
		return page, true, nil
	}
	counted, err := s.statusCounted(ctx, orgID, campaignID, q, page.Campaign)
	page.Total = gifting.PageTotal(q.Page, counted, len(entries))
	return page, true, err
}

// statusCounted is the number of c's recipients q's filters keep, from
// its counters (which trail a launch slice until it is counted, as the
// default page's total does: gifting.PageTotal), and for a feedback
// filter with statuses, the feedback partitions of those statuses
// counted (keys only: about 1 read unit per 40 recipients with feedback).
func (s *Store) statusCounted(ctx context.Context, orgID, campaignID string, q recipient.Query, c campaign.Campaign) (int, error) {
	base := countOf(c, q.Statuses)
	if q.Feedback == nil {
		return base, nil
	}
	fb := int(c.LiveData.FeedbackCount)
	if len(q.Statuses) > 0 {
		fb = 0
		for _, st := range slices.Compact(slices.Clone(q.Statuses)) {
			if knownEmpty(statusPartition{st, true}, c) {
				continue
			}
			in := s.slimQuery(recipientStatusOPK(orgID, campaignID, st, true), true)
			in.IndexName, in.KeyConditionExpression = aws.String(indexOrder), aws.String("OPK = :lpk")
			_, n, err := s.skipEntries(ctx, in, math.MaxInt32)
			if err != nil {
				return 0, err
			}
			fb += n
		}
	}
	if *q.Feedback {
		return fb, nil
	}
	return base - fb, nil
}

// knownEmpty reports whether c's counters show partition p empty: a
// feedback partition while no recipient of c has feedback, or a status no
// recipient of c is in. The counters of those move in the transactions
// that move the recipients (a first feedback, a status move), so they are
// exact; pending and invite_sent are the exception: a launch slice writes
// its recipients before it counts them (gifting.PageTotal), so their
// partitions are always read.
func knownEmpty(p statusPartition, c campaign.Campaign) bool {
	if p.fb && c.LiveData.FeedbackCount <= 0 {
		return true
	}
	switch p.st {
	case gifting.RecipientPending, gifting.RecipientInviteSent:
		return false
	}
	return c.LiveData.StatusCounts[p.st] <= 0
}

// withoutEmpty is groups without the partitions c shows empty
// (knownEmpty), and without the groups left with none.
func withoutEmpty(groups [][]statusPartition, c campaign.Campaign) [][]statusPartition {
	var out [][]statusPartition
	for _, g := range groups {
		g = slices.DeleteFunc(slices.Clone(g), func(p statusPartition) bool { return knownEmpty(p, c) })
		if len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// partitions is the number of partitions groups name.
func partitions(groups [][]statusPartition) int {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	return n
}

// campaignForList reads campaignID's item for a list page, eventually
// consistent (as the page is); campaign.ErrNotFound when it is missing or
// deleted.
func (s *Store) campaignForList(ctx context.Context, orgID, campaignID string) (item, *campaign.Campaign, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: key(orgPK(orgID), campaignSK(campaignID))})
	if err != nil {
		return nil, nil, fmt.Errorf("get campaign: %w", err)
	}
	if out.Item == nil {
		return nil, nil, campaign.ErrNotFound
	}
	c, err := decodeCampaign(out.Item)
	if err != nil {
		return nil, nil, err
	}
	if c.IsDeleted {
		return nil, nil, campaign.ErrNotFound
	}
	c.Normalize()
	return out.Item, &c, nil
}
