// Package dynamo is the storage adapter: every access to the single
// DynamoDB table goes through a Store. Store methods take ctx first and
// return domain errors (gifting.Error) for anything a caller can act on,
// never SDK errors.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/giftcampaign/service/shared/gifting"
)

// DB is the part of the DynamoDB client the store uses. *dynamodb.Client
// implements it; tests wrap it to inject faults DynamoDB Local cannot
// produce (transaction conflicts, throttling).
type DB interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

var _ DB = (*dynamodb.Client)(nil)

// Store reads and writes the service's table.
type Store struct {
	db      DB
	table   string
	now     func() time.Time
	wallets walletLocks
	// launchRate paces launches (WithLaunchWriteRate).
	launchRate float64
	// indexSettle delays a launch's first read of its lists' members
	// (WithIndexSettle).
	indexSettle time.Duration
	// sets are the email sets this process has read or written (see
	// emailsets.go).
	sets *lru.Cache[string, map[string]gifting.EmailTemplate]
	// rates are the rate-limit counts this process has leased (see
	// ratelimit.go).
	rates rateLeases
	// sealer seals clear webhook secrets in the webhook-secrets
	// migration step (WithSealer).
	sealer Sealer
	// supKey is the stack's suppression key (WithSuppressionKey), nil
	// for a store that keys suppressions the legacy way.
	supKey *suppressionKey
}

// Option configures a Store.
type Option func(*Store)

// WithClock replaces the wall clock, for tests.
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// New returns a Store over table.
func New(db DB, table string, opts ...Option) *Store {
	s := &Store{db: guarded{db}, table: table, now: time.Now, launchRate: LaunchWriteRate, sets: newEmailSetCache()}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Table is the name of the table the store uses.
func (s *Store) Table() string { return s.table }

// Now is the store's current time: UTC, truncated to milliseconds, the
// precision of every stored timestamp.
func (s *Store) Now() time.Time {
	return s.now().UTC().Truncate(time.Millisecond)
}

// NewID returns a new identifier whose time is the store's clock (Now), so
// ids sort as the times the store writes beside them, under a test clock
// too.
func (s *Store) NewID() string { return gifting.NewIDAt(s.Now()) }

// item is a DynamoDB item.
type item = map[string]types.AttributeValue

// marshal encodes v with its JSON field names, so stored attributes carry
// the API's names (docs/data-model.md).
func marshal(v any) (item, error) {
	av, err := attributevalue.MarshalMapWithOptions(v, func(o *attributevalue.EncoderOptions) {
		o.TagKey = "json"
	})
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	return av, nil
}

// unmarshal decodes an item into v, using JSON field names.
func unmarshal(it item, v any) error {
	err := attributevalue.UnmarshalMapWithOptions(it, v, func(o *attributevalue.DecoderOptions) {
		o.TagKey = "json"
	})
	if err != nil {
		return fmt.Errorf("unmarshal %T: %w", v, err)
	}
	return nil
}

// marshalValue encodes v as one attribute value (a map for a struct).
func marshalValue(v any) (types.AttributeValue, error) {
	av, err := attributevalue.MarshalWithOptions(v, func(o *attributevalue.EncoderOptions) { o.TagKey = "json" })
	if err != nil {
		return nil, fmt.Errorf("marshal %T: %w", v, err)
	}
	return av, nil
}

// withKey marshals v and adds the item's keys (and any other attributes).
func withKey(v any, attrs map[string]string) (item, error) {
	it, err := marshal(v)
	if err != nil {
		return nil, err
	}
	for k, val := range attrs {
		it[k] = &types.AttributeValueMemberS{Value: val}
	}
	return it, nil
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: fmt.Sprint(n)}
}

// keyForError is a key as error messages, and so logs, may quote it: an
// email marker's address is personal data and a key item's hash is half a
// credential, so those keep only their prefix.
func keyForError(k string) string {
	for _, prefix := range []string{emailSK(""), apiKeyPK("")} {
		if strings.HasPrefix(k, prefix) && len(k) > len(prefix) {
			return prefix + "…"
		}
	}
	return k
}

// key builds a primary key.
func key(pk, sk string) item { return item{"PK": str(pk), "SK": str(sk)} }

// getOrNotFound reads the item pk/sk into a T, or returns missing (a
// NOT_FOUND naming what was asked for) when there is none.
func getOrNotFound[T any](ctx context.Context, s *Store, pk, sk string, missing error) (T, error) {
	var v T
	found, err := s.get(ctx, pk, sk, &v)
	if err != nil {
		return v, err
	}
	if !found {
		return v, missing
	}
	return v, nil
}

// get reads one item strongly consistently; a missing item is reported as
// found == false.
func (s *Store) get(ctx context.Context, pk, sk string, v any) (found bool, err error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            key(pk, sk),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return false, fmt.Errorf("get %s %s: %w", keyForError(pk), keyForError(sk), err)
	}
	if out.Item == nil {
		return false, nil
	}
	return true, unmarshal(out.Item, v)
}

// queryPrefix reads every item of partition pk whose sort key starts with
// prefix, following pages. Use it only for collections that are small by
// nature; large ones page through the Slim index.
func (s *Store) queryPrefix(ctx context.Context, pk, prefix string, forward bool) ([]item, error) {
	in := &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{
			":pk":     str(pk),
			":prefix": str(prefix),
		},
		ScanIndexForward: aws.Bool(forward),
	}
	var items []item
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query %s %s: %w", keyForError(pk), keyForError(prefix), err)
		}
		items = append(items, out.Items...)
	}
	return items, nil
}

// keyPage reads the sort keys only of up to n items of partition pk whose
// sort key starts with prefix, after the sort key after ("" from the
// start), strongly consistent: ids are the keys without prefix (a list's or
// an audience's member contact ids), last the sort key to continue after,
// "" when nothing follows.
func (s *Store) keyPage(ctx context.Context, pk, prefix, after string, n int) (ids []string, last string, err error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(pk), ":prefix": str(prefix)},
		ProjectionExpression:      aws.String("SK"),
		ConsistentRead:            aws.Bool(true),
	}
	if after != "" {
		in.ExclusiveStartKey = key(pk, after)
	}
	for len(ids) < n {
		in.Limit = aws.Int32(int32(n - len(ids)))
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return nil, "", fmt.Errorf("query %s %s: %w", keyForError(pk), keyForError(prefix), err)
		}
		for _, it := range res.Items {
			sk := attrS(it, "SK")
			ids = append(ids, strings.TrimPrefix(sk, prefix))
			last = sk
		}
		if res.LastEvaluatedKey == nil {
			return ids, "", nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return ids, last, nil
}

// batchGet reads items by key, in batches of 100, retrying unprocessed
// keys. The result is in no particular order.
func (s *Store) batchGet(ctx context.Context, keys []item) ([]item, error) {
	return s.batchGetAs(ctx, keys, true)
}

// batchGetAs is batchGet, strongly consistent or not: an eventually
// consistent read costs half (0.5 read unit per item up to 4 KB) and
// serves reads that need not see the latest write.
func (s *Store) batchGetAs(ctx context.Context, keys []item, consistent bool) ([]item, error) {
	var out []item
	for start := 0; start < len(keys); start += 100 {
		pending := keys[start:min(start+100, len(keys))]
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if err := sleep(ctx, backoff(attempt)); err != nil {
					return nil, err
				}
			}
			res, err := s.db.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
				RequestItems: map[string]types.KeysAndAttributes{
					s.table: {Keys: pending, ConsistentRead: aws.Bool(consistent)},
				},
			})
			if err != nil {
				return nil, fmt.Errorf("batch get: %w", err)
			}
			out = append(out, res.Responses[s.table]...)
			pending = res.UnprocessedKeys[s.table].Keys
		}
	}
	return out, nil
}

// isConditionFailed reports whether err is a failed condition of a single
// item write.
func isConditionFailed(err error) bool {
	var ccf *types.ConditionalCheckFailedException
	return errors.As(err, &ccf)
}

// cancellationReasons returns the per-item reasons of a cancelled
// transaction, or nil when err is not a cancellation.
func cancellationReasons(err error) []types.CancellationReason {
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) {
		return tce.CancellationReasons
	}
	return nil
}

// reasonCode returns the code of reason i, or "" when it is absent or None.
func reasonCode(reasons []types.CancellationReason, i int) string {
	if i >= len(reasons) || reasons[i].Code == nil || *reasons[i].Code == "None" {
		return ""
	}
	return *reasons[i].Code
}

// retryable reports whether a failed transaction may succeed when tried
// again unchanged: every reason is a conflict, throttling, or none. An
// unavailable store is not: the SDK has retried that already, and the
// caller gets SERVICE_UNAVAILABLE at once rather than after many more.
func retryable(err error) bool {
	if gifting.ErrorCode(err) == gifting.CodeUnavailable {
		return false
	}
	var (
		tce      *types.TransactionCanceledException
		conflict *types.TransactionConflictException
		inprog   *types.TransactionInProgressException
		thr      *types.ProvisionedThroughputExceededException
		rle      *types.RequestLimitExceeded
		tle      *types.ThrottlingException
	)
	switch {
	case errors.As(err, &conflict), errors.As(err, &inprog), errors.As(err, &thr), errors.As(err, &rle), errors.As(err, &tle):
		return true
	case errors.As(err, &tce):
		any := false
		for _, r := range tce.CancellationReasons {
			switch aws.ToString(r.Code) {
			case "", "None":
			case "TransactionConflict", "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
				any = true
			default:
				return false
			}
		}
		return any
	}
	return false
}
