package jobs

import "time"

// DueLease is how long whoever works a due item has it to itself: the due
// time is pushed this far ahead when a tick claims the item and on each
// progress, so a tick only takes over work that stopped (a lost message, a
// crashed process) this long ago.
const DueLease = time.Minute

// Due is one item of due work, as the scheduler's tick sees it: work that
// must happen after a commit, driven from a record written in the same
// transaction as the change (a launch record) rather than from a message
// sent after it. The tick continues it as the job Job returns.
type Due struct {
	// Kind is the job kind that continues the work.
	Kind string
	// OrgID and Ref name the work: the organization and the resource.
	OrgID, Ref string
	// Cursor is where the work stopped; "" for the start.
	Cursor string
	// At is when the item became due; ProgressAt its last progress.
	At, ProgressAt time.Time
	// Key is where storage keeps the item and the due time the tick saw:
	// storage's own, handed back to it (the claim) unread.
	Key DueKey
}

// DueKey locates a due item in storage (Due.Key).
type DueKey struct {
	PK, SK, DueAt string
}

// Job is the job that continues d from its cursor.
func (d Due) Job() Job { return Job{Kind: d.Kind, OrgID: d.OrgID, Ref: d.Ref, Cursor: d.Cursor} }
