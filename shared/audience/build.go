package audience

import (
	"time"

	"github.com/giftcampaign/service/shared/wallet"
)

// The job kinds of the slice. Each kind's work is also due in storage's
// due index under the same kind, so the scheduler's tick continues it when
// its message is lost: a building audience (JobBuild), the copy into a
// contact list (JobCopy: its ref the audience, its cursor the list), the
// deleted audience's tombstone (JobPurge).
const (
	JobBuild = "audience.build"
	JobCopy  = "audience.contactlist"
	JobPurge = "audience.purge"
)

// Sizes of the jobs' slices: a few seconds of work each.
const (
	// BuildSliceContacts is how many contacts one slice of a build
	// compares (fewer when a page of them reaches 1 MB), and how many
	// members one slice of a rebuild's clearing removes.
	BuildSliceContacts = 1000
	// MembersPerCommit is the most members one commit of a build writes:
	// with the audience and, on the last commit, its change record, a
	// transaction of at most 100 items.
	MembersPerCommit = 98
	// PurgeSliceMembers is how many members one slice of a deleted
	// audience's purge removes.
	PurgeSliceMembers = 500
	// CopySliceMembers is how many members one slice of a copy into a
	// contact list adds.
	CopySliceMembers = 500
)

// Step is what the next slice of a build does, by the audience's state.
type Step int

const (
	// StepEnded: the audience is not building (ready, failed, or never
	// building): nothing is left, but taking it out of the due index when
	// its end left it there.
	StepEnded Step = iota
	// StepClearing: a rebuild's previous members are removed first.
	StepClearing
	// StepMatching: the next page of contacts is compared.
	StepMatching
)

// NextStep is the step of the next slice of st's build.
func NextStep(st State) Step {
	switch {
	case st.Audience.Status != Building:
		return StepEnded
	case st.Build.Clearing:
		return StepClearing
	}
	return StepMatching
}

// ContactPage is a page of the organization's contacts, in the order a
// build reads them, and whether it is their last.
type ContactPage struct {
	Contacts []Contact
	Last     bool
}

// Chunk is one commit of a slice of a build: the members it writes, the
// contacts it compared and where the build is after it.
type Chunk struct {
	Members []Member
	// Cursor is the build's cursor after the chunk ("" leaves it where
	// it was).
	Cursor  string
	Scanned int64
	// Final makes the audience ready.
	Final bool
}

// Chunks decides what a slice of audience id's build writes: it compares
// the contacts of page, read after cursor, with m and cuts the matches
// into commits of at most MembersPerCommit members, in the page's order;
// the last is Final when page is the last. A persona without criteria (an
// empty m) matches nothing without reading a contact: its one commit is
// final. Matching members are stamped now.
func Chunks(id string, m *Matcher, cursor string, page ContactPage, now time.Time) []Chunk {
	if m.Empty() {
		return []Chunk{{Cursor: cursor, Final: true}}
	}
	var (
		out     []Chunk
		members []Member
		scanned int64
	)
	for i, c := range page.Contacts {
		cursor = c.Cursor
		// An email's slot holding no contact (an alias) is passed over.
		if c.ContactID != "" {
			scanned++
			if on, ok := m.Match(c); ok {
				members = append(members, NewMember(id, c, on, now))
			}
		}
		final := page.Last && i == len(page.Contacts)-1
		if len(members) == MembersPerCommit || final {
			out = append(out, Chunk{Members: members, Cursor: cursor, Scanned: scanned, Final: final})
			members, scanned = nil, 0
		}
	}
	if scanned > 0 || len(page.Contacts) == 0 {
		// The tail of the page matched too few for a commit of its own
		// (or the page was empty): record how far the build got.
		out = append(out, Chunk{Members: members, Cursor: cursor, Scanned: scanned, Final: page.Last})
	}
	return out
}

// Commit is what one commit of a build writes, decided from the state it
// is conditioned on.
type Commit struct {
	OrgID, AudienceID string
	// From is the build's cursor as read ("" none yet): the commit is
	// conditioned on it, and on the audience building. To is the cursor
	// after it.
	From, To string
	Members  []Member
	// Credits are the members' price, Scanned the contacts compared:
	// added to creditRequired, totalMatch (by len(Members)) and
	// contactsScanned.
	Credits int64
	Scanned int64
	// At is the commit's updatedAt.
	At time.Time
	// Due pushes the audience's due time a lease on (a progress), unless
	// the commit is Final.
	Due bool
	// Final makes the audience ready (Ready, the audience as the commit
	// leaves it, for its audience.ready change record), conditioned on
	// its version too: an edit in between makes it read and decide again,
	// so the record holds the audience exactly as stored.
	Final   bool
	Ready   Audience
	Version string
}

// Plan is the commit of chunk c of st's build at now, and the state the
// commit leaves. Errors: INSUFFICIENT_CREDITS when the members' price is
// more than a wallet can hold.
func Plan(st State, c Chunk, now time.Time) (Commit, State, error) {
	n := int64(len(c.Members))
	credits, err := wallet.MulCredits(n, st.Audience.Meta.CreditsPerContact)
	if err != nil {
		return Commit{}, st, err
	}
	next := st
	next.Audience.TotalMatch += n
	next.Audience.CreditRequired += credits
	next.Audience.Meta.ContactsScanned += c.Scanned
	next.Audience.UpdatedAt, next.Build.Failures = now, 0
	if c.Cursor != "" {
		next.Build.Cursor = c.Cursor
	}
	commit := Commit{
		OrgID: st.Audience.OrganizationID, AudienceID: st.Audience.ID, From: st.Build.Cursor, To: next.Build.Cursor,
		Members: c.Members, Credits: credits, Scanned: c.Scanned, At: now, Due: st.Build.Due, Final: c.Final,
	}
	if c.Final {
		next.Audience = Built(next.Audience, now, "")
		commit.Ready, commit.Version = next.Audience, st.Version
	}
	return commit, next, nil
}

// Overtaken reports whether the build of was, read again as now, has been
// taken on by another run of the same slice (its cursor moved) or has
// ended: this run stops.
func Overtaken(was, now State) bool {
	return now.Audience.Status != Building || now.Build.Cursor != was.Build.Cursor
}
