package dynamo_test

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestIDsFollowTheStoreClock creates campaigns under a clock that moves
// backwards and checks that each id carries the store's time, not the wall
// clock's: lists sort by id, so ids must agree with the createdAt written
// beside them.
func TestIDsFollowTheStoreClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := testenv.Store(t, dynamo.WithClock(func() time.Time { return now }))
	orgID, _ := testenv.Org(t, s, "acme", 0)
	for _, at := range []time.Time{now, now.Add(-48 * time.Hour), now.Add(-72 * time.Hour)} {
		now = at
		c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "clocked", CreatedBy: "user-1"})
		if err != nil {
			t.Fatal(err)
		}
		id, err := ulid.Parse(c.CampaignID)
		if err != nil {
			t.Fatalf("campaign id %q: %v", c.CampaignID, err)
		}
		if got := ulid.Time(id.Time()).UTC(); !got.Equal(at) {
			t.Errorf("id %s carries %v, want the store's clock %v", c.CampaignID, got, at)
		}
	}
}
