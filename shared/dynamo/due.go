package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/jobs"
)

// Due items are work that must happen after a commit, driven from a record
// written in the same transaction as the change (a launch record) rather
// than from a message sent after it. Such a record carries, while its work
// is outstanding:
//
//	dueShard  the due shard (dueShardPK), fixed for the item
//	dueAt     when it is next due, then its own key (dueSK)
//	dueKind   the job kind that continues it, e.g. "campaign.launch"
//	dueRef    what the job works on, e.g. the campaign id
//	cursor    where its job stopped ("" at the start)
//
// and progressAt, the time of its last progress. The scheduler tick finds
// what is due through the sparse Due index (DueItems), claims each with a
// conditional move of its due time (ClaimDue), and runs its job from the
// cursor; the work moves the due time forward as it progresses and removes
// dueShard and dueAt when it is done, so a tick with nothing due reads
// nothing but one empty page per shard.
//
// The Due index projects only the attributes the tick reads (dueKind,
// dueRef, cursor, progressAt, besides the keys), so an index entry is a
// few dozen bytes whatever the size of its item: a recipient's due writes
// cost one index write unit, not a copy of the whole recipient.

// DueLease is how long whoever works a due item has it to itself
// (jobs.DueLease).
const DueLease = jobs.DueLease

// Due is one item of due work, as the scheduler tick sees it (jobs.Due).
type Due = jobs.Due

// dueOnlyItem is an item of its own at pk/sk whose only work is to be
// due: its keys and the due attributes (dueAttrs) of kind on ref at at.
func dueOnlyItem(kind, ref, pk, sk string, at time.Time) item {
	it := item{"PK": str(pk), "SK": str(sk)}
	for k, v := range dueAttrs(kind, ref, pk, sk, at) {
		it[k] = str(v)
	}
	return it
}

// dueAttrs are the attributes that put a new item pk/sk of kind and ref in
// the due index at at.
//
// A recipient's ref is left out: it is spelled by the item's sort key
// (dueRefOfKey).
func dueAttrs(kind, ref, pk, sk string, at time.Time) map[string]string {
	attrs := map[string]string{
		"dueShard": dueShardPK(dueShardOf(pk, sk)), "dueAt": dueSK(at, pk, sk),
		"dueKind": kind,
	}
	if ref != dueRefOfKey(kind, sk) {
		attrs["dueRef"] = ref
	}
	return attrs
}

// dueRefOfKey is the ref of a due item of kind whose sort key is sk, when
// the key spells it (a recipient's, RCPT#<campaign>#<recipient>), else "".
func dueRefOfKey(kind, sk string) string {
	if kind != gifting.JobRecipientEmails {
		return ""
	}
	campaign, recipient, ok := strings.Cut(strings.TrimPrefix(sk, recipientPrefix), "#")
	if !ok || !strings.HasPrefix(sk, recipientPrefix) {
		return ""
	}
	return gifting.RecipientRef(campaign, recipient)
}

// dueRecord is the part of a due item the tick reads.
type dueRecord struct {
	PK         string    `json:"PK"`
	SK         string    `json:"SK"`
	DueAt      string    `json:"dueAt"`
	DueKind    string    `json:"dueKind"`
	DueRef     string    `json:"dueRef"`
	Cursor     string    `json:"cursor"`
	ProgressAt time.Time `json:"progressAt"`
}

// dueTickPage bounds the items one tick takes from a shard; the rest wait
// for the next tick.
const dueTickPage = 25

// DueItems returns the items due at or before now: one Query of the due
// index per shard (eventually consistent, as every index read; ClaimDue
// settles who works an item).
func (s *Store) DueItems(ctx context.Context, now time.Time) ([]Due, error) {
	var due []Due
	for shard := range dueShards {
		out, err := s.db.Query(ctx, &dynamodb.QueryInput{
			TableName:              &s.table,
			IndexName:              aws.String(indexDue),
			KeyConditionExpression: aws.String("dueShard = :pk AND dueAt <= :upto"),
			ExpressionAttributeValues: item{
				":pk": str(dueShardPK(shard)), ":upto": str(dueUpTo(now)),
			},
			ProjectionExpression:     aws.String("PK, SK, dueAt, dueKind, dueRef, #cur, progressAt"),
			ExpressionAttributeNames: map[string]string{"#cur": "cursor"},
			Limit:                    aws.Int32(dueTickPage),
		})
		if err != nil {
			return nil, fmt.Errorf("query due shard %d: %w", shard, err)
		}
		for _, it := range out.Items {
			var r dueRecord
			if err := unmarshal(it, &r); err != nil {
				return nil, err
			}
			at, err := time.Parse(dueTimeLayout, r.DueAt[:min(len(r.DueAt), len(dueTimeLayout))])
			if err != nil {
				return nil, fmt.Errorf("due item %s %s: %w", r.PK, r.SK, err)
			}
			if r.DueRef == "" {
				r.DueRef = dueRefOfKey(r.DueKind, r.SK)
			}
			due = append(due, Due{Kind: r.DueKind, OrgID: orgOfPK(r.PK), Ref: r.DueRef, Cursor: r.Cursor,
				At: at, ProgressAt: r.ProgressAt, Key: jobs.DueKey{PK: r.PK, SK: r.SK, DueAt: r.DueAt}})
		}
	}
	return due, nil
}

// ClaimDue makes d due again at until, if it is still due as DueItems saw
// it: of overlapping ticks only one gets it (true); the others, and a tick
// that saw it before its work progressed or finished, get false.
func (s *Store) ClaimDue(ctx context.Context, d Due, until time.Time) (bool, error) {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(d.Key.PK, d.Key.SK),
		UpdateExpression:          aws.String("SET dueAt = :next"),
		ConditionExpression:       aws.String("dueAt = :seen"),
		ExpressionAttributeValues: item{":next": str(dueSK(until, d.Key.PK, d.Key.SK)), ":seen": str(d.Key.DueAt)},
	})
	var cond *types.ConditionalCheckFailedException
	if errors.As(err, &cond) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("claim due %s: %w", d.Kind, err)
	}
	return true, nil
}

// dueProgressed records the progress of the due item pk/sk: its cursor,
// and its due time pushed a lease ahead. An item no longer due (its work
// finished meanwhile) is left alone.
func (s *Store) dueProgressed(ctx context.Context, pk, sk, cursor string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(pk, sk),
		UpdateExpression:          aws.String("SET dueAt = :next, #cur = :cursor"),
		ConditionExpression:       aws.String("attribute_exists(dueShard)"),
		ExpressionAttributeNames:  map[string]string{"#cur": "cursor"},
		ExpressionAttributeValues: item{":next": str(dueSK(s.Now().Add(DueLease), pk, sk)), ":cursor": str(cursor)},
	})
	var cond *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &cond) {
		return fmt.Errorf("record progress: %w", err)
	}
	return nil
}

// dueDone takes the item pk/sk out of the due index: its work is over.
func (s *Store) dueDone(ctx context.Context, pk, sk string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:           &s.table,
		Key:                 key(pk, sk),
		UpdateExpression:    aws.String(dueRemove),
		ConditionExpression: aws.String("attribute_exists(dueShard)"),
	})
	var cond *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &cond) {
		return fmt.Errorf("clear due: %w", err)
	}
	return nil
}

// dueRemove is the update clause that takes an item out of the due index,
// for transactions that finish its work.
const dueRemove = "REMOVE dueShard, dueAt"
