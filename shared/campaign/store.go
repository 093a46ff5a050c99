package campaign

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is what the campaign's use cases need of storage: loads, and the
// commit of each plan in one transaction. shared/dynamo's Store implements
// it; it decides nothing, and reports what it found as the outcomes below.
type Store interface {
	Reader
	Launches
	Slices
}

// Reader loads campaigns and what they refer to, and commits the plans
// of their creation, edits and moves.
type Reader interface {
	// Balances is the wallet a launch and its finish change (wallet.Apply).
	wallet.Balances
	// ListRecipients reads a page of a campaign's recipients with the
	// campaign: ErrNotFound when it is missing or deleted.
	ListRecipients(ctx context.Context, orgID, campaignID string, q recipient.Query) (RecipientListPage, error)
	// RecipientsAfter reads up to limit of a campaign's recipients, oldest
	// first, after cursor ("" from the first), with the campaign: a
	// page's reads, however deep. ErrNotFound when the campaign is missing
	// or deleted, ErrBadCursor when cursor is not one it handed out.
	RecipientsAfter(ctx context.Context, orgID, campaignID, cursor string, limit int) (RecipientRows, error)
	// LoadCampaign reads a campaign, strongly consistent: ErrNotFound when
	// it does not exist, was deleted or is another organization's.
	LoadCampaign(ctx context.Context, orgID, campaignID string) (Campaign, error)
	// ReadCampaign is LoadCampaign with what storage needs to condition a
	// write on the campaign being unchanged since (Read.Seen).
	ReadCampaign(ctx context.Context, orgID, campaignID string) (Read, error)
	// ListCampaigns reads a page of the organization's campaigns that f
	// keeps, sorted by sortBy (one of Sorts; ties by id), and how many f
	// keeps.
	ListCampaigns(ctx context.Context, orgID string, f Filter, sortBy string, order gifting.SortOrder, page gifting.PageRequest) ([]Campaign, int, error)
	// CampaignsCreated reads the organization's campaigns created in
	// [from, to), deleted ones too, in no particular order.
	CampaignsCreated(ctx context.Context, orgID string, from, to time.Time) ([]Campaign, error)
	// MonthCounts reads the organization's counters of months (YYYY-MM),
	// one MonthCounts each in the order given (zeros for a month with
	// nothing counted).
	MonthCounts(ctx context.Context, orgID string, months []string) ([]MonthCounts, error)
	// ContactList, Template and Gifts read what a campaign refers to:
	// NOT_FOUND when one does not exist for the organization (the
	// template and gifts may be the service catalog's).
	ContactList(ctx context.Context, orgID, listID string) (gifting.ContactList, error)
	Template(ctx context.Context, orgID, templateID string) (gifting.Template, error)
	Gifts(ctx context.Context, orgID string, ids []string) ([]gifting.Gift, error)
	// IdempotentReplay reads the response recorded under k (nil: no key):
	// nil when none, IDEMPOTENCY_KEY_REUSED when it answers another
	// request.
	IdempotentReplay(ctx context.Context, orgID string, k *gifting.IdempotencyKey) (*gifting.StoredResponse, error)
	// CommitCreate writes a new draft, the campaigns counter and the
	// plan's response: *Answered when its key was answered first.
	CommitCreate(ctx context.Context, p CreatePlan) error
	// CommitEdit writes an edited draft's fields, conditioned on a draft
	// (with no recipient when the plan reprices it), and returns the
	// campaign as written: ErrHasRecipients when it was repriced and has
	// recipients, ErrMoved when it is no longer a draft or is gone.
	CommitEdit(ctx context.Context, p EditPlan) (Campaign, error)
	// CommitMove writes a user's move with its change message (and, on
	// completing, the expiry of the unclaimed recipients due), conditioned
	// on the campaign being as read: ErrMoved otherwise.
	CommitMove(ctx context.Context, p MovePlan) error
	// CommitDelete archives the campaign as deleted (and makes the
	// expiry of its unclaimed recipients due), conditioned on it being as
	// read: ErrMoved otherwise.
	CommitDelete(ctx context.Context, p DeletePlan) error
	// ScheduledLaunchFailed records why a draft's scheduled launch could
	// not happen and takes it out of the due index; a campaign no longer
	// a draft is left alone.
	ScheduledLaunchFailed(ctx context.Context, orgID, campaignID, reason string) error
}

// Launches is the storage of a launch's acceptance.
type Launches interface {
	// ListMemberIDs reads the member contact ids of a list from its
	// member keys.
	ListMemberIDs(ctx context.Context, orgID, listID string) ([]string, error)
	// CommitLaunch writes p in one transaction: the debit (p.Wallet,
	// conditioned on the balance decided from), its ledger entry holding
	// the change messages, the campaign's move draft → preparing
	// conditioned on the draft as read, the launch record (due for the
	// scheduler), a check of each of p.Refs and the response under its
	// key. Outcomes: *wallet.BalanceMoved, wallet.ErrContended,
	// wallet.ErrNoWallet, *Answered, ErrMoved (the campaign is no longer
	// the draft read), ErrLaunched (its launch record exists), *RefGone;
	// nothing is written then.
	CommitLaunch(ctx context.Context, p LaunchPlan) error
}

// Slices is the storage of a launch's slices and of its finish.
type Slices interface {
	// LaunchRecord reads a campaign's launch record; found is false when
	// there is none.
	LaunchRecord(ctx context.Context, orgID, campaignID string) (rec LaunchRecord, found bool, err error)
	// LaunchDone takes the launch record out of the due index.
	LaunchDone(ctx context.Context, orgID, campaignID string) error
	// AwaitIndex waits until writes made before since have reached the
	// index the member pages come from (none where the index is updated
	// with the table).
	AwaitIndex(ctx context.Context, since time.Time) error
	// MemberPage reads up to limit member ids of a list after the cursor
	// after ("" from the start) and the cursor of the last ("" when none
	// follows).
	MemberPage(ctx context.Context, orgID, listID, after string, limit int) (ids []string, last string, err error)
	// NewPace is the pace of one run of a slice: its writes share the
	// organization's partition (shared/dynamo.LaunchWriteRate).
	NewPace() Pace
	// ClaimSlice records the claim on the launch record, if the record is
	// still at the claim's cursor and nobody claimed it: false otherwise.
	ClaimSlice(ctx context.Context, orgID, campaignID string, c SliceClaim, pace Pace) (bool, error)
	// WriteSlice puts the recipients of a claimed slice (see SliceWrite)
	// and returns the slice's recipients: those it wrote and those an
	// earlier run of the slice wrote.
	WriteSlice(ctx context.Context, w SliceWrite, pace Pace) ([]SliceRecipient, error)
	// CommitCount counts a slice in one transaction (CountPlan):
	// ErrSliceCounted when the launch record no longer holds the slice's
	// claim (another run counted it, or the launch is over),
	// ErrCampaignStopped when the campaign no longer takes its recipients.
	CommitCount(ctx context.Context, p CountPlan, pace Pace) error
	// DropSlice deletes the slice's recipients that nothing changed since
	// the slice wrote them.
	DropSlice(ctx context.Context, orgID, sliceID string, rs []SliceRecipient) error
	// ReleaseHeldEmails makes the campaign's unclaimed recipients whose
	// emails are put off (added to the draft) due now.
	ReleaseHeldEmails(ctx context.Context, orgID, campaignID string) error
	// CommitFinish ends the launch in one transaction (FinishPlan):
	// ErrFinishRaced when the campaign or the launch record changed since
	// read; with a refund, the wallet's outcomes too.
	CommitFinish(ctx context.Context, p FinishPlan) error
}

// Pace spaces a run's writes out (Slices.NewPace); the use case only hands
// it back to storage.
type Pace interface {
	// Wait waits until units write units may be taken.
	Wait(ctx context.Context, units int) error
}

// Read is a campaign as storage read it, with Seen, what storage needs to
// condition a write on it being unchanged since: storage's own, handed
// back to it unread.
type Read struct {
	Campaign Campaign
	Seen     any
}

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrNotFound: no such campaign (missing, deleted, another
	// organization's).
	ErrNotFound = errors.New("no such campaign")
	// ErrCursorUnkeyed: a recipients page by cursor whose position is no
	// key of the page's order, or whose campaign's recipients are not
	// keyed in that order's index yet.
	ErrCursorUnkeyed = errors.New("the cursor's order is not keyed for this campaign")
	// ErrBadCursor: a page's cursor is not one storage handed out for
	// that campaign's recipients.
	ErrBadCursor = errors.New("not a cursor of this list")
	// ErrMoved: the campaign is no longer as the plan was decided from
	// (edited, moved, its counters changed, deleted).
	ErrMoved = errors.New("the campaign changed since it was read")
	// ErrHasRecipients: an edit that reprices a draft found recipients.
	ErrHasRecipients = errors.New("the draft has recipients")
	// ErrLaunched: the campaign's launch record exists.
	ErrLaunched = errors.New("the campaign was launched")
	// ErrSliceCounted: the launch record no longer holds the slice's
	// claim.
	ErrSliceCounted = errors.New("the slice was counted or the launch is over")
	// ErrCampaignStopped: the campaign no longer takes the slice's
	// recipients (deleted, or paused since they were written invited).
	ErrCampaignStopped = errors.New("the campaign no longer takes the slice's recipients")
	// ErrFinishRaced: the campaign went live or the launch record changed
	// since the finish was decided.
	ErrFinishRaced = errors.New("the launch's finish raced")
)

// RefGone is the outcome of a launch whose check of a resource the
// campaign refers to failed: it was deleted.
type RefGone struct{ Ref gifting.Ref }

func (r *RefGone) Error() string { return fmt.Sprintf("%s %s was deleted", r.Ref.Kind, r.Ref.ID) }

// Answered is the outcome of a commit whose idempotency key another request
// answered first: Stored is that answer, for the caller to replay.
type Answered struct{ Stored gifting.StoredResponse }

func (a *Answered) Error() string { return "the idempotency key was answered first" }

// Response is the answer a commit records under its idempotency key, as the
// caller rendered it (gifting.Idempotent).
type Response struct {
	Key    gifting.IdempotencyKey
	Status int
	Body   []byte
}

// responseOf renders idem's answer of v (nil when idem is nil).
func responseOf[T any](idem *gifting.Idempotent[T], v T) (*Response, error) {
	if idem == nil {
		return nil, nil
	}
	body, err := idem.Render(v)
	if err != nil {
		return nil, err
	}
	return &Response{Key: idem.Key, Status: idem.Status, Body: body}, nil
}

// Queue starts background work: the first slice of an accepted launch.
type Queue interface {
	Enqueue(ctx context.Context, kind, orgID, ref string) error
}

// Inviter sends the invitation of a recipient just written with its
// invitation claimed, as add-recipient sends its own (the recipient area's
// email code), and reports whether it went out.
type Inviter interface {
	SendInvitation(ctx context.Context, orgID string, inv recipient.Invitation) bool
}
