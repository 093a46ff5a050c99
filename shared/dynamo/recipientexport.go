package dynamo

import (
	"context"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// RecipientsAfter reads a page of a campaign's recipients, oldest first,
// from a cursor (campaign.Reader): one Query of the campaign's Slim
// partition from the cursor on, keys only, one entry past the page (it
// says whether a page follows), then recipientPageOf's one BatchGetItem of
// the campaign and the page's recipients. A cursor is a recipient's Slim
// sort key without its campaign's prefix (recipientCreationKey), '#', and
// its id: the index's and the table's keys of the entry the page starts
// after, so a page costs the same however deep it is.
func (s *Store) RecipientsAfter(ctx context.Context, orgID, campaignID, cursor string, limit int) (campaign.RecipientRows, error) {
	in := s.slimQuery(recipientsLPK(orgID, campaignID), true)
	in.ProjectionExpression = aws.String("SK, LSK")
	if cursor != "" {
		ck, id, ok := strings.Cut(cursor, "#")
		if !ok || !gifting.ValidID(ck) || !gifting.ValidID(id) {
			return campaign.RecipientRows{}, campaign.ErrBadCursor
		}
		in.ExclusiveStartKey = item{"LPK": str(recipientsLPK(orgID, campaignID)), "LSK": str(recipientSK(campaignID, ck)),
			"PK": str(orgPK(orgID)), "SK": str(recipientSK(campaignID, id))}
	}
	keys, err := s.keysUpTo(ctx, in, limit+1)
	if err != nil {
		return campaign.RecipientRows{}, err
	}
	more := len(keys) > limit
	keys = keys[:min(len(keys), limit)]
	entries := make([]slimRecipient, len(keys))
	cursors := make(map[string]string, len(keys))
	prefix := recipientSK(campaignID, "")
	for i, k := range keys {
		entries[i] = slimRecipient{SK: k.SK, LSK: k.LSK}
		id := strings.TrimPrefix(k.SK, prefix)
		cursors[id] = recipientCreationKey(campaignID, k.LSK) + "#" + id
	}
	q := recipient.Query{Page: gifting.PageRequest{Page: 1, Limit: len(entries)}}
	page, _, err := s.recipientPageOf(ctx, orgID, campaignID, q, entries)
	if err != nil {
		return campaign.RecipientRows{}, err
	}
	rows := campaign.RecipientRows{Campaign: page.Campaign, Recipients: page.Recipients}
	for _, r := range page.Recipients {
		rows.Cursors = append(rows.Cursors, cursors[r.RecipientID])
	}
	if more && len(keys) > 0 {
		rows.Next = cursors[strings.TrimPrefix(keys[len(keys)-1].SK, prefix)]
	}
	return rows, nil
}
