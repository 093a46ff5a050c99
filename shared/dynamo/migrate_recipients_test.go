package dynamo_test

import (
	"context"
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestStatusKeysOfTheFirstFormatAreRekeyed: a campaign keyed by the first
// code of the status partitions (OSK the whole LSK, marked rstx) answers
// its status pages from the Slim partition, not from keys that would merge
// out of order with the shorter ones; `admin migrate -steps
// recipient-status` rewrites every recipient's OSK and marks the campaign,
// after which the status partitions answer as the Slim partition does.
func TestStatusKeysOfTheFirstFormatAreRekeyed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rfirst", 0)
	w := map[gifting.RecipientStatus]int{gifting.RecipientInviteSent: 3, gifting.RecipientDelivered: 2, gifting.RecipientAcknowledged: 1}
	campaignID := statusCampaign(t, s, orgID, 90, w, 4)
	q := recipient.Query{Statuses: []gifting.RecipientStatus{gifting.RecipientDelivered, gifting.RecipientAcknowledged}, Page: gifting.PageRequest{Page: 1, Limit: 100}}
	want, wantTotal := pageIDs(t, s, orgID, campaignID, q)
	if err := s.KeyStatusesAsFirstWritten(ctx, orgID, campaignID); err != nil {
		t.Fatal(err)
	}
	if got, total := pageIDs(t, s, orgID, campaignID, q); !slices.Equal(got, want) || total != wantTotal {
		t.Fatalf("keyed as first written: %v (total %d), want %v (%d)", got, total, want, wantTotal)
	}
	res, err := s.Migrate(ctx, orgID, []string{"recipient-status"})
	if err != nil || len(res) != 1 || res[0].Changed != 90 {
		t.Fatalf("migration: %+v, %v; want 90 recipients keyed again", res, err)
	}
	samePages(t, s, orgID, campaignID)
}
