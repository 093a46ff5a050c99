package dynamo

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// Every recipient carries a sort key of the Sort index, SSK: its
// lower-cased last name, then its creation (recipientNameSSK), in its
// campaign's partition (the index's partition key is the Slim one, LPK,
// so the entry costs no partition attribute of its own): the order of `sortBy=lastName`, which the
// Slim partition answered by reading the whole campaign. A page in that
// order, with no filter and no grouping, reads the partition's keys up to
// the page's end: O(page). The key is written once, when the recipient is
// created: a recipient's contact details are a copy taken then and never
// change, so no later write moves it (a status move costs nothing more).
// Campaigns created before these keys are marked once `admin migrate
// -steps recipient-names` has keyed their recipients
// (campaignNamesIndexed); until then their pages read the Slim partition
// as before. Decision 0011.

// campaignNamesIndexed names the attribute marking a campaign whose every
// recipient carries its name key ("1"): written when the campaign is
// created, or by the migration step once it keyed the recipients.
const campaignNamesIndexed = "rlnx"

// nameSep ends the name in a name key: it sorts before every byte the
// name's encoding holds (nameKeyPart), so the key orders as the pair
// (name, creation) does: "ann" before "anna", and two "ann" by creation.
const nameSep = "\x01"

// maxNameKey bounds the name's part of a key: an index key holds at most
// 1,024 bytes, and the creation part follows. Names are at most 200
// characters (800 bytes), so only a name stored by code without that
// bound is cut, and only its order among names equal in their first 900
// bytes can change.
const maxNameKey = 900

// recipientNameSSK is the sort key of a recipient in its campaign's Sort
// partition: the last name of its Slim entry's srt (lower-cased, as the
// Slim partition's sort compared it: srtField), encoded by nameKeyPart,
// then nameSep and its creation key (recipientCreationKey: ties by
// creation, as there).
func recipientNameSSK(campaignID, srt, lsk string) string {
	return nameKeyPart(srtField(srt, 1)) + nameSep + recipientCreationKey(campaignID, lsk)
}

// nameKeyPart encodes a lower-cased name so that byte order of the
// encodings is the names' order and nameSep sorts below every encoding's
// bytes: a control character c (below 0x20, which a name may hold) is
// written as 0x02 and 0x40+c, which keeps their order among themselves
// and below every other character; the rest is kept as is (UTF-8 sorts as
// its code points).
func nameKeyPart(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		if c := name[i]; c < 0x20 {
			b.WriteByte(0x02)
			b.WriteByte(0x40 + c)
		} else {
			b.WriteByte(c)
		}
		if b.Len() >= maxNameKey && i+1 < len(name) && utf8.RuneStart(name[i+1]) {
			break
		}
	}
	return b.String()
}

// nameIndexable reports whether q's page can be read from the Sort
// partition: sorted by last name, with no filter and no grouping.
func nameIndexable(q recipient.Query) bool {
	return q.SortBy == "lastName" && !q.GroupByStatus && len(q.Statuses) == 0 && q.Feedback == nil &&
		q.Search == "" && q.UserID == ""
}

// listByName reads q's page from the campaign's Sort partition
// (nameIndexable): its keys up to the page's end and one more, eventually
// consistent as every list page, then the page (recipientPageOf). The
// total is the entries read when the partition ends within them, else
// the campaign's counter (gifting.PageTotal), as the default page's.
// indexed is false when the campaign's recipients are not all keyed yet
// (campaignNamesIndexed): the caller then reads the Slim partition, and
// this read is lost (only until the migration step has run).
func (s *Store) listByName(ctx context.Context, orgID, campaignID string, q recipient.Query) (page campaign.RecipientListPage, indexed bool, err error) {
	in := s.nameQuery(orgID, campaignID, q)
	entries, err := s.nameEntries(ctx, in, q.Page.End()+1)
	if err != nil {
		return page, true, err
	}
	page, cit, err := s.recipientPageOf(ctx, orgID, campaignID, q, entries)
	if err != nil {
		return page, true, err
	}
	if attrS(cit, campaignNamesIndexed) != "1" {
		return campaign.RecipientListPage{}, false, nil
	}
	page.Total = gifting.PageTotal(q.Page, countOf(page.Campaign, nil), len(entries))
	setRecipientNext(q.Page, entries, posName)
	return page, true, nil
}

// nameEntries reads up to n entries of the Sort partition query in.
func (s *Store) nameEntries(ctx context.Context, in *dynamodb.QueryInput, n int) ([]slimRecipient, error) {
	keys, err := s.indexKeysUpTo(ctx, in, n, "SSK")
	if err != nil {
		return nil, err
	}
	entries := make([]slimRecipient, len(keys))
	for i, k := range keys {
		entries[i] = slimRecipient{SK: k.SK, LSK: k.LSK}
	}
	return entries, nil
}

// nameQuery is the Query of a campaign's Sort partition in q's order.
func (s *Store) nameQuery(orgID, campaignID string, q recipient.Query) *dynamodb.QueryInput {
	return &dynamodb.QueryInput{
		TableName:                 &s.table,
		IndexName:                 aws.String(indexSort),
		KeyConditionExpression:    aws.String("LPK = :lpk"),
		ExpressionAttributeValues: item{":lpk": str(recipientsLPK(orgID, campaignID))},
		ScanIndexForward:          aws.Bool(q.Order == gifting.Asc),
		ProjectionExpression:      aws.String("SK, SSK"),
	}
}

// indexKeysUpTo returns the SK and the index sort key (sortAttr) of the
// first n entries query in reads (fewer when there are fewer), paging on.
func (s *Store) indexKeysUpTo(ctx context.Context, in *dynamodb.QueryInput, n int, sortAttr string) ([]slimKey, error) {
	keys := make([]slimKey, 0, min(n, 1024))
	for len(keys) < n {
		in.Limit = aws.Int32(int32(min(n-len(keys), 10_000)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		for _, it := range res.Items {
			keys = append(keys, slimKey{SK: attrS(it, "SK"), LSK: attrS(it, sortAttr)})
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return keys, nil
}
