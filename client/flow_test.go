package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/giftcampaign/service/client"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestGeneratedClientFlow runs the integrator's flow of issue 19 with the generated client against the
// service over HTTP (DynamoDB Local underneath): every answer must arrive in its generated type, and must
// decode into it with no field left over, so the client neither drops nor misreads what the server sends.
func TestGeneratedClientFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := testenv.Store(t)
	_, key := testenv.Org(t, store, "sdk-flow", 1000)
	srv := httptest.NewServer(testenv.NewAPI(t, store, key).Handler)
	t.Cleanup(srv.Close)

	api, err := client.NewClientWithResponses(srv.URL, client.WithRequestEditorFn(apiKey(key)))
	if err != nil {
		t.Fatal(err)
	}

	gifts, err := api.ListGiftsWithResponse(ctx, &client.ListGiftsParams{})
	want(t, "list gifts", err, gifts.HTTPResponse, gifts.Body, http.StatusOK, gifts.JSON200)
	if len(gifts.JSON200.Data) == 0 {
		t.Fatal("list gifts: no gift in the catalog")
	}
	gift := gifts.JSON200.Data[0]

	list, err := api.CreateContactListWithResponse(ctx, client.CreateContactListJSONRequestBody{Name: "SDK flow"})
	want(t, "create list", err, list.HTTPResponse, list.Body, http.StatusCreated, list.JSON201)
	listID := list.JSON201.Data.ListId

	email := "ada@example.com"
	bulk, err := api.AddContactsToListWithResponse(ctx, listID, client.AddContactsToListJSONRequestBody{
		Contacts: &[]client.BulkContact{{Email: &email}},
	})
	want(t, "bulk add", err, bulk.HTTPResponse, bulk.Body, http.StatusOK, bulk.JSON200)
	if got := bulk.JSON200.Data.Created; got != 1 {
		t.Fatalf("bulk add: created %d, want 1", got)
	}

	var campaignBody client.CreateCampaignJSONRequestBody
	decode(t, []byte(`{"name": "SDK flow", "campaignData": {"contactListId": "`+listID+`", "giftIds": ["`+gift.GiftId+`"]}}`), &campaignBody)
	campaign, err := api.CreateCampaignWithResponse(ctx, &client.CreateCampaignParams{}, campaignBody)
	want(t, "create campaign", err, campaign.HTTPResponse, campaign.Body, http.StatusCreated, campaign.JSON201)
	campaignID := campaign.JSON201.Data.CampaignId

	var recipientBody client.AddRecipientJSONRequestBody
	decode(t, []byte(`{"contactDetails": {"email": "grace@example.com", "firstName": "Grace"}}`), &recipientBody)
	added, err := api.AddRecipientWithResponse(ctx, campaignID, &client.AddRecipientParams{}, recipientBody)
	want(t, "add recipient", err, added.HTTPResponse, added.Body, http.StatusOK, added.JSON200)

	recipients, err := api.ListCampaignRecipientsWithResponse(ctx, campaignID, &client.ListCampaignRecipientsParams{})
	want(t, "list recipients", err, recipients.HTTPResponse, recipients.Body, http.StatusOK, recipients.JSON200)
	page, err := recipients.JSON200.Recipients.AsRecipientListRecipients0()
	if err != nil || len(page) != 1 || page[0].RecipientId != added.JSON200.RecipientId {
		t.Fatalf("list recipients: %+v (%v), want the one added, %s", page, err, added.JSON200.RecipientId)
	}

	metrics, err := api.GetCampaignMetricsWithResponse(ctx, campaignID)
	want(t, "metrics", err, metrics.HTTPResponse, metrics.Body, http.StatusOK, metrics.JSON200)
	if got := metrics.JSON200.Data.TotalRecipients; got != 1 {
		t.Fatalf("metrics: totalRecipients %d, want 1", got)
	}

	wallet, err := api.GetWalletWithResponse(ctx, &client.GetWalletParams{})
	want(t, "wallet", err, wallet.HTTPResponse, wallet.Body, http.StatusOK, wallet.JSON200)
	if got, spent := wallet.JSON200.Data.Balance, added.JSON200.CreditsDeducted; got != 1000-spent {
		t.Fatalf("wallet: balance %d after spending %d of 1000", got, spent)
	}

	limit := client.Limit(1000)
	bad, err := api.ListGiftsWithResponse(ctx, &client.ListGiftsParams{Limit: &limit})
	want(t, "400", err, bad.HTTPResponse, bad.Body, http.StatusBadRequest, bad.JSON400)

	anonymous, err := client.NewClientWithResponses(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	unauthorized, err := anonymous.GetWalletWithResponse(ctx, &client.GetWalletParams{})
	want(t, "401", err, unauthorized.HTTPResponse, unauthorized.Body, http.StatusUnauthorized, unauthorized.JSON401)

	missing, err := api.GetCampaignWithResponse(ctx, "no-such-campaign")
	want(t, "404", err, missing.HTTPResponse, missing.Body, http.StatusNotFound, missing.JSON404)
}

func apiKey(key string) client.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("x-api-key", key)
		return nil
	}
}

// want fails the test unless the call got status and the generated client parsed the body into parsed,
// and the body decodes into parsed's type with no unknown field.
func want[T any](t *testing.T, step string, err error, res *http.Response, body []byte, status int, parsed *T) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", step, err)
	}
	if res.StatusCode != status {
		t.Fatalf("%s: status %d, want %d: %s", step, res.StatusCode, status, body)
	}
	if parsed == nil {
		t.Fatalf("%s: the client did not parse the %d body: %s", step, status, body)
	}
	var strict T
	decode(t, body, &strict)
}

func decode(t *testing.T, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%T does not hold %s: %v", v, body, err)
	}
}
