package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// CreateGift stores a tenant's own gift. The gift must be validated; ids,
// ownership and timestamps are set here.
func (s *Store) CreateGift(ctx context.Context, orgID string, g gifting.Gift) (gifting.Gift, error) {
	now := s.Now()
	g.GiftID, g.OrganizationID, g.IsDelightloop, g.CreatedAt, g.UpdatedAt = s.NewID(), orgID, false, now, now
	return g, s.putNew(ctx, orgID, giftSK(g.GiftID), g)
}

// CreateTemplate stores a tenant's own template.
func (s *Store) CreateTemplate(ctx context.Context, orgID string, t gifting.Template) (gifting.Template, error) {
	now := s.Now()
	t.TemplateID, t.OrganizationID, t.IsDelightloop, t.CreatedAt, t.UpdatedAt = s.NewID(), orgID, false, now, now
	return t, s.putNew(ctx, orgID, templateSK(t.TemplateID), t)
}

// putNew writes a new item into org's partition; it never overwrites.
func (s *Store) putNew(ctx context.Context, orgID, sk string, v any) error {
	it, err := withKey(v, map[string]string{"PK": orgPK(orgID), "SK": sk})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: &s.table, Item: it, ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	if err != nil {
		return fmt.Errorf("put %s: %w", sk, err)
	}
	return nil
}

// Gift returns a gift visible to org: its own, or one of the service
// catalog. Both are read in one request. It returns NOT_FOUND otherwise.
func (s *Store) Gift(ctx context.Context, orgID, giftID string) (gifting.Gift, error) {
	var g gifting.Gift
	err := s.visible(ctx, orgID, giftSK(giftID), &g)
	if err != nil {
		return g, rename(err, "gift", giftID)
	}
	return g, nil
}

// Template returns a template visible to org, or NOT_FOUND.
func (s *Store) Template(ctx context.Context, orgID, templateID string) (gifting.Template, error) {
	var t gifting.Template
	err := s.visible(ctx, orgID, templateSK(templateID), &t)
	if err != nil {
		return t, rename(err, "template", templateID)
	}
	return t, nil
}

// Gifts returns the gifts visible to org with the given ids, in the order
// of ids. It returns NOT_FOUND naming the first id that is not visible.
func (s *Store) Gifts(ctx context.Context, orgID string, ids []string) ([]gifting.Gift, error) {
	keys := make([]item, 0, 2*len(ids))
	for _, id := range ids {
		keys = append(keys, key(orgPK(orgID), giftSK(id)), key(orgPK(gifting.CatalogOrgID), giftSK(id)))
	}
	items, err := s.batchGet(ctx, keys)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]gifting.Gift, len(items))
	for _, it := range items {
		var g gifting.Gift
		if err := unmarshal(it, &g); err != nil {
			return nil, err
		}
		byID[g.GiftID] = g
	}
	out := make([]gifting.Gift, 0, len(ids))
	for _, id := range ids {
		g, ok := byID[id]
		if !ok {
			return nil, gifting.NotFound("gift", id)
		}
		out = append(out, g)
	}
	return out, nil
}

// errNotVisible is returned by visible and renamed by its callers.
var errNotVisible = gifting.Errorf(gifting.CodeNotFound, "not found")

func rename(err error, kind, id string) error {
	if err == errNotVisible {
		return gifting.NotFound(kind, id)
	}
	return err
}

// visible reads sk from org's partition and from the catalog's in one
// BatchGetItem, preferring the org's own item.
func (s *Store) visible(ctx context.Context, orgID, sk string, v any) error {
	items, err := s.batchGet(ctx, []item{key(orgPK(orgID), sk), key(orgPK(gifting.CatalogOrgID), sk)})
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return errNotVisible
	}
	pick := items[0]
	for _, it := range items {
		if pk, _ := it["PK"].(*types.AttributeValueMemberS); pk != nil && pk.Value == orgPK(orgID) {
			pick = it
		}
	}
	return unmarshal(pick, v)
}

// visibleCatalog reads the items of prefix (gifts or templates) that org
// sees: its own, newest first, then the service catalog's; only the
// catalog's when isCatalog is true, only its own when false. One Query per
// partition: both are small by nature.
func visibleCatalog[T any](ctx context.Context, s *Store, orgID string, isCatalog *bool, prefix string) ([]T, error) {
	var parts []string
	if isCatalog == nil || !*isCatalog {
		parts = append(parts, orgID)
	}
	if isCatalog == nil || *isCatalog {
		parts = append(parts, gifting.CatalogOrgID)
	}
	var out []T
	for _, org := range parts {
		items, err := s.queryPrefix(ctx, orgPK(org), prefix, false)
		if err != nil {
			return nil, err
		}
		vs, err := decodeAll[T](items)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// ListGifts returns a page of the gifts visible to org (its own, newest
// first, then the service catalog's) and the number matching the filter.
//
// Gift catalogs are small by nature (tens to a few thousand items), so a
// page reads both partitions and filters in memory: one Query per partition.
func (s *Store) ListGifts(ctx context.Context, orgID string, f gifting.GiftFilter, page gifting.PageRequest) ([]gifting.Gift, int, error) {
	all, err := visibleCatalog[gifting.Gift](ctx, s, orgID, f.IsDelightloop, giftPrefix)
	if err != nil {
		return nil, 0, err
	}
	search := strings.ToLower(strings.TrimSpace(f.Search))
	var matched []gifting.Gift
	for _, g := range all {
		if search != "" && !strings.Contains(strings.ToLower(g.Name), search) {
			continue
		}
		if f.Status != "" && g.Status != f.Status {
			continue
		}
		if f.CollectionID != "" && !slices.Contains(g.CollectionIDs, f.CollectionID) {
			continue
		}
		matched = append(matched, g)
	}
	lo, hi := page.Window(len(matched))
	return matched[lo:hi], len(matched), nil
}

// SeedCatalog writes the service catalog's gifts and templates with the ids
// they carry, replacing earlier versions: seeding twice changes nothing. A
// gift already stored keeps its inventory: claims have moved its units
// from available to reserved since it was seeded, and a seed giving them
// back would let more units be claimed than exist. The seed's inventory is
// a new gift's initial stock.
func (s *Store) SeedCatalog(ctx context.Context, gifts []gifting.Gift, templates []gifting.Template) error {
	now := s.Now()
	for _, g := range gifts {
		g.OrganizationID, g.IsDelightloop = gifting.CatalogOrgID, true
		if g.CreatedAt.IsZero() {
			g.CreatedAt = now
		}
		g.UpdatedAt = g.CreatedAt
		if err := g.Validate(); err != nil {
			return fmt.Errorf("catalog gift %s: %w", g.GiftID, err)
		}
		if err := s.seedGift(ctx, g); err != nil {
			return err
		}
	}
	var writes []types.WriteRequest
	for _, t := range templates {
		t.OrganizationID, t.IsDelightloop = gifting.CatalogOrgID, true
		if t.CreatedAt.IsZero() {
			t.CreatedAt = now
		}
		t.UpdatedAt = t.CreatedAt
		if err := t.Validate(); err != nil {
			return fmt.Errorf("catalog template %s: %w", t.TemplateID, err)
		}
		it, err := withKey(t, map[string]string{"PK": orgPK(gifting.CatalogOrgID), "SK": templateSK(t.TemplateID)})
		if err != nil {
			return err
		}
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	return s.batchWrite(ctx, writes)
}

// seedGift writes the catalog gift g, with the inventory of the stored
// gift when there is one. The write is conditioned on that inventory as
// read (or on there being no gift), so a claim committing meanwhile is
// read again, never overwritten.
func (s *Store) seedGift(ctx context.Context, g gifting.Gift) error {
	pk, sk := orgPK(gifting.CatalogOrgID), giftSK(g.GiftID)
	for attempt := 1; ; attempt++ {
		var stored gifting.Gift
		found, err := s.get(ctx, pk, sk, &stored)
		if err != nil {
			return fmt.Errorf("catalog gift %s: %w", g.GiftID, err)
		}
		cond, vals := aws.String("attribute_not_exists(PK)"), item(nil)
		if found {
			g.Inventory = stored.Inventory
			cond = aws.String("inventory.available = :av AND inventory.reserved = :rv")
			vals = item{":av": num(int64(stored.Inventory.Available)), ":rv": num(int64(stored.Inventory.Reserved))}
		}
		it, err := withKey(g, map[string]string{"PK": pk, "SK": sk})
		if err != nil {
			return err
		}
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.table, Item: it, ConditionExpression: cond, ExpressionAttributeValues: vals,
		})
		if err == nil {
			return nil
		}
		if err := s.retryReplace(ctx, err, attempt); err != nil {
			return fmt.Errorf("catalog gift %s: %w", g.GiftID, err)
		}
	}
}

// batchWrite writes requests in batches of 25, retrying unprocessed ones.
func (s *Store) batchWrite(ctx context.Context, writes []types.WriteRequest) error {
	for start := 0; start < len(writes); start += 25 {
		pending := writes[start:min(start+25, len(writes))]
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if err := sleep(ctx, backoff(attempt)); err != nil {
					return err
				}
			}
			out, err := s.db.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
				RequestItems: map[string][]types.WriteRequest{s.table: pending},
			})
			if err != nil {
				return fmt.Errorf("batch write: %w", err)
			}
			pending = out.UnprocessedItems[s.table]
		}
	}
	return nil
}
