package dynamo

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// pageIDEncoding spells page ids in lower-case base32 without padding.
var pageIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// pageKeyLength is the length of the prefix a recipient's two legacy page
// ids share: 20 base32 characters, 100 random bits.
const pageKeyLength = 20

// newPageIDs returns the landing and claim page ids of recipient ref: its
// ids and a secret of gifting.PageSecretLength characters of base32 from
// crypto/rand (100 random bits), one secret per page. The ids locate the
// recipient by key, so a page read needs no index and a new recipient no
// Pages entry (one write unit). A recipient whose ids cannot be spelled in
// a page id gets legacy ids (newLegacyPageIDs).
func newPageIDs(ref gifting.PageRef) (landing, claim string) {
	secrets := randomBase32(2 * gifting.PageSecretLength)
	landing, ok1 := gifting.NewPageID(ref, secrets[:gifting.PageSecretLength])
	claim, ok2 := gifting.NewPageID(ref, secrets[gifting.PageSecretLength:])
	if !ok1 || !ok2 {
		return newLegacyPageIDs()
	}
	if landing == claim {
		// 2^-100: draw again rather than hand out one id for both pages.
		return newPageIDs(ref)
	}
	return landing, claim
}

// newLegacyPageIDs returns legacy landing and claim page ids: 26
// characters each, drawn from crypto/rand, sharing their first 20 (the
// Pages index key, so one sparse index finds the recipient from either)
// and differing in their last 6. Sharing the prefix gives nothing away:
// the landing page links to the claim page and the claim page leads back
// to the landing page, so either id already reaches the other. Guessing a
// page still means guessing 100 random bits.
func newLegacyPageIDs() (landing, claim string) {
	s := randomBase32(32)
	landing, claim = s[:gifting.LegacyPageIDLength], s[:pageKeyLength]+s[gifting.LegacyPageIDLength:]
	if landing == claim {
		// 2^-30: draw again rather than hand out one id for both pages.
		return newLegacyPageIDs()
	}
	return landing, claim
}

// randomBase32 returns n characters (a multiple of 8) of lower-case
// base32 from crypto/rand.
func randomBase32(n int) string {
	b := make([]byte, n*5/8)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return pageIDEncoding.EncodeToString(b)
}

// RecipientPage returns the page a landing or claim page id names: the
// recipient, its campaign, the sender's name and the campaign's gifts. It
// costs two BatchGetItems (recipient, campaign live or deleted,
// organization profile; then the gifts, own and catalog), and a legacy
// page id one Query of the Pages index first. A malformed id reads
// nothing.
//
// Errors: recipient.ErrNoPage when no recipient has this page id.
func (s *Store) RecipientPage(ctx context.Context, pageID string) (recipient.Page, error) {
	notFound := recipient.ErrNoPage
	ref, ok := gifting.ParsePageID(pageID)
	if !ok {
		if !gifting.LegacyPageID(pageID) {
			return recipient.Page{}, notFound
		}
		var err error
		if ref, ok, err = s.legacyPageRef(ctx, pageID); err != nil || !ok {
			return recipient.Page{}, cmp.Or(err, notFound)
		}
	}
	orgID, campaignID := ref.OrgID, ref.CampaignID
	org := orgPK(orgID)
	got, err := s.batchGet(ctx, []item{
		key(org, recipientSK(campaignID, ref.RecipientID)),
		key(org, campaignSK(campaignID)), key(org, deletedCampaignSK(campaignID)), key(org, profileSK),
	})
	if err != nil {
		return recipient.Page{}, err
	}
	var p recipient.Page
	var camp campaign.Campaign
	var found, campaignFound bool
	for _, it := range got {
		var err error
		switch sk := attrS(it, "SK"); {
		case sk == campaignSK(campaignID) || (sk == deletedCampaignSK(campaignID) && !campaignFound):
			camp, err = decodeCampaign(it)
			campaignFound = true
			if sk == deletedCampaignSK(campaignID) {
				camp.IsDeleted = true
			}
		case sk == profileSK:
			var o gifting.Organization
			err = unmarshal(it, &o)
			p.Org, p.Sender = o, o.DisplayName
			if p.Sender == "" {
				p.Sender = o.OrgName
			}
		case strings.HasPrefix(sk, recipientPrefix):
			var sr recipient.Stored
			sr, err = decodeRecipient(it)
			p.Recipient, found, p.Erased = sr.Recipient, true, it[erasedAttr] != nil
		}
		if err != nil {
			return recipient.Page{}, err
		}
	}
	if !found {
		return recipient.Page{}, notFound
	}
	switch r := p.Recipient; {
	case subtle.ConstantTimeCompare([]byte(pageID), []byte(r.LandingPageID)) == 1:
		p.Kind = gifting.LandingPage
	case subtle.ConstantTimeCompare([]byte(pageID), []byte(r.ClaimPageID)) == 1:
		p.Kind = gifting.ClaimPage
	default:
		return recipient.Page{}, notFound
	}
	if !campaignFound {
		camp.IsDeleted = true // recipients outlive only a soft delete
	}
	p.Campaign = camp.ForRecipients()
	if !p.Gone() && !p.Recipient.Claimed() {
		if p.Gifts, err = s.campaignGifts(ctx, orgID, p.Campaign.GiftIDs); err != nil {
			return recipient.Page{}, err
		}
	}
	return p, nil
}

// legacyPageRef finds the recipient of a legacy page id through the
// keys-only Pages index: one Query of half a read unit. False when no
// recipient has it, or (at 2^-50 per pair) two share its key: neither may
// be shown for the other.
func (s *Store) legacyPageRef(ctx context.Context, pageID string) (gifting.PageRef, bool, error) {
	out, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName: &s.table, IndexName: aws.String(indexPages),
		KeyConditionExpression:    aws.String("pg = :pg"),
		ExpressionAttributeValues: item{":pg": str(pageKey(pageID))},
		Limit:                     aws.Int32(2),
	})
	if err != nil {
		return gifting.PageRef{}, false, fmt.Errorf("query pages: %w", err)
	}
	if len(out.Items) != 1 {
		return gifting.PageRef{}, false, nil
	}
	orgID, ok1 := strings.CutPrefix(attrS(out.Items[0], "PK"), orgPK(""))
	rest, ok2 := strings.CutPrefix(attrS(out.Items[0], "SK"), recipientPrefix)
	campaignID, recipientID, ok3 := strings.Cut(rest, "#")
	ok := ok1 && ok2 && ok3 && orgID != "" && campaignID != "" && recipientID != ""
	return gifting.PageRef{OrgID: orgID, CampaignID: campaignID, RecipientID: recipientID}, ok, nil
}

// campaignGifts returns the gifts with the given ids visible to org, in the
// order of ids, leaving out those that no longer exist. The org's own gift
// wins over the catalog's of the same id.
func (s *Store) campaignGifts(ctx context.Context, orgID string, ids []string) ([]gifting.Gift, error) {
	byID, err := s.giftItems(ctx, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]gifting.Gift, 0, len(ids))
	for _, id := range ids {
		if g, ok := byID[id]; ok {
			out = append(out, g.Gift)
		}
	}
	return out, nil
}

// giftItem is a gift with the partition it is stored in (the org's own, or
// the service catalog's), which its inventory updates address.
type giftItem struct {
	gifting.Gift
	pk string
}

// giftItems reads the gifts with the given ids visible to org, by id.
func (s *Store) giftItems(ctx context.Context, orgID string, ids []string) (map[string]giftItem, error) {
	keys := make([]item, 0, 2*len(ids))
	for _, id := range ids {
		keys = append(keys, key(orgPK(orgID), giftSK(id)), key(orgPK(gifting.CatalogOrgID), giftSK(id)))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]giftItem, len(items))
	for _, it := range items {
		var g gifting.Gift
		if err := unmarshal(it, &g); err != nil {
			return nil, err
		}
		pk := attrS(it, "PK")
		if cur, ok := byID[g.GiftID]; ok && cur.pk == orgPK(orgID) {
			continue
		}
		byID[g.GiftID] = giftItem{Gift: g, pk: pk}
	}
	return byID, nil
}

// MarkPage records a page mark (recipient.PageMark: viewedAt or
// meetingClickedAt) in place, beside the record as decodeRecipient reads
// it, with its change record, in one transaction conditioned on the field
// being unset: recipient.ErrAlreadyMarked when it was set (a reload, two
// tabs at once), so its message is sent once. The update also moves the
// recipient's version, so a concurrent write of the record read before
// does not write over the mark. Its message holds its recipient by
// reference (messageItemOf), so the record is small: the first view costs
// this one transaction, a later view nothing (the pages decide from the
// recipient they read).
func (s *Store) MarkPage(ctx context.Context, m recipient.PageMark) error {
	r := m.Recipient
	var tx txn
	tx.add(condRecipient, types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(m.OrgID), recipientSK(r.CampaignID, r.RecipientID)),
		UpdateExpression:          aws.String("SET #f = :at, ver = ver + :one"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND attribute_not_exists(#f)"),
		ExpressionAttributeNames:  map[string]string{"#f": string(m.Field)},
		ExpressionAttributeValues: item{":at": str(gifting.FormatTime(m.At)), ":one": num(1)},
	}})
	change, err := s.changePut(m.OrgID, m.Message)
	if err != nil {
		return err
	}
	if err := s.transactRetrying(ctx, append(tx.items, change)); err != nil {
		if tx.failed(cancellationReasons(err), condRecipient) {
			return recipient.ErrAlreadyMarked
		}
		return fmt.Errorf("mark page %s: %w", m.Field, err)
	}
	return nil
}

// CollectionGifts reads the gifts of collection collectionID visible to
// org: its own and the service catalog's, one Query each (catalogs are
// small by nature), the org's own first (recipient.ClaimStore: a
// campaign's swap).
func (s *Store) CollectionGifts(ctx context.Context, orgID, collectionID string) ([]gifting.Gift, error) {
	all, err := catalogOf[gifting.Gift](ctx, s, []string{orgID, gifting.CatalogOrgID}, giftPrefix)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, g := range all {
		if slices.Contains(g.CollectionIDs, collectionID) {
			out = append(out, g)
		}
	}
	return out, nil
}
