package erasure

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// JobErase is the job kind that erases a person, one step slice at a time.
const JobErase = "contact.erase"

// The kinds of records a receipt counts, in the order the job erases them
// (Steps).
const (
	KindContact         = "contact"
	KindRecipient       = "recipient"
	KindOrder           = "order"
	KindAudienceMember  = "audienceMember"
	KindMessage         = "sentMessage"
	KindSuppression     = "suppression"
	KindChangeRecord    = "changeRecord"
	KindLedgerEntry     = "ledgerEntry"
	KindWebhookDelivery = "webhookDelivery"
	KindIdempotency     = "idempotencyRecord"
	// KindImportRecord: a contact import's job and failed rows, which
	// hold rows as the file gave them.
	KindImportRecord = "importRecord"
	// KindSandboxEmail: a sandbox's captured emails (docs/sandbox.md),
	// which hold the address, the names and the note as sent. A live
	// organization has none.
	KindSandboxEmail = "sandboxEmail"
)

// Steps is the order of the job's steps, one kind of record each. The
// records that copy others (change records, webhook deliveries, stored
// replies, captured emails) come last, after the writes of the steps
// before them. A job saves its step's number: a new step goes at the end,
// so a job under way when it is added does it too.
var Steps = []string{KindContact, KindRecipient, KindOrder, KindAudienceMember, KindMessage, KindSuppression,
	KindImportRecord, KindChangeRecord, KindLedgerEntry, KindWebhookDelivery, KindIdempotency, KindSandboxEmail}

// The job's states.
const (
	Running = "running"
	Done    = "done"
)

// RecipientRef names one recipient of the person.
type RecipientRef struct {
	CampaignID  string `json:"campaignId"`
	RecipientID string `json:"recipientId"`
}

// Job is an erasure's record: where it is, what it found of the person
// (kept only while it runs) and what it erased.
type Job struct {
	ContactID  string         `json:"contactId"`
	Status     string         `json:"status"`
	Step       int            `json:"step"`
	Cursor     string         `json:"cursor,omitempty"`
	Person     Person         `json:"person"`
	Recipients []RecipientRef `json:"recipients,omitempty"`
	Messages   []string       `json:"messages,omitempty"`
	Erased     map[string]int `json:"erased"`
	StartedAt  time.Time      `json:"startedAt"`
	FinishedAt *time.Time     `json:"finishedAt,omitempty"`
	// Version is the record's version as read: a save expects it.
	Version int64 `json:"ver"`
}

// recordSkew is how much earlier than its campaign's id a ledger entry or
// an order of a recipient may be stamped: the ids come from the clocks of
// different processes.
const recordSkew = time.Hour

// RecordsFrom is where the walks of the ledger and of the orders start.
// A ledger entry about the person is a balance change of one of their
// recipients (its debit, its refund), an order about them the claim of
// one; both are written after the recipient's campaign was created, and
// are keyed by ids of the time they were written, as the campaign is: so
// the walks start at the oldest of the person's campaigns (less
// recordSkew), not at the organization's first record. walk is false when
// the person was never a recipient (no entry or order is about them); from
// is zero (the whole walk) when a campaign's id holds no time.
func (j Job) RecordsFrom() (from time.Time, walk bool) {
	for i, r := range j.Recipients {
		t, ok := gifting.IDTime(r.CampaignID)
		if !ok {
			return time.Time{}, true
		}
		if i == 0 || t.Before(from) {
			from = t
		}
	}
	if len(j.Recipients) == 0 {
		return time.Time{}, false
	}
	return from.Add(-recordSkew), true
}

// Store is what the erasure needs of storage (shared/dynamo).
type Store interface {
	Now() time.Time
	// Erasure reads the record of contactID's erasure; found false when
	// none was started.
	Erasure(ctx context.Context, orgID, contactID string) (j Job, found bool, err error)
	// SaveErasure writes j if its version is still j.Version (a new record
	// when 0), due again after a lease while it runs; ErrChanged when
	// another run saved first.
	SaveErasure(ctx context.Context, orgID string, j Job) error
	// ErasureSubject reads contactID, live or deleted (live false), and
	// every recipient it became in any campaign. NOT_FOUND when the
	// organization never had it.
	ErasureSubject(ctx context.Context, orgID, contactID string) (c gifting.Contact, live bool, rs []recipient.Recipient, err error)
	// EraseSlice does one slice of step kind of j with s: it writes what
	// the rules return (Recipient) or what s makes of each stored text,
	// deletes entries whose keys hold personal data, and returns how
	// many records it changed and where the next slice starts ("" when
	// the step is done).
	EraseSlice(ctx context.Context, orgID string, j Job, kind string, s *Scrubber) (erased int, next string, err error)
}

// ErrChanged is storage's report that the record moved on since read.
var ErrChanged = errors.New("the erasure record changed")

// ErrNoContact is storage's report that the organization has no contact,
// live or deleted, of that id.
var ErrNoContact = errors.New("no such contact")

// Contacts deletes a live contact the way DELETE does (its lists, counts,
// email and search entries), so the erasure leaves the organization's
// figures as a delete would.
type Contacts interface {
	DeleteContact(ctx context.Context, orgID, contactID string) error
}

// App runs erasures.
type App struct {
	store    Store
	contacts Contacts
}

// NewApp returns the erasure use cases.
func NewApp(store Store, contacts Contacts) *App { return &App{store: store, contacts: contacts} }

// Start begins the erasure of contactID, or returns the one begun
// already (a second request starts nothing). Errors: NOT_FOUND.
func (a *App) Start(ctx context.Context, orgID, contactID string) (Job, error) {
	if !gifting.ValidID(contactID) {
		return Job{}, gifting.NotFound("contact", contactID)
	}
	if j, found, err := a.store.Erasure(ctx, orgID, contactID); err != nil || found {
		return j, err
	}
	c, _, rs, err := a.store.ErasureSubject(ctx, orgID, contactID)
	if errors.Is(err, ErrNoContact) {
		return Job{}, gifting.NotFound("contact", contactID)
	} else if err != nil {
		return Job{}, err
	}
	j := Job{ContactID: contactID, Status: Running, Erased: map[string]int{}, StartedAt: a.store.Now()}
	j.Person.AddContact(c)
	j.Person.IDs = append(j.Person.IDs, contactID)
	for _, r := range rs {
		j.Person.IDs = append(j.Person.IDs, r.RecipientID)
		j.Person.AddRecipient(r)
		j.Recipients = append(j.Recipients, RecipientRef{CampaignID: r.CampaignID, RecipientID: r.RecipientID})
		j.Messages = append(j.Messages, MessageIDs(r)...)
	}
	if err := a.store.SaveErasure(ctx, orgID, j); errors.Is(err, ErrChanged) {
		j, _, err = a.store.Erasure(ctx, orgID, contactID) // a concurrent request started it
		return j, err
	} else if err != nil {
		return Job{}, err
	}
	j.Version = 1
	return j, nil
}

// Receipt reads contactID's erasure. Errors: NOT_FOUND.
func (a *App) Receipt(ctx context.Context, orgID, contactID string) (Job, error) {
	j, found, err := a.store.Erasure(ctx, orgID, contactID)
	if err == nil && !found {
		err = gifting.Errorf(gifting.CodeNotFound, "no erasure of contact %s was requested", contactID)
	}
	return j, err
}

// RunSlice does one slice of contactID's erasure and saves where it
// stopped: done is true when the erasure is over (or another run has the
// record: it goes on from there). A slice that fails leaves the record as
// it was: the next run does it again, which changes nothing already
// erased (each write replaces values by fixed ones).
func (a *App) RunSlice(ctx context.Context, orgID, contactID string) (done bool, err error) {
	j, found, err := a.store.Erasure(ctx, orgID, contactID)
	if err != nil || !found || j.Status == Done {
		return true, err
	}
	kind := Steps[j.Step]
	if kind == KindContact && j.Cursor == "" {
		if err := a.deleteContact(ctx, orgID, contactID); err != nil {
			return false, err
		}
	}
	n, next, err := a.store.EraseSlice(ctx, orgID, j, kind, NewScrubber(j.Person))
	if err != nil {
		return false, fmt.Errorf("erase %s: %w", kind, err)
	}
	j.Erased[kind] += n
	j.Cursor = next
	if next == "" {
		j.Step++
	}
	if j.Step == len(Steps) {
		now := a.store.Now()
		j.Status, j.FinishedAt, j.Person, j.Recipients, j.Messages = Done, &now, Person{}, nil, nil
	}
	if err := a.store.SaveErasure(ctx, orgID, j); err != nil {
		return errors.Is(err, ErrChanged), ignoreChanged(err)
	}
	return j.Status == Done, nil
}

// deleteContact deletes the contact if it is still live (a deleted one is
// NOT_FOUND to DELETE: nothing more to do).
func (a *App) deleteContact(ctx context.Context, orgID, contactID string) error {
	err := a.contacts.DeleteContact(ctx, orgID, contactID)
	if err != nil && gifting.ErrorCode(err) == gifting.CodeNotFound {
		return nil
	}
	return err
}

// ignoreChanged drops ErrChanged: another run saved the record first and
// goes on from there.
func ignoreChanged(err error) error {
	if errors.Is(err, ErrChanged) {
		return nil
	}
	return err
}
