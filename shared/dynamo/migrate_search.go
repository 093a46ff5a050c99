package dynamo

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
)

// stepSearch names the step of `admin migrate` that writes the search
// entries (contacts_search.go) of the contacts written before they were
// kept, and the word form of their Slim search text.
const stepSearch = "contacts-search"

// searchForm is the form of the search entries the code writes: 2, a
// word entry per word (contacts_search.go); 1 (recorded as none), a token
// entry per token. The contacts-search step records the form it wrote.
const searchForm = 2

// migrateSearch walks org's contact items, 100 at a time from where the
// last run stopped: a contact whose item does not name the entries it
// should have (sx), or whose srch is not its words, gets them in one
// transaction with the item's update (its version moves, so a concurrent
// write of the contact reads it again); a contact that names them has them
// checked, and the missing ones (a write that stopped between a new
// contact and its entries) put again. A second run after a complete one
// changes nothing. A step done in an older form of the entries walks
// again (searchForm), rewriting each contact's entries. Costs: a
// transaction per upgraded contact (about 14 write units for 6 entries,
// about 22 when it deletes 5 token entries too), a keys read of the
// entries of the others.
func (s *Store) migrateSearch(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	cur, err := s.migrationProgress(ctx, orgID, stepSearch)
	if err != nil {
		return r, err
	}
	if cur.Form < searchForm {
		// Done, if at all, in an older form: walk again from the start,
		// writing this form (searches read the whole index meanwhile).
		cur = migrationCursor{Form: searchForm}
	}
	for !cur.Done {
		in := s.contactRange(orgID, true)
		in.ConsistentRead = aws.Bool(true)
		in.Limit = aws.Int32(100)
		if cur.After != "" {
			in.ExclusiveStartKey = key(orgPK(orgID), cur.After)
		}
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return r, fmt.Errorf("query contacts: %w", err)
		}
		var check []item
		for _, it := range res.Items {
			c, err := decodeContact(it)
			if err != nil {
				return r, err
			}
			if c.ContactID == "" {
				continue
			}
			lsk := c.LSK
			if legacyPlace(lsk) {
				lsk = contactSK(c.ContactID)
			}
			want := searchOf(orgID, c.contact(), lsk)
			if c.Sx == want.names && attrS(it, "srch") == contact.WordsText(c.contact().SearchWords()) {
				check = append(check, want.entries...)
				continue
			}
			if err := s.upgradeSearch(ctx, orgID, c); err != nil {
				return r, err
			}
			r.Changed++
		}
		n, err := s.putMissing(ctx, check)
		if err != nil {
			return r, err
		}
		r.Changed += n
		if len(res.Items) > 0 {
			cur.After = attrS(res.Items[len(res.Items)-1], "SK")
		}
		cur.Done = res.LastEvaluatedKey == nil
		if err := s.saveMigrationProgress(ctx, orgID, stepSearch, cur); err != nil {
			return r, err
		}
	}
	return r, nil
}

// upgradeSearch writes the search entries of the contact c and names them
// on its item, with its words as srch, in one transaction at its version;
// a concurrent write of the contact makes it read the contact again (a
// write of the current code names its entries itself: nothing left then).
func (s *Store) upgradeSearch(ctx context.Context, orgID string, c storedContact) error {
	for attempt := 1; ; attempt++ {
		cc := c.contact()
		lsk := c.LSK
		if legacyPlace(lsk) {
			lsk = contactSK(c.ContactID)
		}
		next := searchOf(orgID, cc, lsk)
		update := types.TransactWriteItem{Update: &types.Update{TableName: &s.table,
			Key:                       key(orgPK(orgID), contactSK(c.ContactID)),
			UpdateExpression:          aws.String("SET srch = :srch ADD ver :one"),
			ConditionExpression:       aws.String("ver = :ver"),
			ExpressionAttributeValues: item{":srch": str(contact.WordsText(cc.SearchWords())), ":one": num(1), ":ver": num(c.Ver)}}}
		if next.names != "" {
			update.Update.UpdateExpression = aws.String("SET srch = :srch, sx = :sx ADD ver :one")
			update.Update.ExpressionAttributeValues[":sx"] = str(next.names)
		}
		// The entries the item names, if any, are at its place as stored.
		cc.Stored.Place = lsk
		items := append([]types.TransactWriteItem{update}, s.searchWrites(orgID, cc, lsk, next)...)
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		if err == nil {
			return nil
		}
		if err := s.retryWait(ctx, err, attempt); err != nil {
			return fmt.Errorf("search entries of contact %s: %w", c.ContactID, err)
		}
		fresh, err := s.contact(ctx, orgID, c.ContactID)
		if errors.Is(err, contact.ErrNotFound) {
			return nil // gone meanwhile: its delete took its entries
		}
		if err != nil {
			return err
		}
		if fresh.Sx != "" && fresh.Sx != c.Sx {
			return nil // written meanwhile by code that keeps the entries
		}
		c = fresh
	}
}

// putMissing reads entries by key and puts again those that are missing;
// it returns how many it put.
func (s *Store) putMissing(ctx context.Context, entries []item) (int, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	keys := make([]item, len(entries))
	for i, e := range entries {
		keys[i] = key(attrS(e, "PK"), attrS(e, "SK"))
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return 0, err
	}
	have := make(map[string]bool, len(got))
	for _, it := range got {
		have[attrS(it, "PK")+"\n"+attrS(it, "SK")] = true
	}
	var puts []types.WriteRequest
	for _, e := range entries {
		if !have[attrS(e, "PK")+"\n"+attrS(e, "SK")] {
			puts = append(puts, types.WriteRequest{PutRequest: &types.PutRequest{Item: e}})
		}
	}
	return len(puts), s.batchWrite(ctx, puts)
}
