package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/gifting"
)

// A contact import's items: the job (IMPORT#<jobId>), rewritten whole by
// each committed batch under a condition on the offset it started from,
// and one item per batch that had failed rows (IMPORT#<jobId>#FAIL#<row>),
// written in the same transaction. Both expire with the job (expiresAt).

func importSK(jobID string) string { return "IMPORT#" + jobID }

func importFailPrefix(jobID string) string { return importSK(jobID) + "#FAIL#" }

func importFailSK(jobID string, row int) string {
	return fmt.Sprintf("%s%010d", importFailPrefix(jobID), row)
}

// importItem is a job as stored.
type importItem struct {
	contactimport.Job
	ExpiresAt int64 `json:"expiresAt"`
}

// importFailItem is a batch's failed rows.
type importFailItem struct {
	Rows      []contactimport.FailedRow `json:"rows"`
	ExpiresAt int64                     `json:"expiresAt"`
}

// importPut is the put of j's item.
func (s *Store) importPut(j contactimport.Job, expires time.Time) (*types.Put, error) {
	it, err := withKey(importItem{Job: j, ExpiresAt: expires.Unix()}, map[string]string{"PK": orgPK(j.OrgID), "SK": importSK(j.ID)})
	if err != nil {
		return nil, err
	}
	return &types.Put{TableName: &s.table, Item: it}, nil
}

// CreateImport writes a new job, and k's record naming it (its body is
// the job's id) when k is set.
func (s *Store) CreateImport(ctx context.Context, j contactimport.Job, k *gifting.IdempotencyKey, expires time.Time) error {
	put, err := s.importPut(j, expires)
	if err != nil {
		return err
	}
	put.ConditionExpression = aws.String("attribute_not_exists(PK)")
	if k == nil {
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression})
		if err != nil {
			return fmt.Errorf("create import %s: %w", j.ID, err)
		}
		return nil
	}
	rec, err := s.idempotencyPut(j.OrgID, *k, 202, []byte(j.ID))
	if err != nil {
		return err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: put}, rec}})
	reasons := cancellationReasons(err)
	if reasonCode(reasons, 1) == "ConditionalCheckFailed" {
		found, rerr := idempotencyRecordOf(reasons[1].Item)
		if rerr != nil {
			return rerr
		}
		return &contactimport.KeyTaken{Record: found}
	}
	if err != nil {
		return fmt.Errorf("create import %s: %w", j.ID, err)
	}
	return nil
}

// ImportJob reads a job.
func (s *Store) ImportJob(ctx context.Context, orgID, jobID string) (contactimport.Job, error) {
	it, err := getOrNotFound[importItem](ctx, s, orgPK(orgID), importSK(jobID), contactimport.ErrNotFound)
	return it.Job, err
}

// CommitImport writes j and failed, if j's item still has status was and
// offset from.
func (s *Store) CommitImport(ctx context.Context, j contactimport.Job, was string, from int64, failed []contactimport.FailedRow, expires time.Time) error {
	put, err := s.importPut(j, expires)
	if err != nil {
		return err
	}
	put.ConditionExpression = aws.String("#status = :was AND #offset = :from")
	put.ExpressionAttributeNames = map[string]string{"#status": "Status", "#offset": "Offset"}
	put.ExpressionAttributeValues = item{":was": str(was), ":from": num(from)}
	if len(failed) == 0 {
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: put.TableName, Item: put.Item, ConditionExpression: put.ConditionExpression,
			ExpressionAttributeNames: put.ExpressionAttributeNames, ExpressionAttributeValues: put.ExpressionAttributeValues})
		if isConditionFailed(err) {
			return contactimport.ErrMoved
		}
		if err != nil {
			return fmt.Errorf("commit import %s: %w", j.ID, err)
		}
		return nil
	}
	fail, err := withKey(importFailItem{Rows: failed, ExpiresAt: expires.Unix()},
		map[string]string{"PK": orgPK(j.OrgID), "SK": importFailSK(j.ID, failed[0].Row)})
	if err != nil {
		return err
	}
	_, err = s.db.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: put}, {Put: &types.Put{TableName: &s.table, Item: fail}},
	}})
	if reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		return contactimport.ErrMoved
	}
	if err != nil {
		return fmt.Errorf("commit import %s: %w", j.ID, err)
	}
	return nil
}

// FailedImportRows reads a job's failed rows, in row order.
func (s *Store) FailedImportRows(ctx context.Context, orgID, jobID string) ([]contactimport.FailedRow, error) {
	items, err := s.queryPrefix(ctx, orgPK(orgID), importFailPrefix(jobID), true)
	if err != nil {
		return nil, err
	}
	var out []contactimport.FailedRow
	for _, it := range items {
		var f importFailItem
		if err := unmarshal(it, &f); err != nil {
			return nil, err
		}
		out = append(out, f.Rows...)
	}
	return out, nil
}
