package dynamo

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
)

// An audience member's entries: small items beside its member item
// (memberEntryPrefix), written by the build just before the commit of the
// member (idempotent puts: a slice that runs twice writes the same keys),
// and removed with the members by a rebuild's clearing and a purge.
//
//   - AMIDX#<aud>#I#<contact>: the contactId order, keys only, so a deep
//     page in that order skips ~100-byte entries (about 1 read unit per 40),
//     not ~700-byte member items.
//   - AMIDX#<aud>#W#<word>#<contact>, one per word of the member
//     (audience.MemberWords), with the contact's createdAt (c), updatedAt
//     (u) and all its words (w): a search reads the entries of its lead
//     term's prefix and checks the other terms against w.
//
// Each entry is one write unit. They are plain table items rather than
// index entries because a member has several of them.

// memberEntries are the entries of member m of an audience of org.
func memberEntries(orgID string, m audience.Member) []item {
	pk := str(orgPK(orgID))
	words := audience.MemberWords(m)
	out := make([]item, 0, len(words)+1)
	out = append(out, item{"PK": pk, "SK": str(memberIDSK(m.AudienceID, m.ContactID))})
	all := str(strings.Join(words, " "))
	created, updated := str(m.CreatedAt.UTC().Format(timeLayout)), str(m.UpdatedAt.UTC().Format(timeLayout))
	for _, w := range words {
		out = append(out, item{"PK": pk, "SK": str(memberWordSK(m.AudienceID, w, m.ContactID)), "c": created, "u": updated, "w": all})
	}
	return out
}

// putMemberEntries writes entries (memberEntries of some members), 25 to
// a request, each request after pace allows its write units when pace is
// not nil: they go to the organization's partition, as the members do.
func (s *Store) putMemberEntries(ctx context.Context, entries []item, pace audience.Pace) error {
	for start := 0; start < len(entries); start += 25 {
		chunk := entries[start:min(start+25, len(entries))]
		writes := make([]types.WriteRequest, len(chunk))
		for i, it := range chunk {
			writes[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: it}}
		}
		if pace != nil {
			if err := pace.Wait(ctx, len(chunk)); err != nil {
				return fmt.Errorf("audience member entries pace: %w", err)
			}
		}
		if err := s.batchWrite(ctx, writes); err != nil {
			return fmt.Errorf("write audience member entries: %w", err)
		}
	}
	return nil
}

// memberIDKeys are the keys of the first n members of audience id in
// contactId order (or reversed), from their entries.
func (s *Store) memberIDKeys(ctx context.Context, orgID, id string, asc bool, n int) ([]slimKey, error) {
	prefix := memberIDSK(id, "")
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(prefix)},
		ProjectionExpression:      aws.String("SK"),
		ScanIndexForward:          aws.Bool(asc),
	}
	keys, err := s.keysUpTo(ctx, in, n)
	for i := range keys {
		keys[i].SK = audienceMemberSK(id, strings.TrimPrefix(keys[i].SK, prefix))
	}
	return keys, err
}

// SearchEntries reads the word entries of audience id whose word begins
// with lead: its members with such a word, once per such word. The Query
// leaves out the entries whose words do not contain each of others (a
// substring of the words: every entry a term begins one of the words of
// passes), so a lead that many members share, such as an email's domain,
// sends back and holds its matches only, though it reads (and is billed
// for) every entry of the lead.
func (s *Store) SearchEntries(ctx context.Context, orgID, id, lead string, others []string) ([]audience.MemberEntry, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(memberWordPrefix(id, lead))},
	}
	var filter []string
	for _, t := range slices.Compact(slices.Sorted(slices.Values(others))) {
		if t == lead || t == "" {
			continue
		}
		v := fmt.Sprintf(":t%d", len(filter))
		in.ExpressionAttributeValues[v] = str(t)
		filter = append(filter, "contains(w, "+v+")")
	}
	if len(filter) > 0 {
		in.FilterExpression = aws.String(strings.Join(filter, " AND "))
	}
	var out []audience.MemberEntry
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		res, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("search audience members: %w", err)
		}
		for _, it := range res.Items {
			sk := attrS(it, "SK")
			created, _ := time.Parse(timeLayout, attrS(it, "c"))
			updated, _ := time.Parse(timeLayout, attrS(it, "u"))
			out = append(out, audience.MemberEntry{ContactID: sk[strings.LastIndexByte(sk, '#')+1:],
				CreatedAt: created, UpdatedAt: updated, Words: strings.Fields(attrS(it, "w"))})
		}
	}
	return out, nil
}

// deleteUpTo deletes up to limit items of org's partition whose sort key
// begins with prefix (reading their keys only) and returns how many.
func (s *Store) deleteUpTo(ctx context.Context, orgID, prefix string, limit int) (int, error) {
	res, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(prefix)},
		ProjectionExpression:      aws.String("PK, SK"),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(limit)),
	})
	if err != nil {
		return 0, fmt.Errorf("query %s: %w", prefix, err)
	}
	writes := make([]types.WriteRequest, len(res.Items))
	for i, it := range res.Items {
		writes[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: it}}
	}
	if err := s.batchWrite(ctx, writes); err != nil {
		return 0, err
	}
	return len(res.Items), nil
}
