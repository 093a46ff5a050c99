package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/time/rate"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// The end of an audience build, ready or failed, is written in one
// transaction with its change record (audience.ready, audience.failed)
// holding the audience as written. Edits of its name, description and tags
// may land at any time during a build (UpdateAudience), so that write is
// conditioned on the audience's updatedAt as read: an edit in between makes
// it read again, and the recorded audience is exactly the stored one.

// commitBuild writes members and moves the audience's cursor from where a
// says it is to cursor, adding the matches to totalMatch and creditRequired
// and the compared contacts to contactsScanned, in one transaction; a
// follows what it wrote. final also makes the audience ready, with its
// audience.ready change record. It returns errBuildOvertaken when the
// cursor has moved meanwhile. With a pace, it first waits for the write
// units the members take (each twice, in the transaction, and its Slim
// entry).
func (s *Store) commitBuild(ctx context.Context, orgID string, a *storedAudience, members []item, cursor string, scanned int64, final bool, pace *rate.Limiter) error {
	if pace != nil {
		units := 0
		for _, m := range members {
			units += 2*writeUnits(m) + 1
		}
		if err := waitUnits(ctx, pace, units); err != nil {
			return fmt.Errorf("audience build pace: %w", err)
		}
	}
	n := int64(len(members))
	credits, err := wallet.MulCredits(n, a.Metadata.CreditsPerContact)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		var seen types.AttributeValue
		if final {
			// The audience as it stands now, for its change record.
			cur, stored, err := s.audienceAsStored(ctx, orgID, a.AudienceID)
			if err != nil {
				return err
			}
			if cur.Status != gifting.AudienceBuilding || cur.Cursor != a.Cursor {
				return errBuildOvertaken
			}
			a.AudienceList, seen = cur.AudienceList, stored["updatedAt"]
		}
		now := s.Now()
		next := *a
		next.TotalMatch += n
		next.CreditRequired += credits
		next.Metadata.ContactsScanned += scanned
		next.UpdatedAt, next.Failures = now, 0
		if cursor != "" {
			next.Cursor = cursor
		}
		var tx txn
		for _, m := range members {
			tx.add("", types.TransactWriteItem{Put: &types.Put{TableName: &s.table, Item: m}})
		}
		tx.add(condAudience, s.buildCommit(orgID, *a, next, n, credits, scanned, final, seen))
		if final {
			next.AudienceList = next.Built(now, "")
			change, err := s.changePut(orgID, gifting.NewChange(gifting.ChangeAudienceReady, next.AudienceList))
			if err != nil {
				return err
			}
			tx.add("", change)
		}
		_, err := s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: tx.items})
		switch {
		case err == nil:
			*a = next
			return nil
		case tx.failed(cancellationReasons(err), condAudience) && final && attempt < maxAttempts:
			continue // overtaken, or edited since read: read again and see
		case tx.failed(cancellationReasons(err), condAudience):
			return errBuildOvertaken
		case !retryable(err) || attempt >= maxAttempts:
			return fmt.Errorf("commit audience %s: %w", a.AudienceID, err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// buildCommit is the transaction item of commitBuild that moves audience
// a to next: conditioned on the build's cursor being where a says. final
// also makes it ready, conditioned on its updatedAt being seen (as read).
func (s *Store) buildCommit(orgID string, a, next storedAudience, n, credits, scanned int64, final bool, seen types.AttributeValue) types.TransactWriteItem {
	now := next.UpdatedAt.Format(timeLayout)
	set := "updatedAt = :now, buildFailures = :zero, metadata.contactsScanned = metadata.contactsScanned + :scanned"
	values := item{
		":n": num(n), ":credits": num(credits), ":scanned": num(scanned),
		":now": str(now), ":zero": num(0), ":building": str(string(gifting.AudienceBuilding)),
	}
	if next.Cursor != a.Cursor {
		set += ", buildCursor = :to"
		values[":to"] = str(next.Cursor)
	}
	done := ""
	if final {
		set += ", #st = :ready, metadata.buildFinishedAt = :now"
		values[":ready"] = str(string(gifting.AudienceReady))
		done = " " + dueRemove // built: out of the due index
	} else if a.due {
		// Progress: the tick leaves the build to its job a lease more.
		set += ", dueAt = :due"
		values[":due"] = str(dueSK(next.UpdatedAt.Add(DueLease), orgPK(orgID), audienceSK(a.AudienceID)))
	}
	cond := "#st = :building AND attribute_not_exists(buildCursor)"
	if a.Cursor != "" {
		cond = "#st = :building AND buildCursor = :from"
		values[":from"] = str(a.Cursor)
	}
	if final {
		cond += " AND " + updatedAtIs(seen, values)
	}
	return types.TransactWriteItem{Update: &types.Update{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(a.AudienceID)),
		UpdateExpression:          aws.String("SET " + set + " ADD totalMatch :n, creditRequired :credits" + done),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: values,
	}}
}

// NoteBuildFailure records that a slice of audience id's build failed. After
// maxBuildFailures consecutive failures the audience is failed for good and
// gaveUp is true: the job must stop. Before, the caller should let the
// slice be retried.
func (s *Store) NoteBuildFailure(ctx context.Context, orgID, id string) (gaveUp bool, err error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("ADD buildFailures :one"),
		ConditionExpression:       aws.String("#st = :building"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{":one": num(1), ":building": str(string(gifting.AudienceBuilding))},
		ReturnValues:              types.ReturnValueUpdatedNew,
	})
	if isConditionFailed(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("note build failure of %s: %w", id, err)
	}
	var n struct {
		F int `json:"buildFailures"`
	}
	if err := unmarshal(out.Attributes, &n); err != nil {
		return false, err
	}
	if n.F < maxBuildFailures {
		return false, nil
	}
	return true, s.FailAudience(ctx, orgID, id, "the build failed repeatedly; create the audience list again")
}

// FailAudience ends audience id's build for good with status failed and a
// reason shown in metadata.error, in one transaction with its
// audience.failed change record. An audience that is no longer building
// (or no longer exists) is left as it is.
func (s *Store) FailAudience(ctx context.Context, orgID, id, reason string) error {
	for attempt := 1; ; attempt++ {
		a, stored, err := s.audienceAsStored(ctx, orgID, id)
		if gifting.ErrorCode(err) == gifting.CodeNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		if a.Status != gifting.AudienceBuilding {
			return nil
		}
		failed := a.Built(s.Now(), reason)
		values := item{":failed": str(string(gifting.AudienceFailed)), ":now": str(failed.UpdatedAt.Format(timeLayout)),
			":reason": str(reason), ":building": str(string(gifting.AudienceBuilding))}
		var tx txn
		tx.add(condAudience, types.TransactWriteItem{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(orgPK(orgID), audienceSK(id)),
			UpdateExpression:          aws.String("SET #st = :failed, updatedAt = :now, metadata.buildFinishedAt = :now, metadata.#err = :reason " + dueRemove),
			ConditionExpression:       aws.String("#st = :building AND " + updatedAtIs(stored["updatedAt"], values)),
			ExpressionAttributeNames:  map[string]string{"#st": "status", "#err": "error"},
			ExpressionAttributeValues: values,
		}})
		change, err := s.changePut(orgID, gifting.NewChange(gifting.ChangeAudienceFailed, failed))
		if err != nil {
			return err
		}
		tx.add("", change)
		err = s.transactRetrying(ctx, tx.items)
		if err == nil {
			return nil
		}
		if !tx.failed(cancellationReasons(err), condAudience) || attempt >= maxAttempts {
			return fmt.Errorf("fail audience %s: %w", id, err)
		}
		// It changed since read (a slice committed, an edit): read again.
	}
}

// updatedAtIs is the condition that an item's updatedAt is seen (nil: it
// has none), adding :seen to values.
func updatedAtIs(seen types.AttributeValue, values item) string {
	if seen == nil {
		return "attribute_not_exists(updatedAt)"
	}
	values[":seen"] = seen
	return "updatedAt = :seen"
}

// audienceAsStored returns audience id of org and its item as stored, or
// NOT_FOUND.
func (s *Store) audienceAsStored(ctx context.Context, orgID, id string) (storedAudience, item, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: &s.table, Key: key(orgPK(orgID), audienceSK(id)), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return storedAudience{}, nil, fmt.Errorf("get audience %s: %w", id, err)
	}
	if out.Item == nil {
		return storedAudience{}, nil, gifting.NotFound("audience list", id)
	}
	var a storedAudience
	if err := unmarshal(out.Item, &a); err != nil {
		return a, nil, err
	}
	a.due = out.Item["dueShard"] != nil
	a.Normalize()
	return a, out.Item, nil
}
