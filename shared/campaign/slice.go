package campaign

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// Launch job tuning: a slice reads this many list members and writes
// their recipients. A slice whose recipients are invited at once takes
// fewer: they are sent one after another right after the slice is counted,
// and a slice must never hold more invitations than it can send well
// inside the worker's timeout (150 s) and the launch's lease in the due
// index (a minute). At about 100 ms a send and its record (SES's answer,
// then one read and one transaction) 100 take 10 s; under SES throttling
// (each send retried up to five times, about 1.5 s of backoff on average)
// the sender stops at its time budget (SendBudget) and leaves the rest to
// their claims' leases.
const (
	SliceSize       = 500
	InviteSliceSize = 100
)

// FinishCursor is the cursor of the launch job's last step.
const FinishCursor = "finish"

// StepKind is what a run of a launch slice does.
type StepKind int

// The steps of a launch slice's run.
const (
	// StepStop: nothing is left to drive (the launch is over, or its
	// campaign moved on); ClearDue says the record must leave the due
	// index.
	StepStop StepKind = iota
	// StepFinish: every member is done, or every contact paid for is a
	// recipient: the campaign goes live and the rest is refunded.
	StepFinish
	// StepSkip: another run did this slice already; go on from Next, the
	// launch's cursor.
	StepSkip
	// StepRun: write the slice of list List after After, at most Room
	// recipients.
	StepRun
)

// SliceStep is what a run of a launch slice at a cursor does.
type SliceStep struct {
	Kind     StepKind
	ClearDue bool
	Next     string
	List     int
	After    string
	Room     int64
}

// DecideSlice decides the run of the launch slice at cursor ("" at the
// start, FinishCursor for the end) of campaign c, whose launch record rec
// was found or not. A slice takes at most the room left (the contacts paid
// for less the recipients counted), so no run of it can write more
// recipients than the launch may count (a list can grow during the
// launch), and a launch whose room is used up finishes.
func DecideSlice(c Campaign, rec LaunchRecord, found bool, cursor string) (SliceStep, error) {
	switch {
	case found && rec.FinishedAt == nil && c.Status != Preparing:
		// A record left unfinished by a campaign that moved on: nothing
		// is left to drive.
		return SliceStep{Kind: StepStop, ClearDue: true}, nil
	case c.Status != Preparing || !found || rec.FinishedAt != nil:
		return SliceStep{Kind: StepStop}, nil
	case cursor == FinishCursor:
		return SliceStep{Kind: StepFinish}, nil
	case rec.Cursor != cursor:
		return SliceStep{Kind: StepSkip, Next: rec.Cursor}, nil
	}
	list, after, err := parseCursor(cursor, len(rec.ListIDs))
	if err != nil {
		return SliceStep{}, err
	}
	room := rec.Contacts - rec.Created
	if list >= len(rec.ListIDs) || room <= 0 {
		// Every list read, or every contact paid for a recipient.
		return SliceStep{Kind: StepFinish}, nil
	}
	return SliceStep{Kind: StepRun, List: list, After: after, Room: room}, nil
}

// parseCursor reads "<list index>" or "<list index>|<last member cursor>".
func parseCursor(cursor string, lists int) (list int, after string, err error) {
	if cursor == "" {
		return 0, "", nil
	}
	idx, after, _ := strings.Cut(cursor, "|")
	list, err = strconv.Atoi(idx)
	if err != nil || list < 0 || list > lists {
		return 0, "", fmt.Errorf("bad launch cursor %q", cursor)
	}
	return list, after, nil
}

// ClaimSize is the number of members a slice claims: SliceSize, or
// InviteSliceSize when its recipients are invited at once (inviting), and
// never more than the room left.
func ClaimSize(inviting bool, room int64) int {
	size := SliceSize
	if inviting {
		size = InviteSliceSize
	}
	return int(min(int64(size), room))
}

// SliceClaim is the claim of a slice on the launch record: its cursor, the
// member ids it covers and the cursor after it, so every run of the slice
// works on the same members.
type SliceClaim struct {
	From string
	IDs  []string
	Next string
}

// NewClaim is the claim of the slice of list that starts at cursor from
// ids, the members read, whose last has the member cursor last ("" when
// the list has no more).
func NewClaim(cursor string, list int, ids []string, last string) SliceClaim {
	next := strconv.Itoa(list) + "|" + last
	if last == "" {
		next = strconv.Itoa(list + 1)
	}
	return SliceClaim{From: cursor, IDs: ids, Next: next}
}

// ClaimAt is rec's claim of the slice at cursor, nil when rec holds none
// (or another slice's).
func (rec LaunchRecord) ClaimAt(cursor string) *SliceClaim {
	if rec.Claim == nil || rec.Claim.From != cursor {
		return nil
	}
	return rec.Claim
}

// SliceID marks the recipients a launch slice writes: the cursor it starts
// from, unique within the launch (a campaign launches once).
func SliceID(cursor string) string { return "launch:" + cursor }

// SliceWrite is what storage writes for a claimed slice: the recipients of
// the claimed members of list ListID, each only if the contact is not a
// recipient yet, marked with SliceID, at most Room of them. Contacts
// deleted since the claim are skipped (their credits are refunded at the
// end). Invite says an invitation due at once is claimed for the run to
// send; AssignTo (the user who launched) owns them.
type SliceWrite struct {
	OrgID         string
	Campaign      Campaign
	ListID        string
	IDs           []string
	SliceID       string
	Room          int64
	Invite        bool
	AssignTo      string
	KeyedOnly     bool
	PublicBaseURL string
}

// SliceRecipient is a recipient of a launch slice as written: by this run,
// or by an earlier run of the slice.
type SliceRecipient struct {
	Recipient gifting.Recipient
	// Unchanged is true while nothing changed the recipient since the
	// slice wrote it (its first version).
	Unchanged bool
	// Delays and EmailSet are the recipient's stored event delays and
	// email set, for its invitation.
	Delays   map[string]int
	EmailSet string
}

// countedStatus is the status the slice counts r at: its status while it
// is unchanged since written, else pending, which every launch writes (a
// move since then moved the campaign's counters from pending).
func (r SliceRecipient) countedStatus() gifting.RecipientStatus {
	if r.Unchanged {
		return r.Recipient.Status
	}
	return gifting.RecipientPending
}

// CountPlan counts a slice in one transaction: the campaign's counters
// (Deltas, Spent; conditioned on a campaign that takes the recipients,
// and is sending when Inviting), the campaign's mirror of the launch's
// progress (when Progress), the launch record's count of created
// recipients (never past the contacts paid for: Created at most Room
// before it) with its cursor moved From → Next and its claim cleared, and
// the recipient.created messages. Members is the size of the claim the
// record holds.
type CountPlan struct {
	OrgID, CampaignID string
	From, Next        string
	Members           int
	Created           int64
	Room              int64
	Deltas            map[gifting.RecipientStatus]int64
	Spent             int64
	Inviting          bool
	Progress          bool
	Messages          []gifting.Change
	Now               time.Time
}

// DecideCount counts the slice's recipients mine, written for claim of
// orgID's campaign camp, whose launch record is rec.
func DecideCount(orgID string, camp Campaign, rec LaunchRecord, claim SliceClaim, mine []SliceRecipient, now time.Time) (CountPlan, error) {
	n := int64(len(mine))
	p := CountPlan{
		OrgID: orgID, CampaignID: camp.CampaignID, From: claim.From, Next: claim.Next,
		Members: len(claim.IDs), Created: n, Room: rec.Contacts - n, Now: now,
	}
	if n == 0 {
		return p, nil
	}
	spent, err := wallet.MulCredits(n, camp.CampaignData.CreditsPerRecipient)
	if err != nil {
		return CountPlan{}, fmt.Errorf("launch slice of %s: %w", camp.CampaignID, err)
	}
	p.Deltas, p.Spent, p.Progress = map[gifting.RecipientStatus]int64{}, spent, camp.LaunchProgress != nil
	for _, r := range mine {
		p.Deltas[r.countedStatus()]++
		p.Inviting = p.Inviting || r.Recipient.Emails.AddressConfirmation.ClaimedAt != nil
		p.Messages = append(p.Messages, gifting.NewChange(gifting.ChangeRecipientCreated, r.Recipient))
	}
	return p, nil
}

// StillClaimed is the error of a count the launch record refused while it
// still holds the claim of the slice at cursor (rec, read again after the
// refusal): no run of the slice can get past it, and none must spin on it.
// Nil when the record moved on (another run counted the slice, or the
// launch is over).
func StillClaimed(rec LaunchRecord, found bool, cursor string) error {
	if !found || rec.FinishedAt != nil || rec.ClaimAt(cursor) == nil {
		return nil
	}
	return fmt.Errorf("launch slice at %q: the launch record refuses its count (%d created of %d paid)", cursor, rec.Created, rec.Contacts)
}

// Invitations are the invitations of the slice's recipients rs that the
// run that counted them may send at now: claimed when written, unchanged
// since (nobody else took them over) and with enough of their lease left
// (gifting.EmailSchedule.HolderMaySend).
func Invitations(rs []SliceRecipient, now time.Time) []gifting.Invitation {
	var invs []gifting.Invitation
	for _, r := range rs {
		e := r.Recipient.Emails.AddressConfirmation
		if r.Unchanged && e.ClaimedAt != nil && e.HolderMaySend(*e.ClaimedAt, now) {
			invs = append(invs, gifting.Invitation{Recipient: r.Recipient, Delays: r.Delays, EmailSet: r.EmailSet})
		}
	}
	return invs
}

// FinishPlan ends a launch in one transaction: the campaign moves from
// preparing to live (with its launch progress finished, when it mirrors
// it), the launch record is finished (conditioned on the count Created it
// was decided from, so a slice still counting makes the finish wait) and
// leaves the due index, and the credits of the contacts paid for but not
// made recipients go back to the wallet (Refund, Wallet's plan, decided on
// every attempt) with a ledger entry holding the campaign.live message.
type FinishPlan struct {
	OrgID, CampaignID string
	Refund            int64
	Created           int64
	Progress          bool
	Messages          []gifting.Change
	// Credit is the refund's change of the wallet, nil when there is
	// nothing to give back; Wallet its decided plan.
	Credit *wallet.Change
	Wallet *wallet.Plan
	Now    time.Time
}

// DecideFinish decides the end of the launch of orgID's campaign c from its
// record rec at now: what the recipients created cost (never more than the
// debit) and the refund of the rest, so the launch costs exactly
// recipients created × price.
func DecideFinish(orgID string, c Campaign, rec LaunchRecord, now time.Time) (FinishPlan, error) {
	spent, err := wallet.MulCredits(rec.Created, rec.CreditsPerRecipient)
	if err != nil || spent > rec.Debited {
		return FinishPlan{}, fmt.Errorf("finish launch of %s: %d recipients at %d credits exceed the %d debited",
			c.CampaignID, rec.Created, rec.CreditsPerRecipient, rec.Debited)
	}
	refund := rec.Debited - spent
	p := FinishPlan{
		OrgID: orgID, CampaignID: c.CampaignID, Refund: refund, Created: rec.Created,
		Progress: c.LaunchProgress != nil, Now: now,
		Messages: []gifting.Change{gifting.NewChange(gifting.ChangeCampaignLive, c.Live(now, refund))},
	}
	if refund > 0 {
		p.Credit = &wallet.Change{OrgID: orgID, Type: wallet.Refund, Delta: refund, CampaignID: c.CampaignID,
			Reason: fmt.Sprintf("campaign launch: %d of %d contacts paid for did not become recipients", rec.Contacts-rec.Created, rec.Contacts)}
	}
	return p, nil
}
