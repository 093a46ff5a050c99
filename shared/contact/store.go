package contact

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// Store is what the contact use cases need of storage: loads, and the
// commits of decided contacts and lists. shared/dynamo's Store implements
// it; it decides nothing, and reports what it found as the outcomes below.
type Store interface {
	// Now is the store's clock and NewID an id from it.
	Now() time.Time
	NewID() string

	// Contact reads a live contact of orgID (strongly consistent);
	// ErrNotFound when there is none, or it was deleted.
	Contact(ctx context.Context, orgID, contactID string) (Contact, error)
	// Contacts reads the live contacts ids name (100 to a request), in
	// the order of ids; missing and deleted ones are left out.
	Contacts(ctx context.Context, orgID string, ids []string) ([]Contact, error)
	// ListedContacts is Contacts for a page whose ids came from an index
	// (a list's members): eventually consistent, as the index is, at
	// half the read units; no rule may decide on what it reads.
	ListedContacts(ctx context.Context, orgID string, ids []string) ([]Contact, error)
	// ContactPage reads a page of orgID's live contacts in the list
	// index's order (by first list, newest list first, contacts in no
	// list last; then newest contact first): a page's worth of reads and
	// the keys skipped. It reads the keys one past the page's end and
	// says how many it read from the start, beside the contacts' count as
	// kept (which trails the contacts while an import runs).
	ContactPage(ctx context.Context, orgID string, page gifting.PageRequest) (ContactPage, error)
	// SearchContacts reads the page of orgID's live contacts q finds (in
	// q.ListID when set), in the list index's order, and how many it
	// finds: the entries of q.Lead's token, never the whole index, when
	// q has a Lead.
	SearchContacts(ctx context.Context, orgID string, q Search, page gifting.PageRequest) ([]Contact, int, error)
	// Candidates yields, newest first and a hundred at a time, orgID's
	// live contacts whose search text holds q's LinkedIn URL or all of
	// its name and company (lookalikes too: Match decides). The consumer
	// stops reading when it has its answer.
	Candidates(ctx context.Context, orgID string, q Query) iter.Seq2[[]Contact, error]

	// OpenImport reads the list a bulk add fills, and what reading the
	// emails' holdings needs; ErrListNotFound when there is no list.
	OpenImport(ctx context.Context, orgID, listID string) (Import, error)
	// Holdings reads who has each of emails (validated, distinct),
	// aligned with them.
	Holdings(ctx context.Context, orgID string, imp Import, emails []string) ([]Holding, error)
	// Holding reads who has one email (validated), reading again when
	// the contact named went meanwhile.
	Holding(ctx context.Context, orgID, email string) (Holding, error)
	// CommitContacts writes each plan but the unchanged (new contacts
	// together, the others each on its own, several at once) and reports
	// each one's outcome, aligned with plans: nil when written,
	// ErrSlotTaken for a new contact whose email another write took
	// first, ErrChanged for a contact that moved on from its Stored (or
	// a contended write), or the error that stopped it.
	CommitContacts(ctx context.Context, orgID string, plans []Plan) []error
	// CommitCounts adds created to orgID's count of contacts and
	// joined[list] to each list's count (once for many writes, after
	// them, so a count only ever counts what exists). It returns the
	// lists that were gone: those counts did not move.
	// opened says OpenCounts was called for these writes: the count
	// closes it in the same write.
	CommitCounts(ctx context.Context, orgID string, created int64, joined map[string]int64, opened bool) (gone []string, err error)
	// OpenCounts marks writes of contacts begun whose count is still to
	// come (the contacts count may be short of the contacts until their
	// CommitCounts).
	OpenCounts(ctx context.Context, orgID string) error
	// CommitContact writes after over before, moving the email from
	// before's to after's when it changed, in one transaction.
	// ErrEmailTaken when another contact has after's email, ErrChanged
	// when before moved on; nothing is written then.
	CommitContact(ctx context.Context, orgID string, before, after Contact) error
	// CommitContactDelete deletes before, keeping gone as its record: its email
	// is released, it leaves every list (and their counts, of those live
	// says exist; every list when live is nil) and the organization's
	// count, in one transaction. ErrChanged when before moved on (or a
	// list went); nothing is written then.
	CommitContactDelete(ctx context.Context, orgID string, before, gone Contact, live map[string]bool) error
	// ExistingLists reports which of listIDs exist.
	ExistingLists(ctx context.Context, orgID string, listIDs []string) (map[string]bool, error)

	// List reads a list; ErrListNotFound when there is none.
	List(ctx context.Context, orgID, listID string) (List, error)
	// Lists reads every list of orgID.
	Lists(ctx context.Context, orgID string) ([]List, error)
	// MemberIDs reads up to n (all when n < 0) member ids of a list: the
	// contacts whose first list it is, newest first, then the others.
	MemberIDs(ctx context.Context, orgID, listID string, n int) ([]string, error)
	// CommitNewList writes l, new.
	CommitNewList(ctx context.Context, l List) error
	// CommitListEdit writes l's name, description and updatedAt (its
	// count moves on its own) and returns the list as stored;
	// ErrListNotFound when it is gone.
	CommitListEdit(ctx context.Context, l List) (List, error)
	// CommitListDelete deletes l for good and leaves its tombstone, due
	// for the job that drops its memberships (JobListDelete), checking in
	// the same transaction that each of drafts is still the draft read.
	// ErrListNotFound when it is gone, a *DraftChanged when a draft
	// changed; nothing is deleted then.
	CommitListDelete(ctx context.Context, l List, drafts []refcheck.Referrer) error
	// CampaignsReferring reads orgID's campaigns, deleted ones too, that
	// refer to ref.
	CampaignsReferring(ctx context.Context, orgID string, ref gifting.Ref) ([]refcheck.Referrer, error)
	// CommitLeave writes after, before without listID, and takes its
	// membership of the list away; the list's count drops with it when
	// counted (the list is live). ErrChanged when before moved on,
	// ErrListNotFound when a counted list is gone.
	CommitLeave(ctx context.Context, orgID, listID string, before, after Contact, counted bool) error
	// CommitMemberGone drops the membership of a contact that is gone.
	CommitMemberGone(ctx context.Context, orgID, listID, contactID string) error
	// CommitListPurged removes a deleted list's tombstone: its
	// memberships are gone.
	CommitListPurged(ctx context.Context, orgID, listID string) error
	// CommitListProgress records that a deleted list's job advanced: its
	// tombstone is due a lease later.
	CommitListProgress(ctx context.Context, orgID, listID string) error
}

// ContactPage is a page of contacts as ContactPage reads it.
type ContactPage struct {
	Contacts []Contact
	// Counted is the contacts' count as kept; Read how many keys were
	// read from the start (gifting.PageTotal makes the total of them).
	Counted int
	Read    int
}

// Import is a bulk add's list as storage opened it (OpenImport).
type Import struct {
	ListID string
	// Legacy is storage's: emails of the organization may still be held
	// the way contacts were stored before, which reading a holding then
	// looks for too.
	Legacy bool
}

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrNotFound: the organization has no such live contact.
	ErrNotFound = errors.New("no such contact")
	// ErrListNotFound: the organization has no such list.
	ErrListNotFound = errors.New("no such contact list")
	// ErrChanged: the stored contact is no longer what the write was
	// decided from (another write committed first), or the write met a
	// conflict or throttling; deciding again from a new read may
	// succeed.
	ErrChanged = errors.New("the stored contact changed")
	// ErrSlotTaken: a new contact's email was taken by another write
	// first (a concurrent import of the same email): read who has it and
	// merge into that contact.
	ErrSlotTaken = errors.New("the email was taken meanwhile")
	// ErrEmailTaken: another contact has the email a contact was to get.
	ErrEmailTaken = errors.New("another contact has the email")
	// ErrDraftChanged: a draft campaign that referred to the list a
	// delete removes changed meanwhile. The error is a *DraftChanged.
	ErrDraftChanged = errors.New("a referring draft changed")
)

// DraftChanged is ErrDraftChanged with the draft that changed.
type DraftChanged struct{ CampaignID, Name string }

func (d *DraftChanged) Error() string {
	return fmt.Sprintf("%v: campaign %s", ErrDraftChanged, d.CampaignID)
}

func (d *DraftChanged) Is(target error) bool { return target == ErrDraftChanged }

// NotFound and ListNotFound are the errors a user sees for ErrNotFound
// and ErrListNotFound: NOT_FOUND naming what was asked for.
func NotFound(contactID string) error  { return gifting.NotFound("contact", contactID) }
func ListNotFound(listID string) error { return gifting.NotFound(gifting.RefContactList, listID) }

// emailTaken is the CONFLICT a user sees for ErrEmailTaken.
func emailTaken() error {
	return &gifting.Error{Code: gifting.CodeConflict, Message: "another contact already has this email address",
		Details: map[string]string{"mailId": "belongs to another contact"}}
}

// shown is err as a user sees it: the outcomes named as the errors above.
func shown(err error, contactID, listID string) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return NotFound(contactID)
	case errors.Is(err, ErrListNotFound):
		return ListNotFound(listID)
	case errors.Is(err, ErrEmailTaken):
		return emailTaken()
	}
	return err
}
