package contact

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// MaxBulk is the most contacts, or contact ids, one bulk add takes.
const MaxBulk = 100

// CheckBulk decides whether a bulk add may run: it sends contacts or
// contact ids (sent says which fields were present), not both, at least
// one and at most MaxBulk. Errors: VALIDATION_FAILED naming the field.
func CheckBulk(contactsSent, idsSent bool, contacts, ids int) error {
	var p gifting.Problems
	switch {
	case contactsSent && idsSent:
		p.Add("contacts", "send either contacts or contactIds, not both")
	case contacts == 0 && ids == 0:
		p.Add("contacts", "send at least one contact (contacts) or contact id (contactIds)")
	case contacts > MaxBulk:
		p.Add("contacts", fmt.Sprintf("at most %d contacts per request; split the import into batches of %d", MaxBulk, MaxBulk))
	case ids > MaxBulk:
		p.Add("contactIds", fmt.Sprintf("at most %d contact ids per request; split them into batches of %d", MaxBulk, MaxBulk))
	}
	return p.Err()
}

// Statuses of one item of a bulk add.
const (
	StatusCreated   = "created"
	StatusMerged    = "merged"
	StatusAdded     = "added"
	StatusUnchanged = "unchanged"
	StatusFailed    = "failed"
)

// BulkResult reports a bulk add item by item, with totals per status.
type BulkResult struct {
	Items     []Item
	Created   int
	Merged    int
	Added     int
	Unchanged int
	Failed    int
}

// Add records one item's outcome.
func (r *BulkResult) Add(it Item) {
	r.Items = append(r.Items, it)
	switch it.Status {
	case StatusCreated:
		r.Created++
	case StatusMerged:
		r.Merged++
	case StatusAdded:
		r.Added++
	case StatusUnchanged:
		r.Unchanged++
	default:
		r.Failed++
	}
}

// Item is what happened to one item of a bulk add: created, merged (into
// the contact with the same email), added (an existing contact joined the
// list), unchanged (it was already in the list) or failed (with the
// reason, and for invalid input the problem with each field).
type Item struct {
	Index     int
	Status    string
	ContactID string
	MailID    string
	Reason    string
	Details   map[string]string
}

// Fail marks the item failed because of err. Internal errors are reported
// without their text, which may hold details that must not leak.
func (it *Item) Fail(err error) {
	it.Status, it.Reason = StatusFailed, gifting.ErrorMessage(err)
	if gifting.ErrorCode(err) == gifting.CodeInternal {
		it.Reason = "the contact could not be saved; retry this item"
	}
	var e *gifting.Error
	if errors.As(err, &e) && e.Details != nil {
		it.Details = e.Details
		keys := make([]string, 0, len(e.Details))
		for k := range e.Details {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + " " + e.Details[k]
		}
		it.Reason = strings.Join(parts, "; ")
	}
}

// Failed is the item at index that failed because of err.
func Failed(index int, mailID string, err error) Item {
	it := Item{Index: index, MailID: mailID}
	it.Fail(err)
	return it
}

// Batch is a chunk of a bulk add of inputs as the slice takes it: each
// input validated on its own, and the later inputs for an email folded
// into the first (Absorb), so one write creates or merges each email's
// contact.
type Batch struct {
	// Inputs are the distinct emails' inputs, in the order each email
	// first came.
	Inputs []Input
	// owner is, for each input given, the index in Inputs of the input it
	// went into, -1 when it was refused; invalid is why.
	owner   []int
	invalid []error
	mails   []string
}

// NewBatch validates inputs and folds the repeats of an email together.
// An input that is invalid, or whose tags would be too many once folded
// in, fails alone.
func NewBatch(inputs []Input) Batch {
	b := Batch{owner: make([]int, len(inputs)), invalid: make([]error, len(inputs)), mails: make([]string, len(inputs))}
	byEmail := map[string]int{}
	for i, in := range inputs {
		b.owner[i] = -1
		if err := in.Validate(); err != nil {
			b.invalid[i] = err
			b.mails[i], _ = gifting.NormalizeEmail(inputs[i].MailID)
			continue
		}
		b.mails[i] = in.MailID
		if k, ok := byEmail[in.MailID]; ok {
			if err := b.Inputs[k].Absorb(in); err != nil {
				b.invalid[i] = err
				continue
			}
			b.owner[i] = k
			continue
		}
		byEmail[in.MailID] = len(b.Inputs)
		b.owner[i] = len(b.Inputs)
		b.Inputs = append(b.Inputs, in)
	}
	return b
}

// Results reports each input given, from offset on: what happened to the
// write of the input it went into (plans and errs, aligned with Inputs).
// An email's repeats after the first are merged into the same contact.
func (b Batch) Results(offset int, plans []Plan, errs []error) []Item {
	out := make([]Item, len(b.owner))
	reported := make([]bool, len(b.Inputs))
	for i, k := range b.owner {
		switch {
		case b.invalid[i] != nil:
			out[i] = Failed(offset+i, b.mails[i], b.invalid[i])
		case errs[k] != nil:
			out[i] = Failed(offset+i, b.Inputs[k].MailID, errs[k])
		default:
			p := plans[k]
			out[i] = Item{Index: offset + i, Status: p.Status, ContactID: p.Contact.ContactID, MailID: p.Contact.MailID}
			if reported[k] {
				out[i].Status = StatusMerged
			}
			reported[k] = true
		}
	}
	return out
}
