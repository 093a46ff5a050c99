package client_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/giftcampaign/service/client"
)

// Example is docs/clients.md's example (create a campaign, add a recipient, read the wallet), compiled with
// the tests so that it keeps up with the generated client.
func Example() {
	if err := run(context.Background(), "gcs_…"); err != nil {
		fmt.Println(err)
	}
}

func run(ctx context.Context, key string) error {
	api, err := client.NewClientWithResponses("http://127.0.0.1:3000",
		client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("x-api-key", key)
			return nil
		}))
	if err != nil {
		return err
	}
	var body client.CreateCampaignJSONRequestBody
	body.Name = "Q3 thank-you"
	created, err := api.CreateCampaignWithResponse(ctx, &client.CreateCampaignParams{}, body)
	if err != nil {
		return err
	} else if created.JSON201 == nil {
		return fmt.Errorf("create campaign: %s", created.Body)
	}
	recipient := client.AddRecipientJSONRequestBody{}
	recipient.ContactDetails.Email = "ada@example.com"
	added, err := api.AddRecipientWithResponse(ctx, created.JSON201.Data.CampaignId, &client.AddRecipientParams{}, recipient)
	if err != nil {
		return err
	} else if added.JSON200 == nil {
		return fmt.Errorf("add recipient: %s", added.Body)
	}
	wallet, err := api.GetWalletWithResponse(ctx, &client.GetWalletParams{})
	if err != nil {
		return err
	} else if wallet.JSON200 == nil {
		return fmt.Errorf("wallet: %s", wallet.Body)
	}
	fmt.Println("balance:", wallet.JSON200.Data.Balance)
	return nil
}
