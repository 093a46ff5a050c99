package recipient_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

func TestCampaignOffers(t *testing.T) {
	gift := func(id string, price float64, status gifting.GiftStatus, collections ...string) gifting.Gift {
		return gifting.Gift{GiftID: id, Price: price, Status: status, CollectionIDs: collections}
	}
	own := gift("own", 40, gifting.GiftAvailable)
	c := recipient.Campaign{GiftIDs: []string{"own"}, ChoiceCollectionID: "treats"}
	for name, tc := range map[string]struct {
		g    gifting.Gift
		want bool
	}{
		"the campaign's own":           {own, true},
		"fits":                         {gift("tea", 12, gifting.GiftAvailable, "treats"), true},
		"fits exactly, rounded":        {gift("mug", 39.01, gifting.GiftAvailable, "treats"), true},
		"one cent too dear":            {gift("pen", 40.01, gifting.GiftAvailable, "treats"), false},
		"not available":                {gift("socks", 5, "pending", "treats"), false},
		"another collection":           {gift("hat", 5, gifting.GiftAvailable, "swag"), false},
		"a price stored out of bounds": {gift("odd", -1, gifting.GiftAvailable, "treats"), false},
	} {
		if got := c.Offers(tc.g, 40); got != tc.want {
			t.Errorf("%s: Offers = %v, want %v", name, got, tc.want)
		}
	}
	if (recipient.Campaign{GiftIDs: []string{"own"}}).Offers(gift("tea", 12, gifting.GiftAvailable, "treats"), 40) {
		t.Error("a campaign without a choice offers a collection's gift")
	}
	got := c.WithSwaps([]gifting.Gift{own}, []gifting.Gift{own, gift("tea", 12, gifting.GiftAvailable, "treats"), gift("pen", 50, gifting.GiftAvailable, "treats")}, 40)
	if len(got) != 2 || got[0].GiftID != "own" || got[1].GiftID != "tea" {
		t.Errorf("WithSwaps = %v, want own then tea", got)
	}
}
