package pages_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestProblemsInTheRecipientsLanguage: a German recipient reads the
// claim's conflicts in German: the alert of a gift that ran out of stock
// between the form and the claim, and the page refusing a claim before a
// required meeting; the English messages do not show.
func TestProblemsInTheRecipientsLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx := context.Background()
	add := func(email string) recipient.Recipient {
		res, err := testenv.Recipients(f.s).Write(ctx, recipient.AddInput{OrgID: f.orgID, CampaignID: f.campaign, SourceType: "api",
			PublicBaseURL: "https://gifts.test", Contact: gifting.ContactInput{MailID: email, FirstName: "Lena", Locale: "de-AT"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Recipient
	}
	lena := add("lena@example.com")
	f.soldOut(t, f.cheap.GiftID)
	res := f.do(t, "POST", "/claim/"+lena.ClaimPageID, address(f.cheap.GiftID))
	alert := `<p class="alert" role="alert">Das gewählte Geschenk ist leider nicht mehr vorrätig; bitte wählen Sie ein anderes.</p>`
	if res.status != http.StatusConflict || !strings.Contains(res.body, alert) || strings.Contains(res.body, "out of stock") {
		t.Errorf("a German claim of a gift out of stock: %d, want 409 with the German alert %s:\n%s", res.status, alert, res.body)
	}

	f.withMeeting(t, true)
	ben := add("ben@example.com")
	res = f.do(t, "POST", "/claim/"+ben.ClaimPageID, address(f.dear.GiftID))
	if res.status != http.StatusConflict || !strings.Contains(res.body, "Bitte buchen Sie zuerst einen Termin: Der Link steht auf der Seite Ihres Geschenks") ||
		strings.Contains(res.body, "book a meeting first") {
		t.Errorf("a German claim before the required meeting: %d, want 409 saying why in German:\n%s", res.status, res.body)
	}
}
