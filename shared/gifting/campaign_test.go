package gifting

import "testing"

func TestCampaignMoves(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		from, to CampaignStatus
		ok       bool
	}{
		{CampaignDraft, CampaignPreparing, true},
		{CampaignPreparing, CampaignLive, true},
		{CampaignLive, CampaignCompleted, true},
		{CampaignDraft, CampaignLive, false},
		{CampaignLive, CampaignPreparing, false},
		{CampaignPreparing, CampaignDraft, false},
		{CampaignCompleted, CampaignLive, false},
	} {
		if got := CanMove(tt.from, tt.to); got != tt.ok {
			t.Errorf("CanMove(%s, %s) = %v, want %v", tt.from, tt.to, got, tt.ok)
		}
	}
}

func TestAcceptsRecipients(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		c    Campaign
		want bool
	}{
		{Campaign{Status: CampaignDraft}, true},
		{Campaign{Status: CampaignPreparing}, true},
		{Campaign{Status: CampaignLive}, true},
		{Campaign{Status: CampaignInProgress}, true},
		{Campaign{Status: CampaignCompleted}, false},
		{Campaign{Status: CampaignLive, IsDeleted: true}, false},
	} {
		if got := tt.c.AcceptsRecipients(); got != tt.want {
			t.Errorf("%s (deleted %v): AcceptsRecipients = %v, want %v", tt.c.Status, tt.c.IsDeleted, got, tt.want)
		}
	}
}

func TestCreditsFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		prices []float64
		want   int64
	}{
		{"no gifts", nil, 0},
		{"whole price", []float64{25}, 25},
		{"float noise", []float64{25.000000001}, 25},
		{"cents round up", []float64{12.01}, 13},
		{"the dearest gift", []float64{10, 34.5, 20}, 35},
	} {
		var gifts []Gift
		for _, p := range tt.prices {
			gifts = append(gifts, Gift{Price: p})
		}
		if got := CreditsFor(gifts); got != tt.want {
			t.Errorf("%s: CreditsFor = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestMetricsRates(t *testing.T) {
	t.Parallel()
	c := Campaign{CampaignID: "c1", Status: CampaignLive, TotalRecipients: 3, LiveData: LiveData{
		StatusCounts:  map[RecipientStatus]int64{RecipientInviteSent: 1, RecipientShipped: 1, RecipientAcknowledged: 1},
		FeedbackCount: 1,
	}}
	m := c.Metrics()
	want := CampaignRates{AddressConfirmation: 0.6667, Delivery: 0.3333, Acknowledgement: 0.3333, Feedback: 0.3333}
	if m.Rates != want || len(m.StatusCounts) != len(RecipientStatuses) {
		t.Errorf("rates %+v, %d statuses; want %+v and every status", m.Rates, len(m.StatusCounts), want)
	}
	if z := (Campaign{}).Metrics(); z.Rates != (CampaignRates{}) {
		t.Errorf("no recipients: rates %+v, want zeros", z.Rates)
	}
}
