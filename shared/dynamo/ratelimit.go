package dynamo

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// A process leases counts of an organization's rate-limit counter in
// blocks, so that most limited requests cost no write. The block is sized
// from what remained of the budget at the last count the process saw: at
// most 1/rateLeaseShare of it, so the counts that concurrent processes hold
// unused can refuse other processes' requests only a small fraction of the
// budget early, and exactly one when the budget is nearly spent (every
// request is then a write of its own); and at most rateLeaseMax, so a
// process that stops serving an organization strands few counts, and a far
// from spent budget costs one write per rateLeaseMax requests.
const (
	rateLeaseShare = 16
	rateLeaseMax   = 20
)

// rateLeaseEntries bounds the (organization, class) leases a process keeps;
// a lease evicted early only costs its unused counts.
const rateLeaseEntries = 1024

// rateKey names a lease: one organization's budget in one class.
type rateKey struct {
	orgID string
	class gifting.RateClass
}

// rateLease is what a process knows of one (organization, class) counter in
// one window. Its fields are guarded by sem, held across the write that
// refills the lease, so a process has at most one such write in flight per
// counter and concurrent requests share its block.
type rateLease struct {
	sem chan struct{}
	// window is the window start (Unix seconds) the rest belongs to.
	window int64
	// next..last are the counts reserved by this process and not yet
	// given to a request (none when next > last).
	next, last int64
	// seen is the count the table returned last in this window: the
	// counter only grows, so it is at least this. 0 before any.
	seen int64
}

// rateLeases are a process's leases, by rateKey; the zero value is ready.
type rateLeases struct {
	mu    sync.Mutex
	cache *simplelru.LRU[rateKey, *rateLease]
}

// lease returns the lease of k, a new empty one if the process has none.
func (r *rateLeases) lease(k rateKey) *rateLease {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil {
		r.cache, _ = simplelru.NewLRU[rateKey, *rateLease](rateLeaseEntries, nil) // fails only for a size below 1
	}
	l, ok := r.cache.Get(k)
	if !ok {
		l = &rateLease{sem: make(chan struct{}, 1)}
		r.cache.Add(k, l)
	}
	return l
}

// CountRequest counts one request of orgID in class against the current
// fixed window of gifting.RateWindow, whose budget is limit. The count is
// shared by every Lambda instance: an item per (organization, class,
// window) whose n each process raises by a block with one UpdateItem (ADD,
// returning the new count C), reserving the counts C−k+1..C for itself;
// the requests it then serves take them one by one, without a write, and
// the returned Count is the request's place among all the window's counted
// requests. So no more than limit requests of a window ever get a Count
// within limit; a process may hold counts unused, which refuses other
// processes at most that many requests early. The block is 1 while the
// process has seen nothing of the window, then (limit−C)/rateLeaseShare
// clamped to 1..rateLeaseMax. Once the process has seen a count above limit
// it refuses the window's further requests without a write (their Count is
// that count: above limit). The counter expires through the table's TTL a
// window after its own. It returns an error, and keeps its lease, when the
// counter cannot be written or ctx ends while another request of the same
// counter is writing.
func (s *Store) CountRequest(ctx context.Context, orgID string, class gifting.RateClass, limit int) (gifting.RequestCount, error) {
	now := s.now()
	start := now.Truncate(gifting.RateWindow)
	reset := start.Add(gifting.RateWindow)
	l := s.rates.lease(rateKey{orgID, class})
	select {
	case l.sem <- struct{}{}:
	case <-ctx.Done():
		return gifting.RequestCount{}, fmt.Errorf("count request %s/%s: %w", orgID, class, ctx.Err())
	}
	defer func() { <-l.sem }()
	if l.window != start.Unix() {
		l.window, l.next, l.last, l.seen = start.Unix(), 1, 0, 0
	}
	if l.next > l.last {
		if l.seen > int64(limit) {
			return gifting.RequestCount{Count: l.seen, Reset: reset}, nil
		}
		k := int64(1)
		if l.seen > 0 {
			k = min(max((int64(limit)-l.seen)/rateLeaseShare, 1), rateLeaseMax)
		}
		c, err := s.addRequests(ctx, orgID, class, start, k)
		if err != nil {
			return gifting.RequestCount{}, err
		}
		l.next, l.last, l.seen = c-k+1, c, c
	}
	count := l.next
	l.next++
	return gifting.RequestCount{Count: count, Reset: reset}, nil
}

// addRequests adds k to the counter of orgID's class in the window that
// starts at start and returns its new value.
func (s *Store) addRequests(ctx context.Context, orgID string, class gifting.RateClass, start time.Time, k int64) (int64, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table,
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: orgPK(orgID)},
			"SK": &types.AttributeValueMemberS{Value: rateSK(string(class), start.Unix())},
		},
		UpdateExpression: aws.String("ADD n :k SET expiresAt = if_not_exists(expiresAt, :exp)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":k":   num(k),
			":exp": num(start.Add(2 * gifting.RateWindow).Unix()),
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if err != nil {
		return 0, fmt.Errorf("count request %s/%s: %w", orgID, class, err)
	}
	n, ok := out.Attributes["n"].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("count request %s/%s: no count returned", orgID, class)
	}
	count, err := strconv.ParseInt(n.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("count request %s/%s: %w", orgID, class, err)
	}
	return count, nil
}

// SetRateLimits replaces an organization's own rate limits (requests per
// gifting.RateWindow by class, checked: access.CheckRateLimits; classes
// left out keep the defaults). It returns access.ErrNoOrg for an unknown
// organization.
func (s *Store) SetRateLimits(ctx context.Context, orgID string, limits map[gifting.RateClass]int) error {
	av := &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{}}
	for class, n := range limits {
		av.Value[string(class)] = &types.AttributeValueMemberN{Value: strconv.Itoa(n)}
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: &s.table,
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: orgPK(orgID)},
			"SK": &types.AttributeValueMemberS{Value: profileSK},
		},
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		UpdateExpression:          aws.String("SET rateLimits = :l"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":l": av},
	})
	if isConditionFailed(err) {
		return access.ErrNoOrg
	}
	if err != nil {
		return fmt.Errorf("set rate limits of %s: %w", orgID, err)
	}
	return nil
}
