package dynamo

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/audience"
)

// stepAudienceMembers names the step of `admin migrate` that gives the
// members of audiences built before the Order index and member entries
// their entries (see memberIndexAttr).
const stepAudienceMembers = "audience-members"

// migrateAudienceMembers upgrades each of org's audiences that is not
// marked (memberIndexAttr) and not building: every member gets its Order
// keys and its createdAt Slim sort key (members written before that key
// sort by their item key) with one conditional update (a member a rebuild
// removed meanwhile is not written back), and its member entries
// (memberEntries); then the audience is marked, conditioned on it being
// unchanged since the step read it. Progress is the last member done, so a
// stopped run goes on where it stopped; a run after a complete one reads
// the audiences and changes nothing. A building audience is left for a
// later run (its build, if it started before this code, wrote members
// without entries); one rebuilt since is marked by its rebuild.
func (s *Store) migrateAudienceMembers(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	cur, err := s.migrationProgress(ctx, orgID, stepAudienceMembers)
	if err != nil {
		return r, err
	}
	auds, err := s.queryPrefix(ctx, orgPK(orgID), audiencePrefix, true)
	if err != nil {
		return r, err
	}
	for _, a := range auds {
		id := strings.TrimPrefix(attrS(a, "SK"), audiencePrefix)
		switch {
		case attrS(a, memberIndexAttr) == memberIndexVersion:
			continue
		case attrS(a, "status") == string(audience.Building):
			r.Problems = append(r.Problems, fmt.Sprintf("audience %s is building: run the step again once it is built", id))
			continue
		}
		n, err := s.upgradeAudienceMembers(ctx, orgID, id, &cur)
		r.Changed += n
		if err != nil {
			return r, err
		}
		if err := s.markMemberIndex(ctx, orgID, id, attrS(a, "updatedAt")); isConditionFailed(err) {
			r.Problems = append(r.Problems, fmt.Sprintf("audience %s changed during the step: run it again", id))
		} else if err != nil {
			return r, err
		}
	}
	return r, nil
}

// upgradeAudienceMembers walks audience id's members after cur (when cur
// is within them), upgrading each (upgradeMember) and writing their
// entries, a page of 100 at a time, and saves cur after each page. It
// returns how many members it upgraded.
func (s *Store) upgradeAudienceMembers(ctx context.Context, orgID, id string, cur *migrationCursor) (int, error) {
	prefix := audienceMemberPrefix(id)
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(prefix)},
		ConsistentRead:            aws.Bool(true),
		Limit:                     aws.Int32(100),
	}
	if strings.HasPrefix(cur.After, prefix) {
		in.ExclusiveStartKey = key(orgPK(orgID), cur.After)
	}
	n, pace := 0, s.BuildPace()
	for {
		res, err := s.db.Query(ctx, in)
		if err != nil {
			return n, fmt.Errorf("query members of %s: %w", id, err)
		}
		var entries []item
		for _, it := range res.Items {
			m, err := decodeMember(it)
			if err != nil {
				return n, err
			}
			if err := s.upgradeMember(ctx, orgID, m); isConditionFailed(err) {
				continue // removed meanwhile
			} else if err != nil {
				return n, err
			}
			entries = append(entries, memberEntries(orgID, m)...)
			n++
		}
		if err := s.putMemberEntries(ctx, entries, pace); err != nil {
			return n, err
		}
		if len(res.Items) > 0 {
			cur.After = attrS(res.Items[len(res.Items)-1], "SK")
			if err := s.saveMigrationProgress(ctx, orgID, stepAudienceMembers, *cur); err != nil {
				return n, err
			}
		}
		if res.LastEvaluatedKey == nil {
			return n, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// upgradeMember sets member m's Slim sort key, sort attribute and Order
// keys as memberPut writes them, on condition that it is still there.
func (s *Store) upgradeMember(ctx context.Context, orgID string, m audience.Member) error {
	put, err := memberPut(orgID, m)
	if err != nil {
		return err
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceMemberSK(m.AudienceID, m.ContactID)),
		UpdateExpression:          aws.String("SET LSK = :lsk, srt = :srt, OPK = :opk, OSK = :osk"),
		ConditionExpression:       aws.String("attribute_exists(PK)"),
		ExpressionAttributeValues: item{":lsk": put["LSK"], ":srt": put["srt"], ":opk": put["OPK"], ":osk": put["OSK"]},
	})
	return err
}

// markMemberIndex marks audience id (memberIndexAttr), on condition that
// its updatedAt is still version and it is not building.
func (s *Store) markMemberIndex(ctx context.Context, orgID, id, version string) error {
	values := item{":mix": str(memberIndexVersion), ":building": str(string(audience.Building))}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 &s.table,
		Key:                       key(orgPK(orgID), audienceSK(id)),
		UpdateExpression:          aws.String("SET " + memberIndexAttr + " = :mix"),
		ConditionExpression:       aws.String("attribute_exists(PK) AND #st <> :building AND " + versionIs(version, values)),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: values,
	})
	if err != nil && !isConditionFailed(err) {
		return fmt.Errorf("mark audience %s: %w", id, err)
	}
	return err
}
