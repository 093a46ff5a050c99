package campaign

import (
	"math"
	"slices"
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
)

func TestCampaignMoves(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		from, to Status
		ok       bool
	}{
		{Draft, Preparing, true},
		{Preparing, Live, true},
		{Live, Completed, true},
		{Live, InProgress, true},
		{InProgress, Live, true},
		{InProgress, Completed, true},
		{Preparing, Completed, false},
		{Draft, Completed, false},
		{Completed, InProgress, false},
		{Draft, Live, false},
		{Live, Preparing, false},
		{Preparing, Draft, false},
		{Completed, Live, false},
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
	for _, a := range Actions {
		for _, from := range Statuses {
			if a.Allows(from) && !CanMove(from, a.To) {
				t.Errorf("%s allows %s → %s, which the state machine does not", a.Name, from, a.To)
			}
		}
	}
	for _, tt := range []struct {
		a    Action
		from Status
		ok   bool
		msg  string
	}{
		{Pause, Live, true, ""},
		{Pause, InProgress, false, "campaign is already in_progress"},
		{Pause, Preparing, false, "campaign is preparing; it can be paused only when live"},
		{Resume, InProgress, true, ""},
		{Resume, Completed, false, "campaign is completed; it can be resumed only when in_progress"},
		{Resume, Live, false, "campaign is already live"},
		{Complete, Live, true, ""},
		{Complete, InProgress, true, ""},
		{Complete, Draft, false, "campaign is draft; it can be completed only when live or in_progress"},
		{Complete, Completed, false, "campaign is already completed"},
	} {
		if got := tt.a.Allows(tt.from); got != tt.ok {
			t.Errorf("%s from %s: Allows = %v, want %v", tt.a.Name, tt.from, got, tt.ok)
		}
		if tt.ok {
			continue
		}
		err := tt.a.Refused(tt.from)
		if gifting.ErrorCode(err) != gifting.CodeConflict || gifting.ErrorMessage(err) != tt.msg {
			t.Errorf("%s from %s: Refused = %v (%s), want CONFLICT %q", tt.a.Name, tt.from, err, gifting.ErrorCode(err), tt.msg)
		}
	}
}

func TestSendsEmails(t *testing.T) {
	t.Parallel()
	for st, want := range map[Status]bool{
		Draft: false, Preparing: true, Live: true, InProgress: false, Completed: false,
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
		status Status
		want   []string
	}{
		{"draft sends nothing", Draft, nil},
		{"paused holds everything", InProgress, nil},
		{"live sends everything", Live, gifting.EmailKinds},
		{"preparing sends everything", Preparing, gifting.EmailKinds},
		{"completed sends only what follows shipment, delivery and acknowledgement", Completed, []string{"shipped", "postDelivery", "postAcknowledgement"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, k := range gifting.EmailKinds {
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
	for _, st := range Statuses {
		c := Campaign{Status: st}
		if got, want := slices.Contains(AcceptingStates, st), c.AcceptsRecipients(); got != want {
			t.Errorf("%s in AcceptingStates = %v, AcceptsRecipients = %v", st, got, want)
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
		{Campaign{Status: Draft}, true},
		{Campaign{Status: Preparing}, true},
		{Campaign{Status: Live}, true},
		{Campaign{Status: InProgress}, true},
		{Campaign{Status: Completed}, false},
		{Campaign{Status: Live, IsDeleted: true}, false},
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
		{"the highest price", []float64{gifting.MaxGiftPrice}, gifting.MaxGiftPrice, false},
		{"above the highest price", []float64{10, gifting.MaxGiftPrice + 0.01}, 0, true},
		{"beyond int64", []float64{1e20}, 0, true},
		{"negative", []float64{-1}, 0, true},
		{"not a number", []float64{math.NaN()}, 0, true},
		{"infinite", []float64{math.Inf(1)}, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var gifts []gifting.Gift
			for _, p := range tt.prices {
				gifts = append(gifts, gifting.Gift{Price: p})
			}
			got, err := CreditsFor(gifts)
			if tt.wantErr {
				if gifting.ErrorCode(err) != gifting.CodeValidation {
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
	own := gifting.Gift{GiftID: "own", Price: 500}
	for _, tt := range []struct {
		name  string
		gifts []gifting.Gift
		want  int64
	}{
		{"no gifts", nil, 0},
		{"own gifts only", []gifting.Gift{own}, 0},
		{"catalog gift", []gifting.Gift{{GiftID: "c", Price: 54.2, IsDelightloop: true}}, 55},
		{"own gift dearer than the catalog's", []gifting.Gift{own, {GiftID: "c", Price: 25, IsDelightloop: true}}, 25},
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
	c := Campaign{CampaignID: "c1", Status: Live, TotalRecipients: 3, LiveData: LiveData{
		StatusCounts:  map[gifting.RecipientStatus]int64{gifting.RecipientInviteSent: 1, gifting.RecipientShipped: 1, gifting.RecipientAcknowledged: 1},
		FeedbackCount: 1,
	}}
	m := c.Metrics()
	want := Rates{AddressConfirmation: 0.6667, Delivery: 0.3333, Acknowledgement: 0.3333, Feedback: 0.3333}
	if m.Rates != want || len(m.StatusCounts) != len(gifting.RecipientStatuses) {
		t.Errorf("rates %+v, %d statuses; want %+v and every status", m.Rates, len(m.StatusCounts), want)
	}
	if z := (Campaign{}).Metrics(); z.Rates != (Rates{}) {
		t.Errorf("no recipients: rates %+v, want zeros", z.Rates)
	}
}
