package erasure_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestRecordsFrom: the walks of the ledger and the orders start an hour
// before the oldest campaign the person was a recipient of; a person who
// never was one has no entry or order to walk; a campaign id that holds no
// time means the whole walk.
func TestRecordsFrom(t *testing.T) {
	older, newer := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC), time.Date(2026, 2, 1, 8, 0, 0, 0, time.UTC)
	ref := func(campaign string) erasure.RecipientRef {
		return erasure.RecipientRef{CampaignID: campaign, RecipientID: "r1"}
	}
	for _, tt := range []struct {
		name     string
		refs     []erasure.RecipientRef
		want     time.Time
		wantWalk bool
	}{
		{"never a recipient", nil, time.Time{}, false},
		{"one campaign", []erasure.RecipientRef{ref(gifting.NewIDAt(newer))}, newer.Add(-time.Hour), true},
		{"the oldest of two", []erasure.RecipientRef{ref(gifting.NewIDAt(newer)), ref(gifting.NewIDAt(older))}, older.Add(-time.Hour), true},
		{"a campaign id of another form", []erasure.RecipientRef{ref(gifting.NewIDAt(newer)), ref("spring-2019")}, time.Time{}, true},
	} {
		from, walk := erasure.Job{Recipients: tt.refs}.RecordsFrom()
		if !from.Equal(tt.want) || walk != tt.wantWalk {
			t.Errorf("%s: RecordsFrom() = %v, %v; want %v, %v", tt.name, from, walk, tt.want, tt.wantWalk)
		}
	}
}
