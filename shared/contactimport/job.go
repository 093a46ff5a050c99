// Package contactimport is the CSV import of contacts into a list: a job
// whose file the client uploads where a 10 MB body can live (S3, through a
// presigned URL), then read in batches of contact.MaxBulk rows, each
// added through the contact slice's bulk add (contact.App.AddCandidates),
// so a CSV row meets exactly the merge rules a JSON bulk-add item does.
// Each batch commits the byte offset after its last row with its counts
// and failed rows, so a worker that dies mid-file resumes from the last
// committed batch.
package contactimport

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// JobKind is the kind of the background job (shared/jobs) that reads an
// uploaded file: its Ref is the import job's id.
const JobKind = "contacts.import"

// Statuses of an import job.
const (
	// StatusAwaitingUpload: the job exists and its upload URL was given;
	// no file has been seen yet.
	StatusAwaitingUpload = "awaitingUpload"
	// StatusRunning: the file arrived and its rows are being added.
	StatusRunning = "running"
	// StatusDone: every row was read; failed rows are listed.
	StatusDone = "done"
	// StatusFailed: the file as a whole could not be imported (too large,
	// no or a wrong header, the list deleted); Error says why.
	StatusFailed = "failed"
)

// Ended reports whether j is over (done or failed): its file is read no
// more.
func (j Job) Ended() bool { return j.Status == StatusDone || j.Status == StatusFailed }

// MaxFileBytes is the largest file an import takes (10 MB).
const MaxFileBytes = 10 << 20

// UploadTTL is how long an upload URL works. A job that has not seen its
// file by then can be given a fresh URL by reading it again.
const UploadTTL = 15 * time.Minute

// JobTTL is how long a job and its failed rows are kept after their
// creation (the uploaded file goes after a day: the bucket's lifecycle).
const JobTTL = 7 * 24 * time.Hour

// Job is an import job as its owner reads it.
type Job struct {
	ID     string
	OrgID  string
	ListID string
	Status string
	// Error says why a failed job failed.
	Error string
	// Size is the file's size in bytes, once it arrived.
	Size int64
	// Offset is where the next batch starts in the file (bytes); Header
	// the columns the first batch read.
	Offset int64
	Header []string
	// The rows read so far and what became of them.
	RowsDone  int
	Created   int
	Merged    int
	Unchanged int
	Failed    int
	CreatedAt time.Time
	UpdatedAt time.Time
}

// FailedRow is a row that was not imported and why: Row counts data rows
// from 1 (the header is not one), MailID is the row's address as given,
// if any.
type FailedRow struct {
	Row    int    `json:"row"`
	MailID string `json:"mailId,omitempty"`
	Reason string `json:"reason"`
}

// Sentinel errors of the store.
var (
	// ErrNotFound: no such job in the organization.
	ErrNotFound = errors.New("no such import job")
	// ErrMoved: the job is not in the state the write expected (another
	// worker committed the batch, or the job moved on).
	ErrMoved = errors.New("the import job moved on")
	// ErrKeyTaken: the Idempotency-Key has a record (KeyTaken carries it).
	ErrKeyTaken = errors.New("the idempotency key was taken first")
)

// KeyTaken is ErrKeyTaken with the record found under the key.
type KeyTaken struct{ Record *gifting.IdempotencyRecord }

func (k *KeyTaken) Error() string { return ErrKeyTaken.Error() }

// Is makes errors.Is(err, ErrKeyTaken) true.
func (k *KeyTaken) Is(target error) bool { return target == ErrKeyTaken }

// Store is the import's storage.
type Store interface {
	Now() time.Time
	NewID() string
	// CreateImport writes a new job, with k's record naming it when k is
	// set, in one transaction. Errors: *KeyTaken (nothing written).
	CreateImport(ctx context.Context, j Job, k *gifting.IdempotencyKey, expires time.Time) error
	// ImportJob reads orgID's job (strongly consistent). ErrNotFound.
	ImportJob(ctx context.Context, orgID, jobID string) (Job, error)
	// CommitImport writes j (its status, offset, header and counts) and
	// the batch's failed rows, if its stored offset is still from and its
	// status still was. ErrMoved when not (nothing written).
	CommitImport(ctx context.Context, j Job, was string, from int64, failed []FailedRow, expires time.Time) error
	// FailedImportRows reads every failed row of orgID's job, in file order.
	FailedImportRows(ctx context.Context, orgID, jobID string) ([]FailedRow, error)
}

// Files is where uploaded files live (S3).
type Files interface {
	// UploadURL is a URL the client PUTs the file to, for ttl.
	UploadURL(ctx context.Context, key string, ttl time.Duration) (string, error)
	// Size is the size of the file at key; found is false when none was
	// uploaded yet.
	Size(ctx context.Context, key string) (size int64, found bool, err error)
	// Open reads the file at key from byte offset.
	Open(ctx context.Context, key string, offset int64) (io.ReadCloser, error)
	// Delete removes the file at key for good (none there: nothing to do).
	Delete(ctx context.Context, key string) error
}

// Jobs starts the background job that reads a file.
type Jobs interface {
	StartImport(ctx context.Context, orgID, jobID string) error
}

// FileKey is where a job's file lives: under its organization, named by
// the job, so no client can name another's.
func FileKey(orgID, jobID string) string { return "imports/" + orgID + "/" + jobID + ".csv" }
