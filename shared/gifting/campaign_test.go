package gifting

import (
	"math"
	"slices"
	"testing"
)

func TestCampaignMoves(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		from, to CampaignStatus
		ok       bool
	}{
		{CampaignDraft, CampaignPreparing, true},
		{CampaignPreparing, CampaignLive, true},
		{CampaignLive, CampaignCompleted, true},
		{CampaignLive, CampaignInProgress, true},
		{CampaignInProgress, CampaignLive, true},
		{CampaignInProgress, CampaignCompleted, true},
		{CampaignPreparing, CampaignCompleted, false},
		{CampaignDraft, CampaignCompleted, false},
		{CampaignCompleted, CampaignInProgress, false},
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

// TestCampaignActions keeps the user's actions inside the state machine
// and checks what they refuse.
func TestCampaignActions(t *testing.T) {
	t.Parallel()
	for _, a := range CampaignActions {
		for _, from := range CampaignStatuses {
			if a.Allows(from) && !CanMove(from, a.To) {
				t.Errorf("%s allows %s → %s, which the state machine does not", a.Name, from, a.To)
			}
		}
	}
	for _, tt := range []struct {
		a    CampaignAction
		from CampaignStatus
		ok   bool
		msg  string
	}{
		{CampaignPause, CampaignLive, true, ""},
		{CampaignPause, CampaignInProgress, false, "campaign is already in_progress"},
		{CampaignPause, CampaignPreparing, false, "campaign is preparing; it can be paused only when live"},
		{CampaignResume, CampaignInProgress, true, ""},
		{CampaignResume, CampaignCompleted, false, "campaign is completed; it can be resumed only when in_progress"},
		{CampaignResume, CampaignLive, false, "campaign is already live"},
		{CampaignComplete, CampaignLive, true, ""},
		{CampaignComplete, CampaignInProgress, true, ""},
		{CampaignComplete, CampaignDraft, false, "campaign is draft; it can be completed only when live or in_progress"},
		{CampaignComplete, CampaignCompleted, false, "campaign is already completed"},
	} {
		if got := tt.a.Allows(tt.from); got != tt.ok {
			t.Errorf("%s from %s: Allows = %v, want %v", tt.a.Name, tt.from, got, tt.ok)
		}
		if tt.ok {
			continue
		}
		err := tt.a.Refused(tt.from)
		if ErrorCode(err) != CodeConflict || ErrorMessage(err) != tt.msg {
			t.Errorf("%s from %s: Refused = %v (%s), want CONFLICT %q", tt.a.Name, tt.from, err, ErrorCode(err), tt.msg)
		}
	}
}

func TestSendsEmails(t *testing.T) {
	t.Parallel()
	for st, want := range map[CampaignStatus]bool{
		CampaignDraft: false, CampaignPreparing: true, CampaignLive: true, CampaignInProgress: false, CampaignCompleted: false,
	} {
		if got := (Campaign{Status: st}).SendsEmails(); got != want {
			t.Errorf("%s: SendsEmails = %v, want %v", st, got, want)
		}
	}
}

func TestSendsByKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status CampaignStatus
		want   []string
	}{
		{"draft sends nothing", CampaignDraft, nil},
		{"paused holds everything", CampaignInProgress, nil},
		{"live sends everything", CampaignLive, EmailKinds},
		{"preparing sends everything", CampaignPreparing, EmailKinds},
		{"completed sends only what follows delivery and acknowledgement", CampaignCompleted, []string{"postDelivery", "postAcknowledgement"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, k := range EmailKinds {
				if (Campaign{Status: tt.status}).Sends(k) {
					got = append(got, k)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Sends = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestStateLists keeps the state lists storage conditions writes on in
// step with the rules they stand for.
func TestStateLists(t *testing.T) {
	t.Parallel()
	for _, st := range CampaignStatuses {
		c := Campaign{Status: st}
		if got, want := slices.Contains(RecipientStatesAccepting, st), c.AcceptsRecipients(); got != want {
			t.Errorf("%s in RecipientStatesAccepting = %v, AcceptsRecipients = %v", st, got, want)
		}
		if got, want := slices.Contains(InvitingStates, st), c.AcceptsRecipients() && c.SendsEmails(); got != want {
			t.Errorf("%s in InvitingStates = %v, want %v", st, got, want)
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
		name    string
		prices  []float64
		want    int64
		wantErr bool
	}{
		{"no gifts", nil, 0, false},
		{"whole price", []float64{25}, 25, false},
		{"float noise", []float64{25.000000001}, 25, false},
		{"cents round up", []float64{12.01}, 13, false},
		{"the dearest gift", []float64{10, 34.5, 20}, 35, false},
		{"the highest price", []float64{MaxGiftPrice}, MaxGiftPrice, false},
		{"above the highest price", []float64{10, MaxGiftPrice + 0.01}, 0, true},
		{"beyond int64", []float64{1e20}, 0, true},
		{"negative", []float64{-1}, 0, true},
		{"not a number", []float64{math.NaN()}, 0, true},
		{"infinite", []float64{math.Inf(1)}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var gifts []Gift
			for _, p := range tt.prices {
				gifts = append(gifts, Gift{Price: p})
			}
			got, err := CreditsFor(gifts)
			if tt.wantErr {
				if ErrorCode(err) != CodeValidation {
					t.Errorf("CreditsFor = %d, %v; want VALIDATION_FAILED", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("CreditsFor = %d, %v; want %d", got, err, tt.want)
			}
		})
	}
}

func TestCatalogFloor(t *testing.T) {
	t.Parallel()
	own := Gift{GiftID: "own", Price: 500}
	for _, tt := range []struct {
		name  string
		gifts []Gift
		want  int64
	}{
		{"no gifts", nil, 0},
		{"own gifts only", []Gift{own}, 0},
		{"catalog gift", []Gift{{GiftID: "c", Price: 54.2, IsDelightloop: true}}, 55},
		{"own gift dearer than the catalog's", []Gift{own, {GiftID: "c", Price: 25, IsDelightloop: true}}, 25},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := CatalogFloor(tt.gifts); err != nil || got != tt.want {
				t.Errorf("CatalogFloor = %d, %v; want %d", got, err, tt.want)
			}
		})
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
