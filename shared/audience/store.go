package audience

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/catalog"
	contacts "github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// Store is what the audience use cases need of storage: loads, and the
// commits of what the slice decided. shared/dynamo's Store implements it;
// it decides nothing, and reports what it found as the outcomes below.
type Store interface {
	// Now is the store's clock and NewID an id from it.
	Now() time.Time
	NewID() string
	PersonaStore
	AudienceStore
	BuildStore
	MemberStore
	CopyStore
	// VisibleGift and GiftsOf are the catalog slice's reads (catalog.Store),
	// for pricing an audience by a gift.
	VisibleGift(ctx context.Context, orgID, giftID string) (catalog.Gift, error)
	GiftsOf(ctx context.Context, owners []string) ([]catalog.Gift, error)
}

// PersonaStore loads and commits personas.
type PersonaStore interface {
	// Persona reads persona id of orgID; ErrNotFound when there is none.
	Persona(ctx context.Context, orgID, id string) (Persona, error)
	// PersonaPage reads a page of orgID's personas in creation order and
	// their number, a page's worth of reads; Personas reads them all.
	PersonaPage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]Persona, int, error)
	Personas(ctx context.Context, orgID string) ([]Persona, error)
	// CommitNewPersona writes p, new, and counts it in its organization's
	// personas, in one transaction.
	CommitNewPersona(ctx context.Context, p Persona) error
	// CommitPersona writes p over the stored persona, conditioned on the
	// stored one's updatedAt still being seen: ErrChanged otherwise.
	CommitPersona(ctx context.Context, p Persona, seen time.Time) error
	// CommitPersonaDelete deletes persona id and uncounts it, in one
	// transaction: ErrNotFound when it is not there.
	CommitPersonaDelete(ctx context.Context, orgID, id string) error
}

// AudienceStore loads audiences and commits their creation, edits,
// rebuilds and deletes.
type AudienceStore interface {
	// Audience reads audience id of orgID as stored, strongly consistent;
	// ErrNotFound when there is none.
	Audience(ctx context.Context, orgID, id string) (State, error)
	// AudiencePage and Audiences are PersonaPage and Personas for
	// audiences.
	AudiencePage(ctx context.Context, orgID string, order gifting.SortOrder, page gifting.PageRequest) ([]Audience, int, error)
	Audiences(ctx context.Context, orgID string) ([]Audience, error)
	// CommitNewAudience writes a, new and building, counts it, and puts it
	// in the due index a lease on (the tick builds it if its job's message
	// is lost), in one transaction.
	CommitNewAudience(ctx context.Context, a Audience) error
	// UndoNewAudience deletes audience id and uncounts it, in one
	// transaction conditioned on it having no match yet: ErrChanged when
	// it has some.
	UndoNewAudience(ctx context.Context, orgID, id string) error
	// CommitAudienceEdit writes a's name, description, tags and updatedAt
	// (whatever its build writes meanwhile) and returns the audience as
	// stored then: ErrNotFound when it is not there.
	CommitAudienceEdit(ctx context.Context, a Audience) (Audience, error)
	// CommitAudienceDelete moves audience id out of the audiences (a
	// tombstone in the due index stands for it until its members are
	// purged) and uncounts it, in one transaction conditioned on the
	// stored version: ErrChanged otherwise.
	CommitAudienceDelete(ctx context.Context, orgID, id, version string) error
	// CommitRebuild writes a, as a rebuild starts it (Rebuilt), with its
	// build at its start and clearing, and in the due index, conditioned
	// on the stored version (ErrChanged otherwise); it returns the
	// audience as stored then.
	CommitRebuild(ctx context.Context, a Audience, version string) (Audience, error)
}

// BuildStore reads what a build compares and commits its slices.
type BuildStore interface {
	// BuildContacts reads the page of orgID's contacts after cursor (""
	// from the start), at most limit (fewer when the page reaches 1 MB),
	// what a build compares of each.
	BuildContacts(ctx context.Context, orgID, cursor string, limit int) (ContactPage, error)
	// BuildPace is the pace of one slice's writes to the organization's
	// partition; the slice hands it to each of its commits.
	BuildPace() Pace
	// CommitBuild writes c in one transaction, after waiting on pace (nil:
	// no wait) for the write units its members take: ErrBuildMoved when
	// the build is no longer building at c.From (or, for a final commit,
	// no longer at c.Version), and nothing is written.
	CommitBuild(ctx context.Context, c Commit, pace Pace) error
	// CommitBuildFailure counts a failed slice of audience id's build and
	// returns the consecutive failures: ErrNotBuilding when it is not
	// building.
	CommitBuildFailure(ctx context.Context, orgID, id string) (failures int, err error)
	// CommitFailed writes a, failed (Built with a reason), out of the due
	// index, with its audience.failed change record, in one transaction
	// conditioned on the audience building at version: ErrChanged
	// otherwise.
	CommitFailed(ctx context.Context, a Audience, version string) error
	// BuildProgressed pushes a building audience's due time a lease on:
	// its job is at work. BuildEnded takes an audience that is no longer
	// building out of the due index.
	BuildProgressed(ctx context.Context, orgID, id string) error
	BuildEnded(ctx context.Context, orgID, id string) error
	// DeleteMembers deletes up to limit of audience id's members and
	// returns how many it deleted: a rebuild's clearing and a purge.
	DeleteMembers(ctx context.Context, orgID, id string, limit int) (int, error)
	// CommitCleared ends a rebuild's clearing, conditioned on the audience
	// building and clearing: ErrBuildMoved otherwise.
	CommitCleared(ctx context.Context, orgID, id string) error
	// CommitPurged deletes a deleted audience's tombstone, which takes it
	// out of the due index.
	CommitPurged(ctx context.Context, orgID, id string) error
}

// MemberStore reads an audience's members (MemberRead says which read
// serves which page).
type MemberStore interface {
	// MemberKeys reads the keys of the first n members of audience id in
	// the order sortBy (one of MemberSorts, ties by contactId; asc or
	// reversed).
	MemberKeys(ctx context.Context, orgID, id, sortBy string, asc bool, n int) ([]MemberKey, error)
	// MemberKeysAfter reads the keys of up to n members of audience id in
	// the createdAt order right after the entry at position (a
	// MemberKey's): one Query, O(n), a page by cursor.
	MemberKeysAfter(ctx context.Context, orgID, id, position string, asc bool, n int) ([]MemberKey, error)
	// SearchEntries reads the search entries of audience id whose word
	// begins with lead, with their members' words and times, leaving out
	// (as it reads) entries whose words do not hold each of others
	// somewhere: a filter that keeps every match of others' terms,
	// which Matching then decides.
	SearchEntries(ctx context.Context, orgID, id, lead string, others []string) ([]MemberEntry, error)
	// MemberEntries reads every member's index entry of audience id whose
	// search text holds every one of terms (all of them when none), with
	// that text's words.
	MemberEntries(ctx context.Context, orgID, id string, terms []string) ([]MemberEntry, error)
	// FirstMembers reads the first n members of audience id in contactId
	// order (asc or reversed).
	FirstMembers(ctx context.Context, orgID, id string, asc bool, n int) ([]Member, error)
	// Members reads the members of audience id with the contact ids ids,
	// in that order (one gone meanwhile is left out); AudienceWithMembers
	// reads the audience too, in the same request: ErrNotFound when it is
	// not there.
	Members(ctx context.Context, orgID, id string, ids []string) ([]Member, error)
	AudienceWithMembers(ctx context.Context, orgID, id string, ids []string) (Audience, []Member, error)
}

// CopyStore commits the copies of audiences into contact lists.
type CopyStore interface {
	// CommitCopyStart records p, the start of the copy of audience id into
	// list listID, and puts the copy in the due index a lease on, in one
	// transaction conditioned on the audience being ready: ErrNotReady
	// otherwise (or when it is not there).
	CommitCopyStart(ctx context.Context, orgID, id, listID string, p ListProgress) error
	// MemberIDsAfter reads the contact ids of up to n members of audience
	// id after contact id after ("" from the start), in contactId order,
	// and whether more follow.
	MemberIDsAfter(ctx context.Context, orgID, id, after string, n int) (ids []string, more bool, err error)
	// CommitCopyStep records s in the copy's progress, conditioned on the
	// copy still adding at s.From: ErrCopyMoved otherwise.
	CommitCopyStep(ctx context.Context, orgID, id string, s CopyStep) error
	// CopyProgressed pushes the copy's due time a lease on; CopyDone
	// takes the copy out of the due index.
	CopyProgressed(ctx context.Context, orgID, id, listID string) error
	CopyDone(ctx context.Context, orgID, id, listID string) error
	// CommitCopyFailure counts a failed slice of the copy into listID and
	// returns the consecutive failures: ErrNotCopying when the copy is
	// not adding.
	CommitCopyFailure(ctx context.Context, orgID, id, listID string) (failures int, err error)
	// CommitCopyEnd sets the copy's final status, conditioned on it still
	// adding: ErrNotCopying otherwise.
	CommitCopyEnd(ctx context.Context, orgID, id, listID, status string) error
}

// Pace is how storage paces one slice's writes: the slice never calls it,
// only hands it to each commit of the slice.
type Pace interface {
	Wait(ctx context.Context, units int) error
}

// Outcomes storage reports for the application layer to act on. None is
// shown to a user as it is.
var (
	// ErrNotFound: there is no such persona or audience where it was read
	// (or it went before a commit's condition was checked).
	ErrNotFound = errors.New("no such persona or audience")
	// ErrChanged: the stored persona or audience is no longer the one
	// the write was decided from (another write committed first).
	ErrChanged = errors.New("the stored item changed")
	// ErrBuildMoved: the build is no longer where the commit was decided
	// from: another run of the slice committed it, or the build ended,
	// or (a final commit) the audience was edited.
	ErrBuildMoved = errors.New("the build moved")
	// ErrNotBuilding: the audience is not building.
	ErrNotBuilding = errors.New("the audience is not building")
	// ErrNotReady: the audience is not ready (or not there).
	ErrNotReady = errors.New("the audience is not ready")
	// ErrCopyMoved: the copy is no longer where the step was decided
	// from: another run of the slice recorded it, or the copy ended.
	ErrCopyMoved = errors.New("the copy moved")
	// ErrNotCopying: the copy into the list is not adding.
	ErrNotCopying = errors.New("the copy is not adding")
)

// Job is one slice of the slice's background work, as its Jobs port
// queues it: Kind (JobBuild, JobCopy, JobPurge), the organization, the
// audience (Ref) and, for a copy, the list (Cursor).
type Job struct {
	Kind, OrgID, Ref, Cursor string
}

// Jobs queues the slice's background work: the job runner hands each job
// back to the App (RunBuild, RunCopy, RunPurge).
type Jobs interface {
	Enqueue(ctx context.Context, j Job) error
}

// Lists is what a copy needs of the contact area: making the list, adding
// members to it by contact id, and deleting a list a refused copy made.
// The service wires it to the contact area's use cases and storage as
// they are.
type Lists interface {
	CreateContactList(ctx context.Context, orgID, userID, name, description string) (gifting.ContactList, error)
	AddContactIDsToList(ctx context.Context, orgID, listID string, ids []string) (contacts.BulkResult, error)
	DeleteContactList(ctx context.Context, orgID, listID string) error
}
