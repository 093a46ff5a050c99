package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/gifting"
)

// ListPersonas returns a page of org's ICP personas matching f and q, and
// how many match. The default order (createdAt, no filter, no search) is
// O(page): the counter and the Slim index. Any filter, search or other sort
// reads every persona of the organization (personas are few: tens, at most
// hundreds, ≤ 20 KB each) and sorts in memory.
func (s *Store) ListPersonas(ctx context.Context, orgID string, f gifting.PersonaFilter, q gifting.ListQuery) ([]gifting.ICPPersona, int, error) {
	return listSmall(ctx, s, orgID, personasOf(orgID), f.Empty(), q, smallList[gifting.ICPPersona]{
		normalize: (*gifting.ICPPersona).Normalize,
		keep:      func(v gifting.ICPPersona) bool { return f.Keeps(v) && gifting.MatchesSearch(v.SearchText(), q.Search) },
		compare: func(a, b gifting.ICPPersona) int {
			switch q.SortBy {
			case gifting.SortUpdatedAt:
				return a.UpdatedAt.Compare(b.UpdatedAt)
			case gifting.SortName:
				return gifting.CompareText(a.Persona.Name, b.Persona.Name)
			}
			return a.CreatedAt.Compare(b.CreatedAt)
		},
		id: func(v gifting.ICPPersona) string { return v.ICPID },
	})
}

// UpdatePersona applies change to ICP persona id of org and stores the
// result with a new updatedAt, conditioned on the persona being as it was
// read: a concurrent edit makes it read again and retry. change validates
// (VALIDATION_FAILED); NOT_FOUND for a missing persona. Audiences already
// built from it are snapshots and do not change.
func (s *Store) UpdatePersona(ctx context.Context, orgID, id string, change func(*gifting.ICPPersona) error) (gifting.ICPPersona, error) {
	for attempt := 1; ; attempt++ {
		p, err := s.Persona(ctx, orgID, id)
		if err != nil {
			return p, err
		}
		seen := p.UpdatedAt
		if err := change(&p); err != nil {
			return gifting.ICPPersona{}, err
		}
		p.ICPID, p.OrganizationID, p.UpdatedAt = id, orgID, s.Now()
		it, err := listedItem(p, orgID, icpSK(id), personasOf(orgID))
		if err != nil {
			return gifting.ICPPersona{}, err
		}
		_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: &s.table, Item: it,
			ConditionExpression: aws.String("updatedAt = :seen"),
			// Every write of a persona marshals it, so updatedAt is
			// stored as RFC 3339 with nanoseconds.
			ExpressionAttributeValues: item{":seen": str(seen.UTC().Format(time.RFC3339Nano))},
		})
		if err == nil {
			p.Normalize()
			return p, nil
		}
		if !isConditionFailed(err) || attempt >= maxAttempts {
			return gifting.ICPPersona{}, fmt.Errorf("update persona %s: %w", id, err)
		}
	}
}

// DeletePersona removes ICP persona id of org for good, and drops the
// personas counter in the same transaction. Audiences built from it keep
// their members (they are snapshots); rebuilding one is then CONFLICT.
// NOT_FOUND for a missing persona.
func (s *Store) DeletePersona(ctx context.Context, orgID, id string) error {
	err := s.transactRetrying(ctx, []types.TransactWriteItem{
		{Delete: &types.Delete{
			TableName: &s.table, Key: key(orgPK(orgID), icpSK(id)),
			ConditionExpression: aws.String("attribute_exists(PK)"),
		}},
		s.counterAdd(orgID, counterPersonas, -1),
	})
	if reasonCode(cancellationReasons(err), 0) == "ConditionalCheckFailed" {
		return gifting.NotFound("ICP persona", id)
	}
	if err != nil {
		return fmt.Errorf("delete persona %s: %w", id, err)
	}
	return nil
}

// ListAudiences returns a page of org's audience lists matching f and q,
// and how many match; costs as ListPersonas (audiences are few per
// organization, ~1 KB each).
func (s *Store) ListAudiences(ctx context.Context, orgID string, f gifting.AudienceFilter, q gifting.ListQuery) ([]gifting.AudienceList, int, error) {
	return listSmall(ctx, s, orgID, audiencesOf(orgID), f.Empty(), q, smallList[gifting.AudienceList]{
		normalize: (*gifting.AudienceList).Normalize,
		keep: func(v gifting.AudienceList) bool {
			return f.Keeps(v) && gifting.MatchesSearch(v.SearchText(), q.Search)
		},
		compare: func(a, b gifting.AudienceList) int {
			switch q.SortBy {
			case gifting.SortUpdatedAt:
				return a.UpdatedAt.Compare(b.UpdatedAt)
			case gifting.SortName:
				return gifting.CompareText(a.Name, b.Name)
			case "totalMatch":
				return int(a.TotalMatch - b.TotalMatch)
			}
			return a.CreatedAt.Compare(b.CreatedAt)
		},
		id: func(v gifting.AudienceList) string { return v.AudienceID },
	})
}

// UpdateAudience applies change (name, description, tags; it validates) to
// audience id of org and writes those fields with a new updatedAt. The
// build's own writes touch other attributes, so an edit may land at any
// time. NOT_FOUND for a missing audience.
func (s *Store) UpdateAudience(ctx context.Context, orgID, id string, change func(*gifting.AudienceList) error) (gifting.AudienceList, error) {
	a, err := s.Audience(ctx, orgID, id)
	if err != nil {
		return a, err
	}
	if err := change(&a); err != nil {
		return gifting.AudienceList{}, err
	}
	tags := &types.AttributeValueMemberL{Value: make([]types.AttributeValue, len(a.Tags))}
	for i, t := range a.Tags {
		tags.Value[i] = str(t)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                &s.table,
		Key:                      key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:         aws.String("SET #name = :name, description = :desc, tags = :tags, updatedAt = :now"),
		ConditionExpression:      aws.String("attribute_exists(PK)"),
		ExpressionAttributeNames: map[string]string{"#name": "name"},
		ExpressionAttributeValues: item{
			":name": str(a.Name), ":desc": str(a.Description), ":tags": tags,
			":now": str(s.Now().Format(timeLayout)),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if isConditionFailed(err) {
		return gifting.AudienceList{}, gifting.NotFound("audience list", id)
	}
	if err != nil {
		return gifting.AudienceList{}, fmt.Errorf("update audience %s: %w", id, err)
	}
	var updated gifting.AudienceList
	if err := unmarshal(out.Attributes, &updated); err != nil {
		return gifting.AudienceList{}, err
	}
	updated.Normalize()
	return updated, nil
}

// busy is the CONFLICT of deleting or rebuilding an audience a job is
// working on: its build, or filling a contact list from it.
func busy(a gifting.AudienceList, what string) error {
	if a.Status == gifting.AudienceBuilding {
		return gifting.Errorf(gifting.CodeConflict, "audience list %q is being built; it can be %s once its status is ready or failed", a.AudienceID, what)
	}
	for listID, p := range a.Metadata.ContactLists {
		if p.Status == gifting.ListAdding {
			return gifting.Errorf(gifting.CodeConflict, "audience list %q is being copied into contact list %q; it can be %s once that is done", a.AudienceID, listID, what)
		}
	}
	return nil
}

// RemoveAudience deletes audience id of org: in one transaction the
// audience leaves the AUDIENCE# range (so it is NOT_FOUND at once), its
// tombstone is written as a due item of the purge job, and the audiences
// counter drops. The members are then removed in slices by PurgeAudience.
// CONFLICT while the audience is being built or copied into a contact list;
// NOT_FOUND for a missing audience.
func (s *Store) RemoveAudience(ctx context.Context, orgID, id string) error {
	for attempt := 1; ; attempt++ {
		// The busy check and the write's condition come from one read:
		// a copy starting after it changes updatedAt.
		a, stored, err := s.audienceAsStored(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := busy(a.AudienceList, "deleted"); err != nil {
			return err
		}
		seen := stored["updatedAt"]
		if seen == nil {
			return gifting.NotFound("audience list", id)
		}
		pk, sk := orgPK(orgID), deletedAudienceSK(id)
		attrs := dueAttrs(gifting.JobAudiencePurge, id, pk, sk, s.Now().Add(DueLease))
		attrs["PK"], attrs["SK"] = pk, sk
		tomb, err := withKey(struct {
			AudienceID string `json:"audienceId"`
		}{id}, attrs)
		if err != nil {
			return err
		}
		err = s.transactRetrying(ctx, []types.TransactWriteItem{
			{Delete: &types.Delete{
				TableName: &s.table, Key: key(pk, audienceSK(id)),
				ConditionExpression:       aws.String("updatedAt = :seen"),
				ExpressionAttributeValues: item{":seen": seen},
			}},
			{Put: &types.Put{TableName: &s.table, Item: tomb}},
			s.counterAdd(orgID, counterAudiences, -1),
		})
		if err == nil {
			return nil
		}
		if reasonCode(cancellationReasons(err), 0) != "ConditionalCheckFailed" || attempt >= maxAttempts {
			return fmt.Errorf("delete audience %s: %w", id, err)
		}
	}
}

// purgeSliceMembers is how many members one slice of a purge (or of the
// clearing before a rebuild) removes: 20 batch writes of 25.
const purgeSliceMembers = 500

// PurgeAudience removes up to one slice of deleted audience id's members
// and reports done when none is left; then the tombstone goes too, which
// takes it out of the due index. Safe to run any number of times.
func (s *Store) PurgeAudience(ctx context.Context, orgID, id string) (done bool, err error) {
	n, err := s.deleteMembers(ctx, orgID, id, purgeSliceMembers)
	if err != nil || n == purgeSliceMembers {
		return false, err
	}
	_, err = s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &s.table, Key: key(orgPK(orgID), deletedAudienceSK(id))})
	if err != nil {
		return false, fmt.Errorf("remove audience tombstone %s: %w", id, err)
	}
	return true, nil
}

// deleteMembers removes up to limit members of audience id (reading their
// keys only) and returns how many it removed.
func (s *Store) deleteMembers(ctx context.Context, orgID, id string, limit int) (int, error) {
	res, err := s.db.Query(ctx, &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(audienceMemberPrefix(id))},
		ProjectionExpression:      aws.String("PK, SK"),
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(int32(limit)),
	})
	if err != nil {
		return 0, fmt.Errorf("query members of %s: %w", id, err)
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

// RebuildAudience starts building audience id of org again from its
// persona's current criteria: it becomes list-building with its totals and
// progress at zero, and the build job first removes the previous members
// (clearing), then matches every contact, so the result is exact. CONFLICT
// unless the audience is ready or failed (and no contact list is being made
// from it), or when its persona was deleted; NOT_FOUND for a missing
// audience.
func (s *Store) RebuildAudience(ctx context.Context, orgID, id string) (gifting.AudienceList, error) {
	for attempt := 1; ; attempt++ {
		// The busy check and the write's condition come from one read:
		// a copy starting after it changes updatedAt.
		stored, raw, err := s.audienceAsStored(ctx, orgID, id)
		a := stored.AudienceList
		if err != nil {
			return a, err
		}
		if err := busy(a, "rebuilt"); err != nil {
			return a, err
		}
		if _, err := s.Persona(ctx, orgID, a.ICPID); gifting.ErrorCode(err) == gifting.CodeNotFound {
			return a, gifting.Errorf(gifting.CodeConflict, "audience list %q cannot be rebuilt: its ICP persona %q was deleted", id, a.ICPID)
		} else if err != nil {
			return a, err
		}
		seen := raw["updatedAt"]
		if seen == nil {
			return a, gifting.NotFound("audience list", id)
		}
		now := s.Now().Format(timeLayout)
		due := buildDue(orgID, id, s.Now().Add(DueLease))
		out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &s.table,
			Key:       key(orgPK(orgID), audienceSK(id)),
			UpdateExpression: aws.String("SET #st = :building, buildClearing = :true, totalMatch = :zero, creditRequired = :zero, " +
				"buildFailures = :zero, updatedAt = :now, metadata.contactsScanned = :zero, metadata.buildStartedAt = :now, " +
				"dueShard = :dueShard, dueAt = :dueAt, dueKind = :dueKind, dueRef = :dueRef " +
				"REMOVE buildCursor, metadata.buildFinishedAt, metadata.#err"),
			// Unchanged since read: a build finishing or an edit
			// meanwhile makes it decide again.
			ConditionExpression:      aws.String("updatedAt = :seen"),
			ExpressionAttributeNames: map[string]string{"#st": "status", "#err": "error"},
			ExpressionAttributeValues: item{
				":building": str(string(gifting.AudienceBuilding)), ":true": &types.AttributeValueMemberBOOL{Value: true},
				":zero": num(0), ":now": str(now), ":seen": seen,
				":dueShard": str(due["dueShard"]), ":dueAt": str(due["dueAt"]), ":dueKind": str(due["dueKind"]), ":dueRef": str(due["dueRef"]),
			},
			ReturnValues: types.ReturnValueAllNew,
		})
		if isConditionFailed(err) && attempt < maxAttempts {
			continue
		}
		if err != nil {
			return a, fmt.Errorf("rebuild audience %s: %w", id, err)
		}
		var updated gifting.AudienceList
		if err := unmarshal(out.Attributes, &updated); err != nil {
			return a, err
		}
		updated.Normalize()
		return updated, nil
	}
}

// clearPreviousBuild removes one slice of the members of a rebuilding
// audience; once none is left it ends the clearing, conditioned on the
// build not having moved on, so the next slice starts matching.
func (s *Store) clearPreviousBuild(ctx context.Context, orgID string, a storedAudience, limit int) error {
	n, err := s.deleteMembers(ctx, orgID, a.AudienceID, limit)
	if err != nil {
		return err
	}
	if n == limit {
		if !a.due {
			return nil
		}
		// Progress: the tick leaves the build to its job a lease more.
		return s.dueProgressed(ctx, orgPK(orgID), audienceSK(a.AudienceID), "")
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(a.AudienceID)),
		UpdateExpression:          aws.String("REMOVE buildClearing"),
		ConditionExpression:       aws.String("#st = :building AND buildClearing = :true"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: item{":building": str(string(gifting.AudienceBuilding)), ":true": &types.AttributeValueMemberBOOL{Value: true}},
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("end clearing of %s: %w", a.AudienceID, err)
	}
	return nil
}
