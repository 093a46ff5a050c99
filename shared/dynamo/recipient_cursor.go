package dynamo

import (
	"context"
	"strings"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Cursor pages of a campaign's recipients (gifting.Resume): the position
// of a page's last recipient is its key in the index the page's order
// follows, so the next page is one Query (or one per status partition)
// from right after it, O(page), however deep: the Slim partition's LSK
// in creation order (posCreated), its status and Order key (OSK) in the
// status partitions (posStatus: a status filter, a feedback filter,
// sortBy=status, groupBy), its Sort key (SSK) by last name (posName).
// Orders no key follows (a search, a user filter, the other sorts) have
// no cursor: the handler refuses one (recipient.Query.Keyed).

// Kinds of recipient position: which index's key it holds.
const (
	posCreated = "c"
	posStatus  = "s"
	posName    = "n"
)

// recipientPosition is entry e's position of kind: the kind, its status
// (posStatus), its index sort key and its table sort key.
func recipientPosition(kind string, e slimRecipient) string {
	return strings.Join([]string{kind, e.St, e.LSK, e.SK}, "\n")
}

// parseRecipientPosition reads a recipientPosition back as an entry (LSK
// holding the index sort key) and its kind.
func parseRecipientPosition(position string) (kind string, e slimRecipient, ok bool) {
	parts := strings.Split(position, "\n")
	if len(parts) != 4 || parts[2] == "" || parts[3] == "" {
		return "", e, false
	}
	return parts[0], slimRecipient{St: parts[1], LSK: parts[2], SK: parts[3]}, true
}

// setRecipientNext records, when an entry follows page's, the position of
// page's last entry among entries (read from the list's start, up to the
// page's end and one more).
func setRecipientNext(page gifting.PageRequest, entries []slimRecipient, kind string) {
	if len(entries) > page.End() {
		page.Resume.SetNext(recipientPosition(kind, entries[page.End()-1]))
	}
}

// recipientsAfter reads a page by cursor: the page's limit and one more
// entries right after the cursor's, from the index its kind names, then
// the page (recipientPageOf). The total is the counters' (the page knows
// not how many came before it). campaign.ErrCursorUnkeyed when the
// position is not one of q's order, or the campaign's recipients are not
// keyed in that index yet (a campaign created before the index, until
// its migration step).
func (s *Store) recipientsAfter(ctx context.Context, orgID, campaignID string, q recipient.Query) (campaign.RecipientListPage, error) {
	kind, at, ok := parseRecipientPosition(q.Page.Resume.After)
	need := q.Page.Limit + 1
	var entries []slimRecipient
	var err error
	mark := ""
	switch {
	case !ok:
		return campaign.RecipientListPage{}, campaign.ErrCursorUnkeyed
	case kind == posCreated && slimOrdered(q):
		start := slimStart(orgPK(orgID), recipientsLPK(orgID, campaignID), at.LSK+"\n"+at.SK)
		entries, _, err = s.slimRecipients(ctx, orgID, campaignID, q, true, need, start, nil)
	case kind == posStatus && statusIndexable(q):
		entries, _, err = s.statusEntries(ctx, orgID, campaignID, q, need, &at, nil)
		mark = campaignStatusIndexed
	case kind == posName && nameIndexable(q):
		in := s.nameQuery(orgID, campaignID, q)
		in.ExclusiveStartKey = item{"PK": str(orgPK(orgID)), "SK": str(at.SK),
			"LPK": str(recipientsLPK(orgID, campaignID)), "SSK": str(at.LSK)}
		entries, err = s.nameEntries(ctx, in, need)
		mark = campaignNamesIndexed
	default:
		return campaign.RecipientListPage{}, campaign.ErrCursorUnkeyed
	}
	if err != nil {
		return campaign.RecipientListPage{}, err
	}
	page, cit, err := s.recipientPageOf(ctx, orgID, campaignID, q, entries)
	if err != nil {
		return page, err
	}
	if mark != "" && attrS(cit, mark) != "1" {
		return campaign.RecipientListPage{}, campaign.ErrCursorUnkeyed
	}
	page.Total = countOf(page.Campaign, q.Statuses)
	if kind == posStatus {
		if page.Total, err = s.statusCounted(ctx, orgID, campaignID, q, page.Campaign); err != nil {
			return page, err
		}
	}
	setRecipientNext(q.Page, entries, kind)
	return page, nil
}
