package wallet_test

import (
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

var now = time.Date(2026, 11, 23, 9, 2, 0, 0, time.UTC)

func change(typ wallet.EntryType, delta int64) wallet.Change {
	return wallet.Change{OrgID: "acme", Type: typ, Delta: delta, CampaignID: "c1", RecipientID: "r1", Reason: "test"}
}

// wantError checks err's code, message and details exactly: they are what
// the caller of the API or the CLI reads.
func wantError(t *testing.T, err error, code gifting.Code, msg string, details map[string]string) {
	t.Helper()
	var e *gifting.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v; want %s %q", err, code, msg)
	}
	if e.Code != code || e.Message != msg {
		t.Errorf("err = %s %q; want %s %q", e.Code, e.Message, code, msg)
	}
	if len(e.Details) != len(details) {
		t.Errorf("details %v; want %v", e.Details, details)
	}
	for k, v := range details {
		if e.Details[k] != v {
			t.Errorf("details %v; want %v", e.Details, details)
		}
	}
}

// TestDecideRefuses: whatever a caller computed, the wallet takes no debit
// that adds, no refund or top-up that takes, nothing beyond the bounds,
// no debit larger than the balance, and no change of a balance no change
// can have written.
func TestDecideRefuses(t *testing.T) {
	t.Parallel()
	wrong := func(typ string, delta int64) string {
		return "refused a \"" + typ + "\" change of " + strconv.FormatInt(delta, 10) + " credits to the wallet of acme: wrong sign or size"
	}
	for _, tt := range []struct {
		name    string
		balance int64
		c       wallet.Change
		code    gifting.Code
		msg     string
		details map[string]string
	}{
		{"a debit that adds (issue 11's wrapped launch)", 1000, change(wallet.Debit, 9_046_744_073_709_551_616/2),
			gifting.CodeInternal, wrong("debit", 4_523_372_036_854_775_808), nil},
		{"a debit beyond any balance", 1000, change(wallet.Debit, -wallet.MaxBalance-1),
			gifting.CodeInternal, wrong("debit", -wallet.MaxBalance-1), nil},
		{"the most negative debit", 1000, change(wallet.Debit, math.MinInt64),
			gifting.CodeInternal, wrong("debit", math.MinInt64), nil},
		{"a refund that takes", 1000, change(wallet.Refund, -5), gifting.CodeInternal, wrong("refund", -5), nil},
		{"an empty refund", 1000, change(wallet.Refund, 0), gifting.CodeInternal, wrong("refund", 0), nil},
		{"a top-up that takes", 1000, change(wallet.TopUp, -5), gifting.CodeInternal, wrong("top_up", -5), nil},
		{"a top-up above the bound", 1000, change(wallet.TopUp, wallet.MaxTopUp+1),
			gifting.CodeInternal, wrong("top_up", wallet.MaxTopUp+1), nil},
		{"an unknown type", 1000, change("gift", 5), gifting.CodeInternal, wrong("gift", 5), nil},
		{"a refund past the most a wallet holds", 1000, change(wallet.Refund, wallet.MaxBalance), gifting.CodeInternal,
			"refused a \"refund\" change of 1000000000000000 credits to the wallet of acme: the balance 1000 would pass the most a wallet holds", nil},
		{"a debit larger than the balance", 1000, change(wallet.Debit, -1001),
			gifting.CodeInsufficientCredits, "this needs 1001 credits but the wallet holds 1000", nil},
		{"a debit of an empty wallet", 0, change(wallet.Debit, -10),
			gifting.CodeInsufficientCredits, "this needs 10 credits but the wallet holds 0", nil},
		{"a top-up past the most a wallet holds", wallet.MaxBalance - 1000, change(wallet.TopUp, 1001), gifting.CodeValidation,
			"a wallet holds at most 1000000000000000 credits; this one holds 999999999999000",
			map[string]string{"credits": "must be at most 1000 here"}},
		{"a debit of issue 11's minted balance", 9046744073709552616, change(wallet.Debit, -1), gifting.CodeInternal,
			"the wallet of acme holds 9046744073709552616 credits, outside 0 to 1000000000000000: refusing to change it", nil},
		{"an empty debit of a damaged balance", 9046744073709552616, change(wallet.Debit, 0), gifting.CodeInternal,
			"the wallet of acme holds 9046744073709552616 credits, outside 0 to 1000000000000000: refusing to change it", nil},
		{"a refund to a negative balance", -5, change(wallet.Refund, 10), gifting.CodeInternal,
			"the wallet of acme holds -5 credits, outside 0 to 1000000000000000: refusing to change it", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := wallet.Decide(tt.balance, tt.c, "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", now)
			if err == nil {
				t.Fatalf("Decide = %+v; want %s", p, tt.code)
			}
			wantError(t, err, tt.code, tt.msg, tt.details)
			if wallet.Short(err) != (tt.code == gifting.CodeInsufficientCredits) {
				t.Errorf("Short(%v) = %v", err, wallet.Short(err))
			}
		})
	}
}

// TestDecidePlans: an allowed change plans the balance after it and a
// ledger entry that records it with a positive amount, the caller's
// campaign, recipient and reason, the id and time given, and the change
// message of its type.
func TestDecidePlans(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name           string
		balance        int64
		c              wallet.Change
		after, amount  int64
		wantMessageTyp string
	}{
		{"a recipient of a free campaign of the org's own gifts", 1000, change(wallet.Debit, 0), 1000, 0, gifting.ChangeWalletDebited},
		{"a debit of the whole balance", 1000, change(wallet.Debit, -1000), 0, 1000, gifting.ChangeWalletDebited},
		{"a refund", 0, change(wallet.Refund, 400), 400, 400, gifting.ChangeWalletRefunded},
		{"the largest top-up", 400, change(wallet.TopUp, wallet.MaxTopUp), 400 + wallet.MaxTopUp, wallet.MaxTopUp, gifting.ChangeWalletToppedUp},
		{"a top-up to the brim", wallet.MaxBalance - 1000, change(wallet.TopUp, 1000), wallet.MaxBalance, 1000, gifting.ChangeWalletToppedUp},
		{"the largest debit", wallet.MaxBalance, change(wallet.Debit, -wallet.MaxBalance), 0, wallet.MaxBalance, gifting.ChangeWalletDebited},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := wallet.Decide(tt.balance, tt.c, "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", now)
			if err != nil {
				t.Fatal(err)
			}
			want := wallet.Plan{OrgID: "acme", Before: tt.balance, After: tt.after, Entry: wallet.Entry{
				EntryID: "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", Type: tt.c.Type, Amount: tt.amount, BalanceAfter: tt.after,
				CampaignID: "c1", RecipientID: "r1", Reason: "test", CreatedAt: now,
			}}
			if p.OrgID != want.OrgID || p.Before != want.Before || p.After != want.After || p.Entry != want.Entry || p.Request != nil {
				t.Errorf("Decide = %+v\nwant     %+v", p, want)
			}
			if m := p.Message(); m.Type != tt.wantMessageTyp || m.Data != p.Entry {
				t.Errorf("message %s %+v; want %s with the entry", m.Type, m.Data, tt.wantMessageTyp)
			}
		})
	}
}

// TestCheckTopUp: an operator adds 1 to MaxTopUp credits at once.
func TestCheckTopUp(t *testing.T) {
	t.Parallel()
	for _, credits := range []int64{0, -1, wallet.MaxTopUp + 1, math.MinInt64} {
		wantError(t, wallet.CheckTopUp(credits), gifting.CodeValidation, "credits must be a whole number from 1 to 1000000000",
			map[string]string{"credits": "must be from 1 to 1000000000"})
	}
	for _, credits := range []int64{1, wallet.MaxTopUp} {
		if err := wallet.CheckTopUp(credits); err != nil {
			t.Errorf("CheckTopUp(%d) = %v", credits, err)
		}
	}
}

// TestTopUpRequest: a request id names a top-up once; a repeat asking for
// the same is answered with the first run's entry, one asking for other
// credits or another reason is IDEMPOTENCY_KEY_REUSED.
func TestTopUpRequest(t *testing.T) {
	t.Parallel()
	r := wallet.TopUpRequest{OrgID: "acme", RequestID: "inv-7", Credits: 50, Reason: "invoice 7"}
	for _, id := range []string{"", "inv 7", "inv/7"} {
		wantError(t, wallet.CheckRequestID(id), gifting.CodeValidation, "the request id must be 1 to 128 letters, digits or . _ : -",
			map[string]string{"request-id": "must be 1 to 128 letters, digits or . _ : -"})
	}
	if err := wallet.CheckRequestID(r.RequestID); err != nil {
		t.Errorf("CheckRequestID(%q) = %v", r.RequestID, err)
	}

	p, err := wallet.Decide(100, r.Change(), "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", now)
	if err != nil {
		t.Fatal(err)
	}
	p = p.Applying(r)
	rec := wallet.TopUpRecord{RequestID: "inv-7", EntryID: "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", Credits: 50, Reason: "invoice 7", CreatedAt: now}
	if p.Request == nil || *p.Request != rec || p.After != 150 || p.Entry.Type != wallet.TopUp || p.Entry.Reason != "invoice 7" {
		t.Errorf("plan %+v with record %+v; want 150 after, the record %+v", p, p.Request, rec)
	}

	if err := r.Replays(rec); err != nil {
		t.Errorf("the same request again: %v", err)
	}
	for _, other := range []wallet.TopUpRequest{
		{OrgID: "acme", RequestID: "inv-7", Credits: 60, Reason: "invoice 7"},
		{OrgID: "acme", RequestID: "inv-7", Credits: 50, Reason: "invoice 8"},
	} {
		wantError(t, other.Replays(rec), gifting.CodeIdempotencyMismatch,
			`the request id "inv-7" already added 50 credits (reason "invoice 7") on 2026-11-23T09:02:00Z; use a new request id for a new top-up`, nil)
	}
}
