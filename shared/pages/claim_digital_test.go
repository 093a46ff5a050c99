package pages_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestClaimMixedDigitalAndPhysical: on a campaign offering a gift card
// beside a parcel, the claim form keeps the address but marks it not
// needed for the card; the parcel without an address is refused with the
// fields named, the card without one is claimed and its code shown.
func TestClaimMixedDigitalAndPhysical(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme-mixed", 200)
	gifts := catalog.NewApp(s)
	mug, err := gifts.CreateGift(ctx, orgID, catalog.Gift{Name: "Mug", Price: 20, Currency: "USD", Status: catalog.GiftAvailable,
		Inventory: catalog.Inventory{Total: 5, Available: 5}})
	if err != nil {
		t.Fatal(err)
	}
	card, err := gifts.CreateGift(ctx, orgID, catalog.Gift{Name: "Book voucher", Type: catalog.GiftDigital, Price: 20, Currency: "USD",
		Status: catalog.GiftAvailable})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := giftcodes.NewApp(s, testenv.CodeSecrets(t)).Upload(ctx, orgID, card.GiftID, []giftcodes.Code{{Code: "BOOK-5521-MIXD"}}); err != nil {
		t.Fatal(err)
	}
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "Thanks", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{mug.GiftID, card.GiftID}, CreditsPerRecipient: 20, PriceSet: true}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := testenv.Recipients(s).Write(ctx, recipient.AddInput{OrgID: orgID, CampaignID: c.CampaignID, SourceType: "api",
		PublicBaseURL: "https://gifts.test", Contact: gifting.ContactInput{MailID: "li@example.com", FirstName: "Li"}})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recipient
	ts := httptest.NewServer(site.NewWithCodes(s, testenv.Quiet, testenv.CodeSecrets(t)))
	t.Cleanup(ts.Close)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	read := func(res *http.Response, err error) (int, string) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	status, form := read(http.Get(ts.URL + "/claim/" + r.ClaimPageID))
	if status != http.StatusOK || !strings.Contains(form, "not needed for a digital gift") || !strings.Contains(form, `id="line1"`) ||
		strings.Contains(form, " required") {
		t.Errorf("claim form %d: want the address kept, optional, said not needed for the digital gift", status)
	}
	status, page := read(noRedirect.PostForm(ts.URL+"/claim/"+r.ClaimPageID, url.Values{"giftId": {mug.GiftID}}))
	if status != http.StatusBadRequest || !strings.Contains(page, `id="line1-error"`) {
		t.Errorf("the mug without an address: %d, want 400 naming the street", status)
	}
	res2, err := noRedirect.PostForm(ts.URL+"/claim/"+r.ClaimPageID, url.Values{"giftId": {card.GiftID}})
	if err != nil {
		t.Fatal(err)
	}
	res2.Body.Close()
	if res2.StatusCode != http.StatusSeeOther {
		t.Fatalf("the voucher without an address: %d, want 303 to the landing page", res2.StatusCode)
	}
	status, landing := read(http.Get(ts.URL + res2.Header.Get("Location")))
	if status != http.StatusOK || !strings.Contains(landing, "BOOK-5521-MIXD") || strings.Contains(landing, "Shipping to") {
		t.Errorf("landing page %d: want the code shown and no shipping address", status)
	}
	// Choosing the mug afterwards: already claimed, said without an
	// address (none was asked), with the way back to the code.
	status, page = read(noRedirect.PostForm(ts.URL+"/claim/"+r.ClaimPageID, url.Values{"giftId": {mug.GiftID},
		"line1": {"1 Main St"}, "city": {"Springfield"}, "zip": {"62701"}, "country": {"US"}}))
	if status != http.StatusConflict || !strings.Contains(page, "Your gift is already claimed") || !strings.Contains(page, `href="/gift/`) {
		t.Errorf("a second claim: %d, want 409 saying the gift is claimed, linking its page", status)
	}
	got, err := s.Recipient(ctx, orgID, c.CampaignID, r.RecipientID)
	if err != nil || got.Status != gifting.RecipientDelivered || got.Address != nil || got.SelectedGift.GiftID != card.GiftID {
		t.Errorf("recipient %s, address %v, gift %s (%v): want delivered with the voucher, no address", got.Status, got.Address, got.SelectedGift.GiftID, err)
	}
}
