package main

import (
	"context"
	"fmt"
	"net/http"

	"github.com/giftcampaign/service/shared/giftcodes"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
)

// The digital gift row (issue 32; docs/digital-gifts.md): what the claim
// of a digital gift costs, which assigns one of its codes in the claim's
// transaction and opens no order.

// digitalClaims is how many recipients claim the digital gift, one after
// another (so no claim meets another's code: the figure is a claim's own).
const digitalClaims = 30

// digitalScenario measures the digital claim row.
func digitalScenario(ctx context.Context, parent *env) []systemFigure {
	fail := func(err error) []systemFigure {
		return []systemFigure{{figure: "claim of a digital gift", measured: "failed: " + oneLine(err.Error())}}
	}
	codes, err := benchCodeSecrets()
	if err != nil {
		return fail(err)
	}
	e, err := parent.sibling(ctx, envConfig{})
	if err != nil {
		return fail(err)
	}
	defer e.close()
	t, err := e.newTenant(ctx, "digital", digitalClaims*ordersPrice*2)
	if err != nil {
		return fail(err)
	}
	res, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/gifts",
		map[string]any{"name": "Bench coffee card", "type": "digital", "price": 25, "currency": "USD"})
	if err != nil {
		return fail(err)
	}
	var g struct {
		Data struct {
			GiftID string `json:"giftId"`
		} `json:"data"`
	}
	if err := res.decode(&g); err != nil {
		return fail(err)
	}
	upload := make([]giftcodes.Code, digitalClaims+10)
	for i := range upload {
		upload[i] = giftcodes.Code{Code: fmt.Sprintf("BENCH-CAFE-%06d", i), PIN: fmt.Sprintf("%04d", i)}
	}
	if _, err := giftcodes.NewApp(e.store, codes).Upload(ctx, t.orgID, g.Data.GiftID, upload); err != nil {
		return fail(err)
	}
	campaignID, err := e.liveCampaign(ctx, t, g.Data.GiftID)
	if err != nil {
		return fail(err)
	}
	apps := recipient.NewApp(e.store, recipient.Config{PublicBaseURL: "https://gifts.example.com"})
	var claim opCost
	for k := range digitalClaims {
		res, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody("dig", k))
		if err != nil {
			return fail(err)
		}
		var added struct {
			RecipientID string `json:"recipientId"`
		}
		if err := res.decode(&added); err != nil {
			return fail(err)
		}
		var r recipient.Recipient
		err = claim.measured(ctx, e, func(ctx context.Context) (err error) {
			r, err = apps.Claim(ctx, t.orgID, campaignID, added.RecipientID, recipient.ClaimInput{GiftID: g.Data.GiftID})
			return err
		})
		if err == nil && giftcodes.Assigned(r.ShipmentInfo) == "" {
			err = fmt.Errorf("claim of %s assigned no code", added.RecipientID)
		}
		if err != nil {
			return fail(err)
		}
	}
	return []systemFigure{{
		figure:   "claim of a digital gift (one code assigned in the claim's transaction, with the refund; no order)",
		measured: claim.String() + fmt.Sprintf(" (median of %d claims)", len(claim.requests)),
		method:   digitalMethod,
	}}
}

// digitalMethod says how the digital claim row was measured.
const digitalMethod = "Digital claim row: on a table of its own, one organization uploads 40 codes to a digital gift priced 25 in a campaign holding 40 credits a recipient, adds 30 recipients through the API and claims each, one after another, through the recipient slice's use case over the metered client (the claim page's own DynamoDB requests: the claim's read, the Slim query of the first code, the code's mask, the wallet's balance and the transaction of the recipient, the gift's units, the campaign's counters, the code, the pool's count, the refund and its ledger entry). WRU billed (est.) as for the endpoints."

// benchCodeSecrets is the sealer of digital gifts' codes over the KMS
// emulator `make bench` starts, in the codes' own encryption context.
func benchCodeSecrets() (*sealed.Box, error) {
	client, keyID, err := benchKMS()
	if err != nil {
		return nil, err
	}
	return sealed.New(kmskey.NewCodes(client, keyID), sealed.DefaultLimits), nil
}
