package dynamo

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/giftcodes"
)

// The code pools of digital gifts (shared/giftcodes decides):
//
//	pool   SK=GCODEPOOL#<gift>: key (the sealed HMAC key), codes, assigned
//	code   SK=GCODE#<gift>#<code id>: sec (sealed code, PIN, URL), msk
//	       (its last four characters, masked), exp, crt; while it can be
//	       handed out, LPK=ORG#<org>#GCA#<gift> and LSK=<exp>#<id> in the
//	       Slim index (exp is "~" when the code never expires, so codes
//	       that expire first come first, and the unexpired ones are the
//	       keys from now on).
//
// An upload writes 98 codes, the pool's count and the gift's units in one
// transaction, so the gift's units never disagree with its codes.

// The store implements the code pools' port.
var _ giftcodes.Store = (*Store)(nil)

func codePoolSK(giftID string) string { return "GCODEPOOL#" + giftID }
func codeSK(giftID, id string) string { return "GCODE#" + giftID + "#" + id }

// codesLPK is the Slim partition of a gift's codes that can be handed out.
func codesLPK(orgID, giftID string) string { return orgPK(orgID) + "#GCA#" + giftID }

// codeExpiryKey is where a code sorts in codesLPK: by its expiry, to the
// second, in UTC; "~" (after every digit) when it has none.
func codeExpiryKey(exp *time.Time) string {
	if exp == nil {
		return "~"
	}
	return exp.UTC().Format(codeTimeLayout)
}

const codeTimeLayout = "2006-01-02T15:04:05Z"

// codePoolItem is a pool as stored.
type codePoolItem struct {
	Key       string    `json:"key"`
	Codes     int       `json:"codes"`
	Assigned  int       `json:"assigned"`
	CreatedAt time.Time `json:"createdAt"`
}

// CodePool reads a gift's pool, strongly consistent (giftcodes.Store).
func (s *Store) CodePool(ctx context.Context, orgID, giftID string) (giftcodes.Pool, error) {
	var it codePoolItem
	if _, err := s.get(ctx, orgPK(orgID), codePoolSK(giftID), &it); err != nil {
		return giftcodes.Pool{}, err
	}
	return giftcodes.Pool{SealedKey: it.Key, Codes: it.Codes, Assigned: it.Assigned}, nil
}

// CommitCodePool writes a new pool (giftcodes.Store).
func (s *Store) CommitCodePool(ctx context.Context, orgID, giftID, sealedKey string, at time.Time) error {
	it, err := withKey(codePoolItem{Key: sealedKey, CreatedAt: at}, map[string]string{"PK": orgPK(orgID), "SK": codePoolSK(giftID)})
	if err != nil {
		return err
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table, Item: it,
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	if isConditionFailed(err) {
		return giftcodes.ErrPoolExists
	}
	if err != nil {
		return fmt.Errorf("put a code pool: %w", err)
	}
	return nil
}

// CommitCodes writes codes and counts them, in one transaction
// (giftcodes.Store).
func (s *Store) CommitCodes(ctx context.Context, orgID, giftID string, codes []giftcodes.NewCode) error {
	n := num(int64(len(codes)))
	items := []types.TransactWriteItem{
		{Update: &types.Update{TableName: &s.table, Key: key(orgPK(orgID), codePoolSK(giftID)),
			UpdateExpression:          aws.String("ADD codes :n"),
			ConditionExpression:       aws.String("attribute_exists(PK)"),
			ExpressionAttributeValues: item{":n": n}}},
		{Update: &types.Update{TableName: &s.table, Key: key(orgPK(orgID), giftSK(giftID)),
			UpdateExpression:          aws.String("SET inventory.#t = inventory.#t + :n, inventory.#a = inventory.#a + :n"),
			ConditionExpression:       aws.String("attribute_exists(PK) AND #type = :digital"),
			ExpressionAttributeNames:  map[string]string{"#t": "total", "#a": "available", "#type": "type"},
			ExpressionAttributeValues: item{":n": n, ":digital": str(string(catalog.GiftDigital))}}},
	}
	for _, c := range codes {
		it := item{"PK": str(orgPK(orgID)), "SK": str(codeSK(giftID, c.ID)), "sec": str(c.Sealed), "msk": str(c.Masked),
			"crt": str(c.CreatedAt.UTC().Format(time.RFC3339Nano)),
			"LPK": str(codesLPK(orgID, giftID)), "LSK": str(codeExpiryKey(c.ExpiresAt) + "#" + c.ID)}
		if c.ExpiresAt != nil {
			it["exp"] = str(c.ExpiresAt.UTC().Format(time.RFC3339Nano))
		}
		items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: it,
			ConditionExpression: aws.String("attribute_not_exists(SK)")}})
	}
	err := s.transactRetrying(ctx, items)
	reasons := cancellationReasons(err)
	if reasons == nil {
		if err != nil {
			return fmt.Errorf("write codes: %w", err)
		}
		return nil
	}
	if reasonCode(reasons, 0) == "ConditionalCheckFailed" || reasonCode(reasons, 1) == "ConditionalCheckFailed" {
		return giftcodes.ErrGiftGone
	}
	var dup giftcodes.Duplicates
	for i := range codes {
		if reasonCode(reasons, i+2) == "ConditionalCheckFailed" {
			dup.At = append(dup.At, i)
		}
	}
	if len(dup.At) == 0 {
		return fmt.Errorf("write codes: %w", err)
	}
	return &dup
}

// ExpiredCodes counts the gift's unassigned codes past their expiry at
// now: the keys of its Slim partition before now (giftcodes.Store).
func (s *Store) ExpiredCodes(ctx context.Context, orgID, giftID string, now time.Time) (int, error) {
	in := s.slimQuery(codesLPK(orgID, giftID), true)
	in.KeyConditionExpression = aws.String("LPK = :lpk AND LSK < :now")
	in.ExpressionAttributeValues[":now"] = str(now.UTC().Format(codeTimeLayout))
	_, n, err := s.skipEntries(ctx, in, math.MaxInt32)
	if err != nil {
		return 0, err
	}
	return n, nil
}
