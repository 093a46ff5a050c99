package dynamo

import "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

// Names of the conditioned items of transactions. A cancelled transaction
// says which item's condition failed by its position; txn remembers the
// position of each named item, so the failure maps to a named domain error
// (a-h/stream's way), never to a bare index.
const (
	condCampaign    = "campaign"    // the campaign in the state the writer read
	condRecipient   = "recipient"   // a recipient new, or at the version read
	condIdempotency = "idempotency" // no live record of the Idempotency-Key
	condLaunch      = "launch"      // the launch record, written once
	condEmail       = "email"       // the email marker of a contact
	condTarget      = "target"      // the item a delete removes, which must exist
	condAudience    = "audience"    // the audience as its build left it
	condTopUp       = "top-up"      // no top-up under the operator's request id yet
)

// txn builds a transaction's items, remembering which item carries which
// condition.
type txn struct {
	items []types.TransactWriteItem
	at    map[string]int
}

// add appends items; the first of them is named name ("" names none).
func (t *txn) add(name string, items ...types.TransactWriteItem) {
	if name != "" && len(items) > 0 {
		if t.at == nil {
			t.at = map[string]int{}
		}
		t.at[name] = len(t.items)
	}
	t.items = append(t.items, items...)
}

// failed reports whether the item named name failed its condition among a
// cancelled transaction's reasons.
func (t *txn) failed(reasons []types.CancellationReason, name string) bool {
	i, ok := t.at[name]
	return ok && reasonCode(reasons, i) == "ConditionalCheckFailed"
}

// old is the item named name as it stood when its condition failed (the
// item returned with ReturnValuesOnConditionCheckFailure), nil when none.
func (t *txn) old(reasons []types.CancellationReason, name string) item {
	i, ok := t.at[name]
	if !ok || i >= len(reasons) {
		return nil
	}
	return reasons[i].Item
}
