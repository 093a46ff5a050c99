package pages_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wallet"
)

// swapFixture is the fixture with a second campaign of the cheap gift
// (40 credits held per recipient) that offers a swap within the
// collection "treats": Tea (12, fits), Watch (90, too dear), Socks (5,
// not available) and Coffee, the campaign's own gift, in it too. It
// returns the campaign's id and Tea.
func swapFixture(t *testing.T, look func(name string) (string, string)) (*fixture, string, catalog.Gift) {
	t.Helper()
	ctx := context.Background()
	f := newFixtureWith(t, nil, look)
	mk := func(name string, price float64, status catalog.GiftStatus) catalog.Gift {
		description, image := look(name)
		g, err := catalog.NewApp(f.s).CreateGift(ctx, f.orgID, catalog.Gift{Name: name, Price: price, Currency: "USD", Status: status,
			ShortDescription: description, ImageURLs: []string{image}, CollectionIDs: []string{"treats"},
			Inventory: catalog.Inventory{Total: 5, Available: 5}})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tea := mk("Tea", 12, catalog.GiftAvailable)
	mk("Watch", 90, catalog.GiftAvailable)
	mk("Socks", 5, catalog.GiftPending)
	c, err := testenv.CreateCampaign(ctx, f.s, f.orgID, campaign.Campaign{Name: "Your pick", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{f.cheap.GiftID}, CreditsPerRecipient: f.creditsPerPerson, PriceSet: true,
			ChoiceCollectionID: "treats"}})
	if err != nil {
		t.Fatal(err)
	}
	return f, c.CampaignID, tea
}

// addTo adds a recipient to campaign campaignID of the fixture's org.
func (f *fixture) addTo(t *testing.T, campaignID, email string) recipient.Recipient {
	t.Helper()
	res, err := testenv.Recipients(f.s).Write(context.Background(), recipient.AddInput{
		OrgID: f.orgID, CampaignID: campaignID, SourceType: "api", PublicBaseURL: "https://gifts.test",
		Contact: gifting.ContactInput{MailID: email, FirstName: "Jane", LastName: "Doe"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Recipient
}

// TestSwap: a campaign with campaignData.choice offers, beside its own
// gift, every available gift of the collection whose price fits the
// credits held (not the dearer one, not the unavailable one); claiming
// one reserves it and refunds the difference with a ledger entry; a gift
// the swap does not offer is refused with nothing written.
func TestSwap(t *testing.T) {
	t.Parallel()
	f, campaignID, tea := swapFixture(t, func(name string) (string, string) {
		return name + " to enjoy", "https://img.test/" + strings.ToLower(name) + ".png"
	})
	r := f.addTo(t, campaignID, "jane@example.com")
	form := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil)
	if form.status != http.StatusOK || strings.Count(form.body, `type="radio" name="giftId"`) != 2 ||
		!strings.Contains(form.body, `value="`+tea.GiftID+`"`) || !strings.Contains(form.body, `value="`+f.cheap.GiftID+`"`) ||
		strings.Contains(form.body, "Watch") || strings.Contains(form.body, "Socks") {
		t.Fatalf("claim form of a swap: %d %s; want Coffee and Tea only", form.status, form.body)
	}
	balance, _ := f.wallet(t)
	for _, name := range []string{"Watch", "Headphones"} {
		id := ""
		for _, g := range f.giftsNamed(t, name) {
			id = g.GiftID
		}
		if res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(id)); res.status != http.StatusBadRequest {
			t.Errorf("claim of %s, which the swap does not offer: %d, want 400", name, res.status)
		}
	}
	if res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(tea.GiftID)); res.status != http.StatusSeeOther {
		t.Fatalf("claim of the swap: %d %s", res.status, res.body)
	}
	got, err := f.s.Recipient(context.Background(), f.orgID, campaignID, r.RecipientID)
	if err != nil {
		t.Fatal(err)
	}
	if got.SelectedGift.GiftID != tea.GiftID || got.CreditsCharged != 12 || got.Status != gifting.RecipientProcessing {
		t.Errorf("recipient after the swap: gift %s, credits %d, %s", got.SelectedGift.GiftID, got.CreditsCharged, got.Status)
	}
	if inv := f.gift(t, tea.GiftID).Inventory; inv.Available != 4 || inv.Reserved != 1 {
		t.Errorf("Tea's inventory %+v, want one unit reserved", inv)
	}
	after, entries := f.wallet(t)
	if after != balance+28 || entries[0].Type != wallet.Refund || entries[0].Amount != 28 {
		t.Errorf("balance %d (was %d), newest %+v; want a refund of 28 = 40 held - 12", after, balance, entries[0])
	}
	testenv.AssertLedgerBalanced(t, f.s, f.orgID)
}

// giftsNamed are the organization's gifts named name.
func (f *fixture) giftsNamed(t *testing.T, name string) []catalog.Gift {
	t.Helper()
	gifts, err := f.s.GiftsOf(context.Background(), []string{f.orgID})
	if err != nil {
		t.Fatal(err)
	}
	var out []catalog.Gift
	for _, g := range gifts {
		if g.Name == name {
			out = append(out, g)
		}
	}
	return out
}
