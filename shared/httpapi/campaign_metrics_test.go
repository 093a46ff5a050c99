package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"testing"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

type metricsEnvelope struct {
	Success bool             `json:"success"`
	Data    campaign.Metrics `json:"data"`
}

func TestCampaignMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// The store counts its DynamoDB requests, to show metrics read the
	// campaign item only, however many recipients it has.
	meter := meter.New(testenv.Client(t))
	s := dynamo.New(meter, testenv.Store(t).Table())
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	orgID, key := testenv.Org(t, s, "acme", 1_000_000)
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: queue})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet})
	queue.Start(svc.RunJob)
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	listID, _ := listWithContacts(t, s, orgID, 5)
	c := launchReady(t, api, gifts[1], listID)

	t.Run("a draft has zeros", func(t *testing.T) {
		var m metricsEnvelope
		res := api.Do("GET", "/api/campaigns/"+c.CampaignID+"/metrics", nil)
		res.JSON(t, &m)
		if res.Status != http.StatusOK || !m.Success || m.Data.TotalRecipients != 0 || m.Data.Rates != (campaign.Rates{}) ||
			len(m.Data.StatusCounts) != len(gifting.RecipientStatuses) {
			t.Errorf("metrics of a draft: %d %s", res.Status, res.Body)
		}
	})

	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	queue.Wait()
	page, err := s.ListRecipients(ctx, orgID, c.CampaignID, recipient.Query{Page: gifting.PageRequest{Page: 1, Limit: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Recipients) != 5 {
		t.Fatalf("%d recipients, want 5", len(page.Recipients))
	}
	// One recipient stays pending; the others reach invite_sent,
	// address_confirmed (stored processing: the claim opens its order),
	// delivered and acknowledged; two leave feedback.
	moves := []gifting.RecipientStatus{gifting.RecipientInviteSent, gifting.RecipientAddressConfirmed, gifting.RecipientDelivered, gifting.RecipientAcknowledged}
	for i, to := range moves {
		r := page.Recipients[i]
		if to.Rank() >= gifting.RecipientAddressConfirmed.Rank() {
			testenv.Claim(t, s, orgID, c.CampaignID, r.RecipientID)
		}
		if to == gifting.RecipientAddressConfirmed {
			continue
		}
		if to.Rank() >= gifting.RecipientShipped.Rank() {
			testenv.Ship(t, s, orgID, c.CampaignID, r.RecipientID) // its order ships first (issue 31)
		}
		if _, err := testenv.Recipients(s).Move(ctx, orgID, c.CampaignID, r.RecipientID, to); err != nil {
			t.Fatalf("move to %s: %v", to, err)
		}
		if i >= 2 {
			if _, err := testenv.Recipients(s).Feedback(ctx, orgID, c.CampaignID, r.RecipientID, "like", nil); err != nil {
				t.Fatal(err)
			}
		}
	}

	t.Run("counts and rates", func(t *testing.T) {
		var m metricsEnvelope
		res := api.Do("GET", "/api/campaigns/"+c.CampaignID+"/metrics", nil)
		res.JSON(t, &m)
		d := m.Data
		wantCounts := map[gifting.RecipientStatus]int64{
			gifting.RecipientPending: 1, gifting.RecipientInviteSent: 1, gifting.RecipientProcessing: 1,
			gifting.RecipientDelivered: 1, gifting.RecipientAcknowledged: 1,
		}
		for _, st := range gifting.RecipientStatuses {
			if d.StatusCounts[st] != wantCounts[st] {
				t.Errorf("statusCounts[%s] = %d, want %d", st, d.StatusCounts[st], wantCounts[st])
			}
		}
		want := campaign.Rates{AddressConfirmation: 0.6, Delivery: 0.4, Acknowledgement: 0.2, Feedback: 0.4}
		if d.TotalRecipients != 5 || d.CreditsSpent != 5*price || d.FeedbackCount != 2 || d.Rates != want || d.Status != campaign.Live {
			t.Errorf("metrics = %+v; want 5 recipients, %d credits, 2 feedback, rates %+v, live", d, 5*price, want)
		}
	})
	t.Run("one read, whatever the number of recipients", func(t *testing.T) {
		api.Do("GET", "/api/campaigns/"+c.CampaignID+"/metrics", nil) // the API key is cached now
		before := meter.Total()
		api.Do("GET", "/api/campaigns/"+c.CampaignID+"/metrics", nil)
		// The read, and the call's count in the month's usage.
		if got := meter.Total().Sub(before).Requests; got != 2 {
			t.Errorf("metrics made %d DynamoDB requests, want 2 (the read and the usage count)", got)
		}
	})
}
