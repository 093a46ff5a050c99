package dynamo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// The operator's storage of organizations (shared/access decides): the
// suspension, an attribute of the profile, and the list, a Query of the
// registry (orgsPK) with one BatchGetItem of the page's profiles and usage.

// suspendedAttr is the profile's attribute that holds when the
// organization was suspended; absent while it is not.
const suspendedAttr = "suspendedAt"

// SetSuspended suspends orgID (suspendedAt set, kept when set already) or
// lifts the suspension (access.Store): one conditional UpdateItem of the
// profile; access.ErrNoOrg when there is none.
func (s *Store) SetSuspended(ctx context.Context, orgID string, suspended bool) error {
	update := "REMOVE " + suspendedAttr
	values := map[string]types.AttributeValue(nil)
	if suspended {
		update = "SET " + suspendedAttr + " = if_not_exists(" + suspendedAttr + ", :now)"
		values = item{":now": str(s.Now().Format(time.RFC3339Nano))}
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table,
		Key: key(orgPK(orgID), profileSK), UpdateExpression: aws.String(update),
		ConditionExpression: aws.String("attribute_exists(PK)"), ExpressionAttributeValues: values})
	if isConditionFailed(err) {
		return access.ErrNoOrg
	}
	if err != nil {
		return fmt.Errorf("suspend org: %w", err)
	}
	return nil
}

// OrgSuspended reports whether orgID is suspended (access.Store,
// recipient.Store): one GetItem of the profile's key and suspendedAt,
// eventually consistent (half a read unit: a suspension applies within the
// key cache's 30 seconds anyway); false when none is found (one created a
// moment ago may not show yet, and is not suspended).
func (s *Store) OrgSuspended(ctx context.Context, orgID string) (bool, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &s.table, Key: key(orgPK(orgID), profileSK),
		ConsistentRead: aws.Bool(false), ProjectionExpression: aws.String("PK, " + suspendedAttr)})
	if err != nil {
		return false, fmt.Errorf("org suspended: %w", err)
	}
	_, suspended := out.Item[suspendedAttr]
	return suspended, nil
}

// Orgs reads a page of organizations in id order after after, with their
// usage of month (access.Store): one Query of the registry (limit items,
// eventually consistent: an operator's list), then one BatchGetItem of
// the page's profiles and usage items (2 per organization, so at most 50
// organizations a batch).
func (s *Store) Orgs(ctx context.Context, month, after string, limit int) (access.OrgPage, error) {
	in := &dynamodb.QueryInput{TableName: &s.table, KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: item{":pk": str(orgsPK)}, Limit: aws.Int32(int32(limit))}
	if after != "" {
		in.ExclusiveStartKey = key(orgsPK, orgPK(after))
	}
	out, err := s.db.Query(ctx, in)
	if err != nil {
		return access.OrgPage{}, fmt.Errorf("list orgs: %w", err)
	}
	var page access.OrgPage
	var keys []item
	for _, it := range out.Items {
		id := strings.TrimPrefix(attrS(it, "SK"), orgPK(""))
		page.Orgs = append(page.Orgs, access.OrgSummary{Org: gifting.Organization{OrgID: id},
			Usage: access.Usage{OrgID: id, Month: month}})
		keys = append(keys, key(orgPK(id), profileSK), key(orgPK(id), usageSK(month)))
	}
	at := map[string]*access.OrgSummary{}
	for i := range page.Orgs {
		at[page.Orgs[i].Org.OrgID] = &page.Orgs[i]
	}
	for start := 0; start < len(keys); start += maxBatchGet {
		got, err := s.batchGetAs(ctx, keys[start:min(start+maxBatchGet, len(keys))], false)
		if err != nil {
			return access.OrgPage{}, err
		}
		for _, it := range got {
			o := at[strings.TrimPrefix(attrS(it, "PK"), orgPK(""))]
			if o == nil {
				continue
			}
			if attrS(it, "SK") == profileSK {
				_, o.Suspended = it[suspendedAttr]
				err = unmarshal(it, &o.Org)
			} else {
				err = unmarshal(it, &o.Usage)
			}
			if err != nil {
				return access.OrgPage{}, err
			}
		}
	}
	if out.LastEvaluatedKey != nil && len(page.Orgs) > 0 {
		page.Next = page.Orgs[len(page.Orgs)-1].Org.OrgID
	}
	return page, nil
}
