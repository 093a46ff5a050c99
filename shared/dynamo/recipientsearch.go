package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/recipient"
)

// Every recipient has one word entry per distinct word of its first and
// last names of contact.TokenLen characters or more (recipient.SearchWords,
// contact.EntryWords), in a partition of its campaign:
//
//	PK = ORG#<org>#RW#<campaign>   SK = <word> <creation key>
//	w  = the recipient's words, each between spaces (contact.WordsText)
//	k  = the recipient's SK
//
// A search Queries the entries whose word starts with its longest term
// (begins_with), eventually consistent, filtered on its other terms
// (contains(w, " <term>")), keeps the page's first entries in creation
// order as they stream by (topRecipients) and counts them all: it reads
// its matches, ~150 bytes each, not the campaign (decision 0013). The
// entries are written with the recipient (in add-recipient's transaction;
// by a launch slice after its recipients, again on every run of the
// slice) and never move: a recipient's contact details are a copy taken
// when it was created. Campaigns created before the entries are marked
// once `admin migrate -steps recipient-search` has written their
// recipients' entries (campaignSearchIndexed); until then a search reads
// the Slim partition as before.

// campaignSearchIndexed names the attribute marking a campaign whose every
// recipient has its word entries ("1").
const campaignSearchIndexed = "rsw"

// recipientWordsPK is the partition of campaign's word entries.
func recipientWordsPK(org, campaign string) string { return orgPK(org) + "#RW#" + campaign }

// recipientWordItems are the word entries of r, a recipient of orgID.
func recipientWordItems(orgID string, r recipient.Recipient) []item {
	lsk := recipientLSK(r.CampaignID, r.RecipientID, r.CreatedAt)
	return wordItems(orgID, r.CampaignID, recipientSK(r.CampaignID, r.RecipientID), lsk, r.ContactDetails.SearchWords())
}

// wordItems are the word entries of the recipient at sk (Slim key lsk)
// of campaign, whose words are words.
func wordItems(orgID, campaign, sk, lsk string, words []string) []item {
	ck, w := recipientCreationKey(campaign, lsk), contact.WordsText(words)
	var out []item
	for _, word := range contact.EntryWords(words) {
		out = append(out, item{"PK": str(recipientWordsPK(orgID, campaign)), "SK": str(word + " " + ck), "w": str(w), "k": str(sk)})
	}
	return out
}

// recipientWordPuts are the transaction items that put r's word entries.
func (s *Store) recipientWordPuts(orgID string, r recipient.Recipient) []types.TransactWriteItem {
	var out []types.TransactWriteItem
	for _, it := range recipientWordItems(orgID, r) {
		out = append(out, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it}})
	}
	return out
}

// writeRecipientWords puts (or, with del, deletes) the word entries of rs
// with BatchWriteItem, paced by pace (nil: not paced). Putting the same
// entries again changes nothing.
func (s *Store) writeRecipientWords(ctx context.Context, orgID string, rs []recipient.Recipient, del bool, pace *rate.Limiter) error {
	var entries []item
	for _, r := range rs {
		entries = append(entries, recipientWordItems(orgID, r)...)
	}
	return s.writeWordItems(ctx, entries, del, pace)
}

// writeWordItems puts (or, with del, deletes) word entries with
// BatchWriteItem, paced by pace (nil: not paced).
func (s *Store) writeWordItems(ctx context.Context, entries []item, del bool, pace *rate.Limiter) error {
	writes := make([]types.WriteRequest, 0, len(entries))
	units := 0
	for _, it := range entries {
		if del {
			writes = append(writes, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(attrS(it, "PK"), attrS(it, "SK"))}})
		} else {
			writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
		units += writeUnits(it)
	}
	if len(writes) == 0 {
		return nil
	}
	if pace != nil {
		if err := waitUnits(ctx, pace, units); err != nil {
			return fmt.Errorf("launch pace: %w", err)
		}
	}
	return s.batchWrite(ctx, writes)
}

// recipientSearch is q's search when its word entries can answer it: a
// search with a term of contact.TokenLen characters or more, in creation
// order, with no other filter.
func recipientSearch(q recipient.Query) (contact.Search, bool) {
	if q.Search == "" || q.SortBy != "createdAt" || len(q.Statuses) > 0 || q.Feedback != nil || q.UserID != "" || q.GroupByStatus {
		return contact.Search{}, false
	}
	srch, ok := recipient.NewSearch(q.Search)
	return srch, ok && srch.Lead != ""
}

// listBySearch reads q's page from the word entries of srch's lead
// (recipientSearch): a Query of its matches (keys and words), the first
// q.Page.End() kept in creation order and every one counted, then the
// page (recipientPageOf). indexed is false when the campaign is not
// marked campaignSearchIndexed: the caller then reads the Slim partition.
func (s *Store) listBySearch(ctx context.Context, orgID, campaignID string, q recipient.Query, srch contact.Search) (page campaign.RecipientListPage, indexed bool, err error) {
	top := newTopRecipients(recipientOrder(q), q.Page.End())
	err = s.searchMatches(ctx, orgID, campaignID, srch, func(e slimRecipient) bool {
		top.add(e)
		return true
	})
	if err != nil {
		return page, true, err
	}
	page, cit, err := s.recipientPageOf(ctx, orgID, campaignID, q, top.sorted())
	if err != nil {
		return page, true, err
	}
	if attrS(cit, campaignSearchIndexed) != "1" {
		return campaign.RecipientListPage{}, false, nil
	}
	page.Total = top.total
	return page, true, nil
}

// searchMatches reads the recipients of campaignID that srch matches from
// the word entries of its lead: a Query of the entries whose word starts
// with it, eventually consistent, filtered on its other terms; each
// recipient is visited once (SK and creation LSK), until visit returns
// false.
func (s *Store) searchMatches(ctx context.Context, orgID, campaignID string, srch contact.Search, visit func(slimRecipient) bool) error {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :lead)"),
		ExpressionAttributeValues: item{":pk": str(recipientWordsPK(orgID, campaignID)), ":lead": str(srch.Lead)},
		ProjectionExpression:      aws.String("SK, w, k"),
	}
	var conds []string
	for i, t := range srch.Terms {
		if t == srch.Lead {
			continue
		}
		v := ":t" + strconv.Itoa(i)
		in.ExpressionAttributeValues[v] = str(" " + t)
		conds = append(conds, "contains(w, "+v+")")
	}
	if len(conds) > 0 {
		in.FilterExpression = aws.String(strings.Join(conds, " AND "))
	}
	prefix := "RCPT#" + campaignID + "#"
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("query recipient words: %w", err)
		}
		for _, e := range out.Items {
			word, ck, _ := strings.Cut(attrS(e, "SK"), " ")
			// A recipient with two words starting with the lead has two
			// entries; only the first word's counts.
			if word != contact.FirstEntryWord(strings.Fields(attrS(e, "w")), srch.Lead) {
				continue
			}
			if !visit(slimRecipient{SK: attrS(e, "k"), LSK: prefix + ck}) {
				return nil
			}
		}
	}
	return nil
}
