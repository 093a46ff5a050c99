package httpapi_test

import (
	"context"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

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

// reportEnvelope is GET /reports/summary's answer.
type reportEnvelope struct {
	Data struct {
		GroupBy string `json:"groupBy"`
		Groups  []struct {
			Key    string   `json:"key"`
			Name   string   `json:"name"`
			Median *float64 `json:"medianHoursToClaim"`
			campaign.ReportFigures
		} `json:"groups"`
		Totals campaign.ReportFigures `json:"totals"`
	} `json:"data"`
}

// TestReportSummary: the report across campaigns of a launched campaign
// of 5 (one pending, one invited, one claimed, one delivered, one
// acknowledged, two with feedback) and a draft, by campaign, month and
// user, equals what the test did; a period without them is empty;
// another organization sees nothing; bad parameters are 400s naming
// them.
func TestReportSummary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	_, gifts := campaignCatalogRefs(t)
	price := int64(math.Ceil(gifts[1].Price))
	orgID, key := testenv.Org(t, s, "report", 1_000_000)
	_, otherKey := testenv.Org(t, s, "report-other", 1_000)
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: queue})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet})
	queue.Start(svc.RunJob)
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	listID, _ := listWithContacts(t, s, orgID, 5)
	c := launchReady(t, api, gifts[1], listID)
	draft := launchReady(t, api, gifts[1], listID)
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	queue.Wait()
	page, err := s.ListRecipients(ctx, orgID, c.CampaignID, recipient.Query{Page: gifting.PageRequest{Page: 1, Limit: 10}})
	if err != nil || len(page.Recipients) != 5 {
		t.Fatalf("%d recipients, %v; want 5", len(page.Recipients), err)
	}
	for i, r := range page.Recipients[:4] {
		if i >= 1 {
			testenv.Claim(t, s, orgID, c.CampaignID, r.RecipientID)
		}
		if i >= 2 {
			testenv.Ship(t, s, orgID, c.CampaignID, r.RecipientID)
			to := []gifting.RecipientStatus{gifting.RecipientDelivered, gifting.RecipientAcknowledged}[i-2]
			if _, err := testenv.Recipients(s).Move(ctx, orgID, c.CampaignID, r.RecipientID, to); err != nil {
				t.Fatalf("move to %s: %v", to, err)
			}
			if _, err := testenv.Recipients(s).Feedback(ctx, orgID, c.CampaignID, r.RecipientID, "like", nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	counts := map[gifting.RecipientStatus]int64{}
	page, _ = s.ListRecipients(ctx, orgID, c.CampaignID, recipient.Query{Page: gifting.PageRequest{Page: 1, Limit: 10}})
	for _, r := range page.Recipients {
		counts[r.Status]++
	}
	invited := 5 - counts[gifting.RecipientPending]
	want := campaign.ReportFigures{Campaigns: 1, RecipientsAdded: 5, Invited: invited, Claimed: 3, Delivered: 2, Acknowledged: 1,
		Feedback: 2, CreditsSpent: 5 * price, ClaimRate: math.Round(3/float64(invited)*10000) / 10000}
	empty := campaign.ReportFigures{Campaigns: 1}

	get := func(t *testing.T, a *testenv.API, query string) reportEnvelope {
		t.Helper()
		var rep reportEnvelope
		res := a.Do("GET", "/api/campaigns/reports/summary"+query, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", query, res.Status, res.Body)
		}
		res.JSON(t, &rep)
		return rep
	}
	t.Run("by campaign", func(t *testing.T) {
		rep := get(t, api, "")
		if len(rep.Data.Groups) != 2 || rep.Data.Groups[0].Key != c.CampaignID || rep.Data.Groups[1].Key != draft.CampaignID {
			t.Fatalf("groups %+v; want the launched campaign, then the draft", rep.Data.Groups)
		}
		if got := rep.Data.Groups[0].ReportFigures; got != want || rep.Data.Groups[0].Name != c.Name {
			t.Errorf("the launched campaign's figures %+v (%q); want %+v", got, rep.Data.Groups[0].Name, want)
		}
		if got := rep.Data.Groups[1].ReportFigures; got != empty {
			t.Errorf("the draft's figures %+v; want %+v", got, empty)
		}
		// The claims came within seconds of their invitations.
		if m := rep.Data.Groups[0].Median; m == nil || *m > 0.1 || rep.Data.Groups[1].Median != nil {
			t.Errorf("median hours to claim: %v for the launched campaign (want about 0), %v for the draft (want null)", m, rep.Data.Groups[1].Median)
		}
		total := want
		total.Campaigns = 2
		if rep.Data.Totals != total {
			t.Errorf("totals %+v; want %+v", rep.Data.Totals, total)
		}
	})
	t.Run("by month and by user", func(t *testing.T) {
		total := want
		total.Campaigns = 2
		// By month: every month the 30 days touch, everything done in
		// this one (the events' month).
		month := get(t, api, "?groupBy=month")
		this := time.Now().UTC().Format("2006-01")
		for _, g := range month.Data.Groups {
			want := campaign.ReportFigures{}
			if g.Key == this {
				want = total
			}
			if g.ReportFigures != want {
				t.Errorf("by month, %s: %+v; want %+v", g.Key, g.ReportFigures, want)
			}
		}
		if n := len(month.Data.Groups); n < 1 || n > 2 || month.Data.Groups[n-1].Key != this || month.Data.Totals != total {
			t.Errorf("by month: %+v, totals %+v; want the months of the last 30 days, ending with %s, totals %+v", month.Data.Groups, month.Data.Totals, this, total)
		}
		user := get(t, api, "?groupBy=user")
		if len(user.Data.Groups) != 1 || user.Data.Groups[0].Key != c.CreatedBy || user.Data.Groups[0].ReportFigures != total {
			t.Errorf("by user: %+v; want one group of %q holding %+v", user.Data.Groups, c.CreatedBy, total)
		}
	})
	t.Run("another period, another organization", func(t *testing.T) {
		if rep := get(t, api, "?from=2020-01-01&to=2020-12-31"); len(rep.Data.Groups) != 0 || rep.Data.Totals != (campaign.ReportFigures{}) {
			t.Errorf("2020: %+v", rep.Data)
		}
		// Before 1970 (no campaign id is that old) and across it: an
		// empty report, in every grouping.
		for _, query := range []string{"?groupBy=campaign&to=1321-04-27", "?groupBy=user&from=1969-12-01&to=1970-01-15"} {
			if rep := get(t, api, query); len(rep.Data.Groups) != 0 || rep.Data.Totals != (campaign.ReportFigures{}) {
				t.Errorf("%s: %+v", query, rep.Data)
			}
		}
		if rep := get(t, api, "?groupBy=month&to=1321-04-27"); len(rep.Data.Groups) != 2 || rep.Data.Groups[0].Key != "1321-03" || rep.Data.Totals != (campaign.ReportFigures{}) {
			t.Errorf("by month in 1321: %+v; want March and April, empty", rep.Data)
		}
		other := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), otherKey)
		if rep := get(t, other, ""); len(rep.Data.Groups) != 0 {
			t.Errorf("another organization sees %+v", rep.Data.Groups)
		}
	})
	t.Run("bad parameters", func(t *testing.T) {
		for query, field := range map[string]string{"?groupBy=week": "groupBy", "?from=2026-02-01&to=2026-01-01": "to",
			"?from=2024-01-01&to=2026-01-01": "to", "?from=yesterday": "from"} {
			res := api.Do("GET", "/api/campaigns/reports/summary"+query, nil)
			if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), field) {
				t.Errorf("GET %s: %d %s; want a 400 naming %s", query, res.Status, res.Body, field)
			}
		}
	})
}
