package dynamo

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
)

// A contact's search entries: small items written with the contact, so a
// search and an enrichment read one partition of matching entries instead
// of the whole Slim index.
//
//   - A word entry per word of the contact (contact.EntryWords), at
//     PK ORG#<org>#TOK#<its first 3 characters>, SK <the word> <the
//     contact's Slim sort key>#<id> (wordEntrySK): a Query of a prefix of
//     the word reads the contacts that have a word starting with it, and
//     those of one word come in the contacts page's order (newest first
//     list first, then newest contact first). Entries written before had
//     one per token, SK <the contact's Slim sort key>#<id>; `admin
//     migrate` rewrites them (migrateSearch). It holds the
//     contact's words (w, contact.WordsText) and lists (l, " L1 L2 "), which
//     the Query's filter checks: every term must start a word, the contact
//     must be in the list searched.
//   - A LinkedIn entry at ORG#<org>#LI#<contact.LinkedinKey>, same sort key:
//     enrichment by LinkedIn URL reads its first.
//
// The contact item names its entries in sx (searchNames), so every write
// of the contact knows which entries it had as read (contact.Stored.Search)
// and moves them in the same write: those whose key is no longer the
// contact's are deleted, the others put again when anything they hold
// changed (sx holds a digest of their content). A write that changes none
// of the words, lists, LinkedIn URL or place writes no entry.

// contactSearch is what a contact's search entries are made of.
type contactSearch struct {
	entries []item
	// names is the contact item's sx: a digest of the entries, then the
	// name of each (searchNames).
	names string
}

// searchOf is the search entries of contact c of org at Slim sort key lsk
// (none for a deleted contact).
func searchOf(orgID string, c contact.Contact, lsk string) contactSearch {
	if c.IsDeleted {
		return contactSearch{}
	}
	words := c.SearchWords()
	text := contact.WordsText(words)
	lists := ""
	if len(c.ListIDs) > 0 {
		lists = " " + strings.Join(c.ListIDs, " ") + " "
	}
	sk := searchEntrySK(lsk, c.ContactID)
	var out contactSearch
	var suffixes []string
	for _, w := range contact.EntryWords(words) {
		suffix := tokenSuffix(contact.Token(w))
		e := item{"PK": str(searchPK(orgID, suffix)), "SK": str(wordEntrySK(w, sk)), "w": str(text)}
		if lists != "" {
			e["l"] = str(lists)
		}
		out.entries = append(out.entries, e)
	}
	if len(out.entries) > 0 {
		suffixes = append(suffixes, wordEntries)
	}
	if li := contact.LinkedinKey(c.LinkedinURL); li != "" {
		suffix := linkedinSuffix(li)
		out.entries = append(out.entries, item{"PK": str(searchPK(orgID, suffix)), "SK": str(sk)})
		suffixes = append(suffixes, suffix)
	}
	if len(suffixes) == 0 {
		return out
	}
	h := fnv.New64a()
	for _, part := range []string{lsk, text, lists} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	out.names = strconv.FormatUint(h.Sum64(), 36) + "\n" + strings.Join(suffixes, "\n")
	return out
}

// wordEntrySK is the sort key of a word entry: the word, a space (no word
// holds one), then the contact's entry sort key (searchEntrySK), so a
// Query of the word's prefix reads the contacts it starts a word of, and
// the entries of one word come in the contacts page's order.
func wordEntrySK(word, sk string) string { return word + " " + sk }

// wordEntries is the name, in sx, of a contact's word entries: one per
// word of its search text as stored (srch, contact.EntryWords), so sx
// stays short (a contact item under 1 KB stays one write unit).
const wordEntries = "#W"

// searchNames are the entries an sx names: the partition suffix of each
// token and LinkedIn entry, and wordEntries for the word entries.
func searchNames(sx string) []string {
	if sx == "" {
		return nil
	}
	return strings.Split(sx, "\n")[1:]
}

// searchWrites are the writes that move the search entries of the contact
// c from those its item had as read (c.Stored: Search at Place) to next,
// at Slim sort key lsk: nothing when they are the same, else a put of
// each entry of next and a delete of each old entry next has not.
func (s *Store) searchWrites(orgID string, c contact.Contact, lsk string, next contactSearch) []types.TransactWriteItem {
	if next.names == c.Stored.Search && lsk == c.Stored.Place {
		return nil
	}
	var out []types.TransactWriteItem
	keep := map[string]bool{}
	for _, e := range next.entries {
		keep[attrS(e, "PK")+"\n"+attrS(e, "SK")] = true
		out = append(out, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: e}})
	}
	return append(out, s.entryDeletes(orgID, c.ContactID, c.Stored.Place, c.Stored.Search, c.Stored.Words, keep)...)
}

// entryDeletes are the deletes of the search entries sx names for the
// contact id at Slim sort key place, its word entries those of its search
// text words (the item's srch as read), but those in keep (by PK and SK).
// A name without a word entry's mark is a token entry as written before
// word entries (sort key place#id) or a LinkedIn entry.
func (s *Store) entryDeletes(orgID, id, place, sx, words string, keep map[string]bool) []types.TransactWriteItem {
	var out []types.TransactWriteItem
	sk := searchEntrySK(place, id)
	del := func(pk, sk string) {
		if !keep[pk+"\n"+sk] {
			out = append(out, types.TransactWriteItem{Delete: &types.Delete{TableName: &s.table,
				Key: item{"PK": str(pk), "SK": str(sk)}}})
		}
	}
	for _, name := range searchNames(sx) {
		if name != wordEntries {
			del(searchPK(orgID, name), sk)
			continue
		}
		for _, w := range contact.EntryWords(strings.Fields(words)) {
			del(searchPK(orgID, tokenSuffix(contact.Token(w))), wordEntrySK(w, sk))
		}
	}
	return out
}

// searchDeletes are the writes that remove every search entry the item of
// c had as read.
func (s *Store) searchDeletes(orgID string, c contact.Contact) []types.TransactWriteItem {
	return s.entryDeletes(orgID, c.ContactID, c.Stored.Place, c.Stored.Search, c.Stored.Words, nil)
}

// contactWrites are the writes that replace the contact item c was decided
// from with c, only if it is still at the version read (c.Stored), and
// move its search entries with it: the put first.
func (s *Store) contactWrites(orgID string, c contact.Contact) ([]types.TransactWriteItem, error) {
	it, err := contactAttrs(orgID, c)
	if err != nil {
		return nil, err
	}
	put := types.TransactWriteItem{Put: &types.Put{
		TableName: &s.table, Item: it,
		ConditionExpression:       aws.String("ver = :ver"),
		ExpressionAttributeValues: item{":ver": num(c.Stored.Version)},
	}}
	lsk := attrS(it, "LSK")
	return append([]types.TransactWriteItem{put}, s.searchWrites(orgID, c, lsk, searchOf(orgID, c, lsk))...), nil
}

// putRequests are the puts of writes as batch write requests (deletes too):
// the entries of new contacts, written after them outside a transaction.
func putRequests(writes []types.TransactWriteItem) []types.WriteRequest {
	out := make([]types.WriteRequest, 0, len(writes))
	for _, w := range writes {
		switch {
		case w.Put != nil:
			out = append(out, types.WriteRequest{PutRequest: &types.PutRequest{Item: w.Put.Item}})
		case w.Delete != nil:
			out = append(out, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: w.Delete.Key}})
		}
	}
	return out
}

// termFilter is the filter of a token Query: every term starts a word of
// the entry (w), and, for a list's search, the entry's contact is in it.
func termFilter(terms []string, listID string, exact bool) (string, item) {
	vals := item{}
	conds := make([]string, 0, len(terms)+1)
	for i, t := range terms {
		name := fmt.Sprintf(":t%d", i)
		v := " " + t
		if exact {
			v += " "
		}
		conds = append(conds, "contains(w, "+name+")")
		vals[name] = str(v)
	}
	if listID != "" {
		conds = append(conds, "contains(l, :list)")
		vals[":list"] = str(" " + listID + " ")
	}
	return strings.Join(conds, " AND "), vals
}
