package dynamo

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/campaign"
)

// CampaignsCreated reads orgID's campaigns created in [from, to)
// (campaign.Reader): their ids are ULIDs of their creation time
// (gifting.NewIDAt), so they are the campaign items whose sort keys lie
// between the ids of those two times, read with one Query (a page per
// MB), eventually consistent (a report names no rule), deleted ones too
// (the caller leaves them out); a period before 1970 holds none. Costs:
// the campaigns' items, ~1 read unit per 8 KB.
func (s *Store) CampaignsCreated(ctx context.Context, orgID string, from, to time.Time) ([]campaign.Campaign, error) {
	// No campaign id is older than the Unix epoch (a ULID's time starts
	// there): a period before it holds none, one across it starts there.
	if epoch := time.UnixMilli(0); from.Before(epoch) {
		from = epoch
	}
	if !from.Before(to) {
		return nil, nil
	}
	lo, hi := ulid.ULID{}, ulid.ULID{}
	if err := lo.SetTime(ulid.Timestamp(from)); err != nil {
		return nil, fmt.Errorf("report period: %w", err)
	}
	// The last id of the millisecond before to: every entropy byte 0xff.
	if err := hi.SetTime(ulid.Timestamp(to) - 1); err != nil {
		return nil, fmt.Errorf("report period: %w", err)
	}
	copy(hi[6:], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	p := dynamodb.NewQueryPaginator(s.db, &dynamodb.QueryInput{
		TableName:              &s.table,
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: item{":pk": str(orgPK(orgID)),
			":lo": str(campaignSK(lo.String())), ":hi": str(campaignSK(hi.String()))},
	})
	var out []campaign.Campaign
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query campaigns: %w", err)
		}
		for _, it := range page.Items {
			c, err := decodeCampaign(it)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}
