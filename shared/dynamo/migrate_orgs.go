package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// stepOrgRegistry names the step of `admin migrate` that puts the
// organizations created before the registry (orgsPK) into it, so the
// operator's list shows them.
const stepOrgRegistry = "org-registry"

// migrateOrgRegistry puts orgID's registry entry unless it has one: one
// conditional PutItem, so a second run changes nothing.
func (s *Store) migrateOrgRegistry(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &s.table,
		Item:                item{"PK": str(orgsPK), "SK": str(orgPK(orgID)), "organizationId": str(orgID)},
		ConditionExpression: aws.String("attribute_not_exists(PK)")})
	switch {
	case isConditionFailed(err):
		return r, nil
	case err != nil:
		return r, fmt.Errorf("org registry: %w", err)
	}
	r.Changed = 1
	return r, nil
}
