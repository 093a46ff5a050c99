package dynamo

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/erasure"
)

// The erasure's generic writes: an item read, every text in it but its
// keys given to the erasure's scrubber, and the item put back at its
// version when anything changed; entries whose keys hold the person
// deleted whole.

// putAtVersion puts it if the stored item's version is still was (none:
// unconditionally).
func (s *Store) putAtVersion(ctx context.Context, it item, was types.AttributeValue) error {
	in := &dynamodb.PutItemInput{TableName: &s.table, Item: it}
	if was != nil {
		in.ConditionExpression, in.ExpressionAttributeValues = aws.String("ver = :ver"), item{":ver": was}
	}
	if _, err := s.db.PutItem(ctx, in); err != nil {
		return fmt.Errorf("erase %s: %w", keyForError(attrS(it, "SK")), err)
	}
	return nil
}

// scrubKeys scrubs the items of keys that exist.
func (s *Store) scrubKeys(ctx context.Context, keys []item, sc *erasure.Scrubber) (int, string, error) {
	if len(keys) == 0 {
		return 0, "", nil
	}
	got, err := s.batchGet(ctx, keys)
	if err != nil {
		return 0, "", err
	}
	n := 0
	for _, it := range got {
		changed, err := s.scrubItem(ctx, it, sc)
		if err != nil {
			return n, "", err
		}
		if changed {
			n++
		}
	}
	return n, "", nil
}

// scrubRanges walks several prefixes of one partition in turn; the cursor
// is the prefix's number and the key within it.
func (s *Store) scrubRanges(ctx context.Context, pk string, prefixes []string, cursor string, sc *erasure.Scrubber) (int, string, error) {
	i := 0
	if c, rest, ok := strings.Cut(cursor, "|"); ok {
		fmt.Sscanf(c, "%d", &i)
		cursor = rest
	}
	n, next, err := s.scrubRange(ctx, pk, prefixes[i], cursor, sc)
	switch {
	case err != nil:
		return n, "", err
	case next != "":
		return n, fmt.Sprintf("%d|%s", i, next), nil
	case i+1 < len(prefixes):
		return n, fmt.Sprintf("%d|", i+1), nil
	}
	return n, "", nil
}

// erasePage is how many items one slice of a walk reads.
const erasePage = 200

// scrubRange scrubs one page of the items of partition pk whose sort key
// starts with prefix, after the sort key
// cursor; next is the last key read, "" at the end.
func (s *Store) scrubRange(ctx context.Context, pk, prefix, cursor string, sc *erasure.Scrubber) (int, string, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true), Limit: aws.Int32(erasePage),
		KeyConditionExpression: aws.String("PK = :pk"), ExpressionAttributeValues: item{":pk": str(pk)}}
	if prefix != "" {
		in.KeyConditionExpression = aws.String("PK = :pk AND begins_with(SK, :prefix)")
		in.ExpressionAttributeValues[":prefix"] = str(prefix)
	}
	if cursor != "" {
		in.ExclusiveStartKey = key(pk, cursor)
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return 0, "", fmt.Errorf("query %s %s: %w", keyForError(pk), keyForError(prefix), err)
	}
	n := 0
	for _, it := range out.Items {
		changed, err := s.scrubItem(ctx, it, sc)
		if err != nil {
			return n, "", err
		}
		if changed {
			n++
		}
	}
	if out.LastEvaluatedKey == nil {
		return n, "", nil
	}
	return n, attrS(out.LastEvaluatedKey, "SK"), nil
}

// scrubItem writes it back with every text but its keys scrubbed, at its
// version.
func (s *Store) scrubItem(ctx context.Context, it item, sc *erasure.Scrubber) (bool, error) {
	out, changed := scrubAttrs(it, sc.For(attrStrings(&types.AttributeValueMemberM{Value: it})...))
	if !changed {
		return false, nil
	}
	return true, s.putAtVersion(ctx, out, it["ver"])
}

// keyAttrs are the key and index-key attributes, never scrubbed: they
// are made of ids and times, where a short name could match by chance, and
// a changed key would be another item. Those that hold words are
// deleted whole (deleteRange).
var keyAttrs = map[string]bool{"PK": true, "SK": true, "LPK": true, "LSK": true, "OPK": true, "OSK": true,
	"dueShard": true, "dueAt": true, "pg": true, "ver": true}

// scrubAttrs is it with every string, at any depth, as sc makes it.
func scrubAttrs(it item, sc *erasure.Scrubber) (item, bool) {
	out := make(item, len(it))
	changed := false
	for k, v := range it {
		if keyAttrs[k] {
			out[k] = v
			continue
		}
		nv, c := scrubAttr(v, sc)
		out[k], changed = nv, changed || c
	}
	return out, changed
}

func scrubAttr(v types.AttributeValue, sc *erasure.Scrubber) (types.AttributeValue, bool) {
	switch t := v.(type) {
	case *types.AttributeValueMemberS:
		if s, c := sc.String(t.Value); c {
			return str(s), true
		}
	case *types.AttributeValueMemberSS:
		out, changed := make([]string, len(t.Value)), false
		for i, e := range t.Value {
			var c bool
			out[i], c = sc.String(e)
			changed = changed || c
		}
		if changed {
			return &types.AttributeValueMemberSS{Value: dedupe(out)}, true
		}
	case *types.AttributeValueMemberL:
		// As erasure's lists: only the elements about the person, when
		// some are (a change record's messages).
		each, mixed := make([]*erasure.Scrubber, len(t.Value)), false
		for i, e := range t.Value {
			each[i] = sc.For(attrStrings(e)...)
			mixed = mixed || each[i] == sc
		}
		out, changed := make([]types.AttributeValue, len(t.Value)), false
		for i, e := range t.Value {
			esc := sc
			if mixed {
				esc = each[i]
			}
			var c bool
			out[i], c = scrubAttr(e, esc)
			changed = changed || c
		}
		if changed {
			return &types.AttributeValueMemberL{Value: out}, true
		}
	case *types.AttributeValueMemberM:
		if out, c := scrubAttrs(t.Value, sc); c {
			return &types.AttributeValueMemberM{Value: out}, true
		}
	}
	return v, false
}

// attrStrings are the strings of v at any depth.
func attrStrings(v types.AttributeValue) []string {
	switch t := v.(type) {
	case *types.AttributeValueMemberS:
		return []string{t.Value}
	case *types.AttributeValueMemberSS:
		return t.Value
	case *types.AttributeValueMemberL:
		var out []string
		for _, e := range t.Value {
			out = append(out, attrStrings(e)...)
		}
		return out
	case *types.AttributeValueMemberM:
		var out []string
		for _, e := range t.Value {
			out = append(out, attrStrings(e)...)
		}
		return out
	}
	return nil
}

// dedupe drops repeats (a string set holds each value once).
func dedupe(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// queryPrefixHolding reads the keys of partition pk's items whose sort key
// starts with prefix and holds only.
func (s *Store) queryPrefixHolding(ctx context.Context, pk, prefix, only string) ([]item, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ProjectionExpression:      aws.String("PK, SK"),
		ExpressionAttributeValues: item{":pk": str(pk), ":prefix": str(prefix)}}
	var keys []item
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query %s %s: %w", keyForError(pk), keyForError(prefix), err)
		}
		for _, it := range out.Items {
			// A filter may not name the key: the entries are few, read
			// keys only.
			if strings.Contains(attrS(it, "SK"), only) {
				keys = append(keys, it)
			}
		}
	}
	return keys, nil
}

// deleteKeys deletes the items of keys that exist and counts them.
func (s *Store) deleteKeys(ctx context.Context, keys []item) (int, error) {
	n := 0
	for _, k := range keys {
		out, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(attrS(k, "PK"), attrS(k, "SK")),
			ReturnValues: types.ReturnValueAllOld})
		if err != nil {
			return n, fmt.Errorf("erase %s: %w", keyForError(attrS(k, "SK")), err)
		}
		if out.Attributes != nil {
			n++
		}
	}
	return n, nil
}

// PackedRecordText returns the JSON of a recipient record packed in an
// item's binary attribute, so that a check of every stored byte (the
// erasure's test, an operator's audit) can read what is packed; ok is
// false for bytes that are no packed record.
func PackedRecordText(b []byte) (text []byte, ok bool) {
	rd := flate.NewReaderDict(bytes.NewReader(b), recipientDict)
	defer rd.Close()
	j, err := io.ReadAll(rd)
	if err != nil {
		return nil, false
	}
	return j, true
}
