package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// usageDTO is GET /usage's data.
type usageDTO struct {
	OrganizationID  string `json:"organizationId"`
	Month           string `json:"month"`
	RecipientsAdded int64  `json:"recipientsAdded"`
	CreditsSpent    int64  `json:"creditsSpent"`
	CreditsRefunded int64  `json:"creditsRefunded"`
	CreditsToppedUp int64  `json:"creditsToppedUp"`
	EmailsSent      int64  `json:"emailsSent"`
	APICalls        int64  `json:"apiCalls"`
}

// TestUsageCountsWhatTheOrganizationDid: an organization launches a
// campaign over 4 contacts (invitations sent at once through the SES
// emulator) and adds one recipient more; its usage of the month is
// exactly the recipients it has, the debits and refunds of its ledger, the
// invitations its recipients record as sent and the calls its key made
// (a call without a key and another organization's calls not among them).
// A malformed month is a 400; a month of no use is zeros.
func TestUsageCountsWhatTheOrganizationDid(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "usage", 10_000)
	_, otherKey := testenv.Org(t, s, "other-usage", 0)
	mailer, err := sesmail.New(app.Config{SenderAddress: "gifts@example.com", SESEndpoint: localstack.SESEndpoint(t),
		PublicBaseURL: "https://gifts.test"})
	if err != nil {
		t.Fatal(err)
	}
	api, _ := mailAPI(t, s, key, mailer, false)
	_, gifts := campaignCatalogRefs(t)
	listID, _ := listWithContacts(t, s, orgID, 4)

	calls := int64(0)
	do := func(method, path string, body any, want int) testenv.Response {
		t.Helper()
		calls++
		res := api.Do(method, path, body)
		if res.Status != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, res.Status, res.Body, want)
		}
		return res
	}
	c := postCampaign(t, api, map[string]any{"name": "Metered", "contactListIds": []string{listID},
		"templateId": "tmpl-meeting-booker", "campaignData": map[string]any{"giftIds": []string{gifts[1].GiftID}}})
	calls++
	do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil, http.StatusAccepted)
	api.Jobs.Wait()
	do("POST", "/api/campaigns/campaigns/"+c.CampaignID+"/add-recipient", recipientBody("metered@example.com", "Ada"), http.StatusOK)
	api.Jobs.Wait()
	api.WithKey("").Do("GET", "/api/campaigns/usage", nil)
	api.WithKey(otherKey).Do("GET", "/api/campaigns/usage", nil)

	page := listRecipientsCounted(t, do, c.CampaignID)
	var sent int64
	for _, r := range page.Recipients {
		for _, e := range []wire.EmailSchedule{r.Emails.AddressConfirmation, r.Emails.Reminder1, r.Emails.Reminder2, r.Emails.Shipped, r.Emails.PostDelivery, r.Emails.PostAcknowledgement} {
			if e.Sent {
				sent++
			}
		}
	}
	calls++
	byType := map[string]int64{}
	for _, e := range walletOf(t, api, "?limit=100").Ledger.Items {
		byType[e.Type] += e.Amount
	}
	var answered struct{ Data usageDTO }
	do("GET", "/api/campaigns/usage", nil, http.StatusOK).JSON(t, &answered)

	want := access.Usage{OrgID: orgID, Month: access.MonthOf(s.Now()), RecipientsAdded: int64(len(page.Recipients)),
		CreditsSpent: byType["debit"], CreditsRefunded: byType["refund"], CreditsToppedUp: byType["top_up"], EmailsSent: sent, APICalls: calls}
	got, err := s.Usage(context.Background(), orgID, want.Month)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || want.RecipientsAdded != 5 || want.CreditsSpent == 0 || want.CreditsToppedUp != 10_000 || sent < 5 {
		t.Errorf("usage %+v, want %+v (5 recipients, credits spent, 5 invitations at least)", got, want)
	}
	// The answer holds the counts as they stood when read: its own call
	// is counted while it is served, so it may or may not be among them.
	a := answered.Data
	if a.OrganizationID != orgID || a.Month != want.Month || a.RecipientsAdded != want.RecipientsAdded || a.CreditsSpent != want.CreditsSpent ||
		a.CreditsRefunded != want.CreditsRefunded || a.CreditsToppedUp != want.CreditsToppedUp || a.EmailsSent != want.EmailsSent || a.APICalls < calls-1 || a.APICalls > calls {
		t.Errorf("GET /usage answered %+v; want %+v", a, want)
	}

	var none struct{ Data usageDTO }
	do("GET", "/api/campaigns/usage?month=2001-02", nil, http.StatusOK).JSON(t, &none)
	if none.Data != (usageDTO{OrganizationID: orgID, Month: "2001-02"}) {
		t.Errorf("a month of no use: %+v, want zeros", none.Data)
	}
	for _, bad := range []string{"2026-13", "26-11", "2026-1", "november"} {
		assertError(t, api.Do("GET", "/api/campaigns/usage?month="+bad, nil), http.StatusBadRequest, "VALIDATION_FAILED")
	}
	testenv.AssertLedgerBalanced(t, s, orgID)
}

// listRecipientsCounted lists a campaign's recipients (up to 100) through
// do, so the call is counted.
func listRecipientsCounted(t *testing.T, do func(string, string, any, int) testenv.Response, campaignID string) recipientPage {
	t.Helper()
	var p recipientPage
	do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients?limit=100", nil, http.StatusOK).JSON(t, &p)
	return p
}
