package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
)

// migrate runs the registered migration steps (o.steps, or all) for one
// organization (o.orgID) or for every organization, and prints what each
// step changed.
func migrate(ctx context.Context, s *dynamo.Store, o options) (any, error) {
	var steps []string
	if o.steps != "" {
		steps = strings.Split(o.steps, ",")
		for _, st := range steps {
			if !slices.Contains(dynamo.MigrationSteps(), st) {
				return nil, &gifting.Error{Code: gifting.CodeValidation, Message: fmt.Sprintf("unknown step %q; steps: %s", st, strings.Join(dynamo.MigrationSteps(), ", ")),
					Details: map[string]string{"steps": "unknown step"}}
			}
		}
	}
	orgs := []string{o.orgID}
	if o.orgID == "" {
		var err error
		if orgs, err = o.orgs(ctx); err != nil {
			return nil, err
		}
	}
	results := []dynamo.MigrationResult{}
	for _, org := range orgs {
		r, err := s.Migrate(ctx, org, steps)
		results = append(results, r...)
		if err != nil {
			return map[string]any{"results": results}, err
		}
	}
	return map[string]any{"organizations": len(orgs), "results": results}, nil
}

// orgIDs lists every organization of the table by its PROFILE item: a Scan,
// which an operator's one-off command may afford and a request never does.
func orgIDs(ctx context.Context, db *dynamodb.Client, table string) ([]string, error) {
	in := &dynamodb.ScanInput{
		TableName:                 &table,
		FilterExpression:          aws.String("SK = :p AND begins_with(PK, :org)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": &types.AttributeValueMemberS{Value: "PROFILE"}, ":org": &types.AttributeValueMemberS{Value: "ORG#"}},
		ProjectionExpression:      aws.String("PK"),
	}
	var ids []string
	p := dynamodb.NewScanPaginator(db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list organizations: %w", err)
		}
		for _, it := range out.Items {
			if pk, ok := it["PK"].(*types.AttributeValueMemberS); ok {
				ids = append(ids, strings.TrimPrefix(pk.Value, "ORG#"))
			}
		}
	}
	slices.Sort(ids)
	return ids, nil
}
