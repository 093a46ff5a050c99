package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/gifting"
)

// AuditRecipients returns every recipient of a campaign of org as the table itself holds them: a
// strongly consistent Query of the campaign's recipient range (RCPT#<campaign>#), with no Slim index,
// counter or page in between, launch tombstones left out. It is the ground truth that the chaos run
// (bench/chaos) holds the recipient lists, the campaign's counters and the emails sent to. It reads the
// whole range, so it is for such checks only, never a request path.
func (s *Store) AuditRecipients(ctx context.Context, orgID, campaignID string) ([]gifting.Recipient, error) {
	in := &dynamodb.QueryInput{
		TableName:                 &s.table,
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :prefix)"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)), ":prefix": str(recipientSK(campaignID, ""))},
		ConsistentRead:            aws.Bool(true),
	}
	var out []gifting.Recipient
	for p := dynamodb.NewQueryPaginator(s.db, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("audit the recipients of campaign %s: %w", campaignID, err)
		}
		for _, it := range page.Items {
			if it[recipientGoneAttr] != nil {
				continue
			}
			r, err := s.readRecipient(ctx, it)
			if err != nil {
				return nil, err
			}
			out = append(out, r.Recipient)
		}
	}
	return out, nil
}
