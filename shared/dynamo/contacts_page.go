package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// ContactPage returns a page of org's live contacts: ordered by first
// list (newest list first; contacts in no list last), then newest contact
// first. The counter (kept by imports after each chunk's writes) trails
// the contacts while an import runs, and for good when one died between
// its writes and its count; so the keys are read one past the page, which
// says whether a contact follows it, and the slice makes the total of
// them and the counter (gifting.PageTotal).
//
// Costs: page 1 is one Query of the page's Slim entries (keys), then one
// BatchGetItem of the page's items and the contacts counter together (a
// page of 100 reads the counter beside the Query instead: 3 requests). A
// deeper page reads the counter beside the Query too, walks the Slim
// entries up to the page's end (about 1 read unit per 40 contacts
// skipped) and reads the page's items by key. The Slim index is
// eventually consistent, so a contact written in the last moment may be
// missing from a page read at once.
func (s *Store) ContactPage(ctx context.Context, orgID string, page gifting.PageRequest) (contact.ContactPage, error) {
	ids, skipped, total, err := s.contactPageIDs(ctx, orgID, page)
	if err != nil {
		return contact.ContactPage{}, err
	}
	read := skipped + len(ids)
	lo, hi := page.Window(read)
	ids = ids[:hi-lo]
	keys := make([]item, 0, len(ids)+1)
	for _, id := range ids {
		keys = append(keys, key(orgPK(orgID), contactSK(id)))
	}
	counting := total < 0
	if counting {
		keys = append(keys, contactsTotalKeys(orgID)...)
	}
	// Eventually consistent: the page's ids come from the Slim index,
	// which is itself eventually consistent, and a page need not show a
	// write of the last second; half the read units of a consistent read.
	got, err := s.batchGetAs(ctx, keys, false)
	if err != nil {
		return contact.ContactPage{}, err
	}
	if counting {
		if total, err = contactsTotalOf(got); err != nil {
			return contact.ContactPage{}, err
		}
	}
	byID := make(map[string]contact.Contact, len(got))
	for _, it := range got {
		if !strings.HasPrefix(attrS(it, "SK"), contactPrefix) {
			continue // the total's items
		}
		c, err := decodeContact(it)
		if err != nil {
			return contact.ContactPage{}, err
		}
		if c.ContactID != "" {
			byID[c.ContactID] = c.contact()
		}
	}
	contacts := make([]contact.Contact, 0, len(ids))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			contacts = append(contacts, c)
		}
	}
	return contact.ContactPage{Contacts: contacts, Counted: int(total), Read: read}, nil
}

// maxBatchGet is how many keys one BatchGetItem reads.
const maxBatchGet = 100

// contactPageIDs returns the ids of page's contacts and one more (whether
// a contact follows), how many it skipped, and the contacts total when it
// read it (-1 when ContactPage reads it with the page's items). A deep
// page reads the total first: when it is exact (no import between its
// writes and its count, contactsCount) and the page lies in the older
// half, the page's keys are read from the oldest end
// (contactIDsFromFarEnd). Page 1 whose items fill a BatchGetItem reads the
// total beside the index query (one request more, no more waiting).
func (s *Store) contactPageIDs(ctx context.Context, orgID string, page gifting.PageRequest) (ids []string, skipped int, total int64, err error) {
	if page.Offset() > 0 {
		total, exact, err := s.contactsCount(ctx, orgID)
		if err != nil {
			return nil, 0, 0, err
		}
		if _, far := page.FromFarEnd(int(total)); far && exact {
			ids, ok, err := s.contactIDsFromFarEnd(ctx, orgID, page.Offset(), page.Limit+1, int(total))
			if err != nil || ok {
				return ids, page.Offset(), total, err
			}
		}
		ids, skipped, err = s.contactIDsFrom(ctx, orgID, page.Offset(), page.Limit+1)
		return ids, skipped, total, err
	}
	if page.Limit < maxBatchGet {
		ids, skipped, err = s.contactIDsFrom(ctx, orgID, 0, page.Limit+1)
		return ids, skipped, -1, err
	}
	counted := make(chan count, 1)
	go func() {
		n, err := s.contactsTotal(ctx, orgID)
		counted <- count{n, err}
	}()
	ids, skipped, err = s.contactIDsFrom(ctx, orgID, 0, page.Limit+1)
	c := <-counted
	if err == nil {
		err = c.err
	}
	return ids, skipped, c.n, err
}

// count is a counter read concurrently.
type count struct {
	n   int64
	err error
}

// contactIDsFromFarEnd returns the ids of up to n contacts of org in the
// contacts page's order after the first skip, reading the Slim keys from
// the other end (oldest list first, oldest contact first): it counts past
// the total − skip − n entries that follow them in the page's order, then
// reads their keys and turns them round. total must be the number of
// contacts exactly; ok is false when the index holds fewer entries than
// that walk needs (a write not visible in it yet), and the caller walks
// from the newest end instead.
func (s *Store) contactIDsFromFarEnd(ctx context.Context, orgID string, skip, n, total int) (ids []string, ok bool, err error) {
	n = min(n, total-skip)
	in := s.slimQuery(contactsLPK(orgID), true)
	if back := total - skip - n; back > 0 {
		at, k, err := s.skipTo(ctx, in, back)
		if err != nil || at == nil || k < back {
			return nil, false, err
		}
		in = s.slimQuery(contactsLPK(orgID), true)
		in.ExclusiveStartKey = at
	}
	in.ProjectionExpression = aws.String("SK, LSK")
	keys, err := s.keysUpTo(ctx, in, n)
	if err != nil || len(keys) < n {
		return nil, false, err
	}
	ids = make([]string, n)
	for i, k := range keys {
		ids[n-1-i] = strings.TrimPrefix(k.SK, contactPrefix)
	}
	return ids, true, nil
}

// contactIDsFrom returns the ids of up to n contacts of org in the
// contacts page's order after the first skip, and how many it skipped
// (fewer than skip when there are fewer contacts). It reads Slim keys
// only: the skipped entries are counted, not read back (skipTo), so a
// deep page holds its own ids, not those of every page before it.
func (s *Store) contactIDsFrom(ctx context.Context, orgID string, skip, n int) ([]string, int, error) {
	in := s.slimQuery(contactsLPK(orgID), false)
	skipped := 0
	if skip > 0 {
		at, k, err := s.skipTo(ctx, in, skip)
		if err != nil || at == nil {
			return nil, k, err
		}
		in = s.slimQuery(contactsLPK(orgID), false)
		in.ExclusiveStartKey, skipped = at, k
	}
	in.ProjectionExpression = aws.String("SK, LSK")
	keys, err := s.keysUpTo(ctx, in, n)
	if err != nil {
		return nil, 0, fmt.Errorf("contacts: %w", err)
	}
	sks := tableSKs(keys)
	for i, sk := range sks {
		sks[i] = strings.TrimPrefix(sk, contactPrefix)
	}
	return sks, skipped, nil
}

// contactsTotal is the organization's number of live contacts (see
// contactsTotalOf), read in one BatchGetItem.
func (s *Store) contactsTotal(ctx context.Context, orgID string) (int64, error) {
	counted, onWallet, err := s.contactsCounts(ctx, orgID)
	return counted + onWallet, err
}

// contactsCount is contactsTotal and whether it is exact: no import has
// chunks between their writes and their count (COUNT#CONTACT's pend, see
// CommitCounts), so the total counts every contact the Slim index holds,
// once its writes are visible there.
func (s *Store) contactsCount(ctx context.Context, orgID string) (total int64, exact bool, err error) {
	got, err := s.batchGet(ctx, contactsTotalKeys(orgID))
	if err != nil {
		return 0, false, err
	}
	total, err = contactsTotalOf(got)
	exact = true
	for _, it := range got {
		if attrS(it, "SK") == counterSK(counterContacts) {
			var c counterItem
			if err := unmarshal(it, &c); err != nil {
				return 0, false, err
			}
			exact = c.Pend == 0
		}
	}
	return total, exact, err
}

// contactsCounts reads the two parts of the contacts total (see
// contactsTotalOf) in one BatchGetItem.
func (s *Store) contactsCounts(ctx context.Context, orgID string) (counted, onWallet int64, err error) {
	got, err := s.batchGet(ctx, contactsTotalKeys(orgID))
	if err != nil {
		return 0, 0, err
	}
	return contactsCountsOf(got)
}

// contactsTotalKeys are the items the contacts total is kept on.
func contactsTotalKeys(orgID string) []item {
	return []item{key(orgPK(orgID), counterSK(counterContacts)), key(orgPK(orgID), walletSK)}
}

// contactsTotalOf is the contacts total from items read with
// contactsTotalKeys (others among them are passed over): COUNT#CONTACT,
// which imports and deletes keep, plus the wallet's count of the contacts
// created with a balance change (walletContacts). Either item missing
// counts zero.
func contactsTotalOf(items []item) (int64, error) {
	counted, onWallet, err := contactsCountsOf(items)
	return counted + onWallet, err
}

// contactsCountsOf is contactsTotalOf's two parts: COUNT#CONTACT's and the
// wallet's.
func contactsCountsOf(items []item) (counted, onWallet int64, err error) {
	for _, it := range items {
		switch attrS(it, "SK") {
		case counterSK(counterContacts):
			var c counterItem
			if err := unmarshal(it, &c); err != nil {
				return 0, 0, err
			}
			counted = c.N
		case walletSK:
			var w walletItem
			if err := unmarshal(it, &w); err != nil {
				return 0, 0, err
			}
			onWallet = w.Contacts
		}
	}
	return counted, onWallet, nil
}
