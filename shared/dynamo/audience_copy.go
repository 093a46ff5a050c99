package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
)

// The storage of the copies of audiences into contact lists: each copy's
// progress is an entry of its audience's metadata.contactLists, and its
// own due item (AUDCOPY#<audience>#<list>) stands for it in the due index
// while it adds. The members join the list through the contact area's
// use cases (audience.Lists), never here.

// CommitCopyStart records p as the progress of the copy of audience id
// into list listID, with the copy's due item, in one transaction
// conditioned on the audience being ready (audience.ErrNotReady
// otherwise): the tick fills the list if the job's message is lost.
func (s *Store) CommitCopyStart(ctx context.Context, orgID, id, listID string, p audience.ListProgress) error {
	pv, err := marshal(struct {
		P listProgressItem `json:"p"`
	}{listProgressItem(p)})
	if err != nil {
		return err
	}
	pk := orgPK(orgID)
	due := dueOnlyItem(audience.JobCopy, id, pk, audienceCopySK(id, listID), s.Now().Add(DueLease))
	due["cursor"] = str(listID)
	err = s.transactRetrying(ctx, []types.TransactWriteItem{
		{Update: &types.Update{
			TableName:                 &s.table,
			Key:                       key(pk, audienceSK(id)),
			UpdateExpression:          aws.String("SET metadata.contactLists.#lid = :p, updatedAt = :now"),
			ConditionExpression:       aws.String("#st = :ready"),
			ExpressionAttributeNames:  map[string]string{"#st": "status", "#lid": listID},
			ExpressionAttributeValues: item{":p": pv["p"], ":now": str(s.Now().Format(timeLayout)), ":ready": str(string(audience.Ready))},
		}},
		{Put: &types.Put{TableName: &s.table, Item: due}},
	})
	return notReady(err)
}

// notReady maps CommitCopyStart's cancellation by the audience's
// condition to audience.ErrNotReady.
func notReady(err error) error {
	if err != nil && reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		return audience.ErrNotReady
	}
	return err
}

// MemberIDsAfter reads the contact ids of up to n members of audience id
// after contact id after, in contactId order: keys only (keyPage).
func (s *Store) MemberIDsAfter(ctx context.Context, orgID, id, after string, n int) ([]string, bool, error) {
	from := ""
	if after != "" {
		from = audienceMemberSK(id, after)
	}
	ids, next, err := s.keyPage(ctx, orgPK(orgID), audienceMemberPrefix(id), from, n)
	return ids, next != "", err
}

// CommitCopyStep adds st's counts to the copy's progress and moves its
// cursor (or, on its last step, makes it ready), conditioned on the copy
// adding at st.From (audience.ErrCopyMoved otherwise).
func (s *Store) CommitCopyStep(ctx context.Context, orgID, id string, st audience.CopyStep) error {
	set := []string{"#m.#cl.#lid.added = #m.#cl.#lid.added + :a", "#m.#cl.#lid.unchanged = #m.#cl.#lid.unchanged + :u",
		"#m.#cl.#lid.failed = #m.#cl.#lid.failed + :f", "updatedAt = :now"}
	values := item{
		":a": num(st.Added), ":u": num(st.Unchanged), ":f": num(st.Failed),
		":now": str(s.Now().Format(timeLayout)), ":adding": str(audience.ListAdding),
	}
	expr := ""
	if st.Last {
		set = append(set, "#m.#cl.#lid.#st = :ready")
		values[":ready"] = str(audience.ListReady)
		expr = " REMOVE #m.#cl.#lid.#cur, #m.#cl.#lid.failures"
	} else {
		set = append(set, "#m.#cl.#lid.#cur = :to", "#m.#cl.#lid.failures = :zero")
		values[":to"], values[":zero"] = str(st.To), num(0)
	}
	cond := "#m.#cl.#lid.#st = :adding AND attribute_not_exists(#m.#cl.#lid.#cur)"
	if st.From != "" {
		cond = "#m.#cl.#lid.#st = :adding AND #m.#cl.#lid.#cur = :from"
		values[":from"] = str(st.From)
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ") + expr),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  progressNames(st.ListID, true),
		ExpressionAttributeValues: values,
	})
	return copyMoved(err, audience.ErrCopyMoved)
}

// copyMoved maps a failed condition on a copy's progress to outcome.
func copyMoved(err, outcome error) error {
	if isConditionFailed(err) {
		return outcome
	}
	return err
}

// CopyProgressed pushes the copy's due time a lease on.
func (s *Store) CopyProgressed(ctx context.Context, orgID, id, listID string) error {
	return s.dueProgressed(ctx, orgPK(orgID), audienceCopySK(id, listID), listID)
}

// CopyDone deletes the due item of the copy of audience id into list
// listID: the copy is over (or gone with its audience).
func (s *Store) CopyDone(ctx context.Context, orgID, id, listID string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), audienceCopySK(id, listID))})
	if err != nil {
		return fmt.Errorf("end audience copy: %w", err)
	}
	return nil
}

// progressNames are the expression names of list listID's progress entry:
// #m.#cl.#lid is metadata.contactLists.<listID>, #st its status and, with
// withCursor, #cur its cursor (DynamoDB rejects names an expression does
// not use).
func progressNames(listID string, withCursor bool) map[string]string {
	names := map[string]string{"#m": "metadata", "#cl": "contactLists", "#lid": listID, "#st": "status"}
	if withCursor {
		names["#cur"] = "cursor"
	}
	return names
}

// CommitCopyFailure adds one to the copy's failed slices, conditioned on
// it adding (audience.ErrNotCopying otherwise), and returns them.
func (s *Store) CommitCopyFailure(ctx context.Context, orgID, id, listID string) (int, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET #m.#cl.#lid.failures = if_not_exists(#m.#cl.#lid.failures, :zero) + :one"),
		ConditionExpression:       aws.String("#m.#cl.#lid.#st = :adding"),
		ExpressionAttributeNames:  progressNames(listID, false),
		ExpressionAttributeValues: item{":zero": num(0), ":one": num(1), ":adding": str(audience.ListAdding)},
		ReturnValues:              types.ReturnValueAllNew,
	})
	if err != nil {
		return 0, copyMoved(err, audience.ErrNotCopying)
	}
	var a audienceItem
	if err := unmarshal(out.Attributes, &a); err != nil {
		return 0, err
	}
	return a.Metadata.ContactLists[listID].Failures, nil
}

// CommitCopyEnd sets the final status of the copy's progress, conditioned
// on it adding (audience.ErrNotCopying otherwise).
func (s *Store) CommitCopyEnd(ctx context.Context, orgID, id, listID, status string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET #m.#cl.#lid.#st = :end, updatedAt = :now REMOVE #m.#cl.#lid.#cur, #m.#cl.#lid.failures"),
		ConditionExpression:       aws.String("#m.#cl.#lid.#st = :adding"),
		ExpressionAttributeNames:  progressNames(listID, true),
		ExpressionAttributeValues: item{":end": str(status), ":now": str(s.Now().Format(timeLayout)), ":adding": str(audience.ListAdding)},
	})
	return copyMoved(err, audience.ErrNotCopying)
}
