package wallet

import (
	"strconv"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// TopUpRequest is one operator top-up named by the operator's request id
// (an invoice number, a ticket): running it again with the same id, after a
// timeout or a crash, adds nothing.
type TopUpRequest struct {
	OrgID     string
	RequestID string
	Credits   int64
	Reason    string
}

// TopUpResult is what a top-up request did. When Replayed is true the
// request id had already been applied and nothing was written now: Entry is
// the ledger entry of that first run and Wallet the wallet as it is now.
type TopUpResult struct {
	RequestID string
	Replayed  bool
	Wallet    Wallet
	Entry     Entry
}

// TopUpRecord marks a request id as applied. It is written in the
// transaction of the top-up itself (Plan.Request), so the credits were
// added if and only if it exists, and it is kept for good: a late re-run
// must stay a no-op.
type TopUpRecord struct {
	RequestID string
	EntryID   string
	Credits   int64
	Reason    string
	CreatedAt time.Time
}

// CheckRequestID refuses a request id that cannot name a top-up (it
// becomes part of a key): VALIDATION_FAILED naming "request-id".
func CheckRequestID(id string) error {
	if !gifting.ValidID(id) {
		return &gifting.Error{Code: gifting.CodeValidation,
			Message: "the request id must be 1 to 128 letters, digits or . _ : -",
			Details: map[string]string{"request-id": "must be 1 to 128 letters, digits or . _ : -"}}
	}
	return nil
}

// Replays decides a request whose id rec shows applied: nil when r asks
// for what that run did (the answer is its entry), IDEMPOTENCY_KEY_REUSED
// when r asks for other credits or gives another reason.
func (r TopUpRequest) Replays(rec TopUpRecord) error {
	if rec.Credits != r.Credits || rec.Reason != r.Reason {
		return gifting.Errorf(gifting.CodeIdempotencyMismatch,
			"the request id %s already added %d credits (reason %s) on %s; use a new request id for a new top-up",
			strconv.Quote(r.RequestID), rec.Credits, strconv.Quote(rec.Reason), rec.CreatedAt.Format(time.RFC3339))
	}
	return nil
}

// Change is the balance change r asks for.
func (r TopUpRequest) Change() Change {
	return Change{OrgID: r.OrgID, Type: TopUp, Delta: r.Credits, Reason: r.Reason}
}

// Applying is p with the record that marks r applied, naming p's entry.
func (p Plan) Applying(r TopUpRequest) Plan {
	p.Request = &TopUpRecord{RequestID: r.RequestID, EntryID: p.Entry.EntryID, Credits: r.Credits, Reason: r.Reason,
		CreatedAt: p.Entry.CreatedAt}
	return p
}
