package contactimport

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// StallAfter is how long a running job may go without a committed batch
// before reading it starts its background job again: the job's message was
// lost, or its worker died and SQS has not retried yet. A second worker on
// the same job is harmless: only one commits each batch (Store.CommitImport).
const StallAfter = 2 * time.Minute

// App is the import's use cases.
type App struct {
	store    Store
	files    Files
	contacts *contact.App
	jobs     Jobs
}

// NewApp returns the import's use cases: jobs in store, files in files
// (nil: imports are not configured, and starting one fails), rows added
// through contacts, the reading of a file started through jobs.
func NewApp(store Store, files Files, contacts *contact.App, jobs Jobs) *App {
	return &App{store: store, files: files, contacts: contacts, jobs: jobs}
}

// Started is a job as Start and Job answer it: Upload is the URL to PUT the
// file to while the job awaits it, Failures the failed rows once it is done.
type Started struct {
	Job    Job
	Upload string
	// UploadExpires is when Upload stops working.
	UploadExpires time.Time
	Failures      []FailedRow
	// Replayed: Start found the job its Idempotency-Key made before.
	Replayed bool
}

// errNoFiles: the process was built without a file store.
var errNoFiles = errors.New("contact imports are not configured (no IMPORTS_BUCKET)")

// Start creates an import job into orgID's list listID, awaiting its file,
// and gives its upload URL. The same Idempotency-Key (k) gives the same job
// again, with a fresh URL while it still awaits its file. Errors:
// NOT_FOUND (the list), IDEMPOTENCY_KEY_REUSED (k with another list).
func (a *App) Start(ctx context.Context, orgID, listID string, k *gifting.IdempotencyKey) (Started, error) {
	if a.files == nil {
		return Started{}, errNoFiles
	}
	if _, err := a.contacts.List(ctx, orgID, listID); err != nil {
		return Started{}, err
	}
	now := a.store.Now()
	j := Job{ID: a.store.NewID(), OrgID: orgID, ListID: listID, Status: StatusAwaitingUpload, CreatedAt: now, UpdatedAt: now}
	err := a.store.CreateImport(ctx, j, k, now.Add(JobTTL))
	var taken *KeyTaken
	if errors.As(err, &taken) {
		stored, rerr := k.Replay(taken.Record, now)
		if rerr != nil {
			return Started{}, rerr
		}
		if stored == nil {
			return Started{}, fmt.Errorf("the idempotency record of import job %s expired as it was read; retry", j.ID)
		}
		st, err := a.Job(ctx, orgID, string(stored.Body))
		st.Replayed = true
		return st, err
	}
	if err != nil {
		return Started{}, err
	}
	return a.withUpload(ctx, j)
}

// Job reads orgID's job. Reading a job that awaits its file looks for the
// file, and starts reading it when it arrived; reading a running job whose
// last batch is older than StallAfter starts its background job again.
// Errors: NOT_FOUND (no such job in orgID).
func (a *App) Job(ctx context.Context, orgID, jobID string) (Started, error) {
	j, err := a.store.ImportJob(ctx, orgID, jobID)
	if errors.Is(err, ErrNotFound) {
		return Started{}, gifting.NotFound("import job", jobID)
	}
	if err != nil {
		return Started{}, err
	}
	switch {
	case j.Status == StatusAwaitingUpload && a.files != nil:
		return a.arrived(ctx, j)
	case j.Status == StatusRunning && a.store.Now().Sub(j.UpdatedAt) > StallAfter:
		if err := a.jobs.StartImport(ctx, orgID, jobID); err != nil {
			return Started{}, err
		}
	case j.Status == StatusDone:
		failed, err := a.store.FailedImportRows(ctx, orgID, jobID)
		if err != nil {
			return Started{}, err
		}
		return Started{Job: j, Failures: failed}, nil
	}
	return Started{Job: j}, nil
}

// FailedRows returns the failed rows of orgID's job (none until it is done).
// Errors: NOT_FOUND.
func (a *App) FailedRows(ctx context.Context, orgID, jobID string) (Job, []FailedRow, error) {
	s, err := a.Job(ctx, orgID, jobID)
	return s.Job, s.Failures, err
}

// arrived checks whether j's file was uploaded: if not, j with a fresh
// upload URL; if so, j moved to running (or failed, for a file over
// MaxFileBytes) and its reading started.
func (a *App) arrived(ctx context.Context, j Job) (Started, error) {
	size, found, err := a.files.Size(ctx, FileKey(j.OrgID, j.ID))
	if err != nil {
		return Started{}, err
	}
	if !found {
		return a.withUpload(ctx, j)
	}
	next := j
	next.Size, next.Status, next.UpdatedAt = size, StatusRunning, a.store.Now()
	if size > MaxFileBytes {
		next.Status, next.Error = StatusFailed, fmt.Sprintf("the file has %d bytes; an import takes at most %d (10 MB): split it", size, MaxFileBytes)
	}
	err = a.store.CommitImport(ctx, next, StatusAwaitingUpload, 0, nil, j.CreatedAt.Add(JobTTL))
	if errors.Is(err, ErrMoved) {
		// Another read saw the file first and started the job.
		return a.Job(ctx, j.OrgID, j.ID)
	}
	if err != nil {
		return Started{}, err
	}
	if next.Status == StatusRunning {
		if err := a.jobs.StartImport(ctx, j.OrgID, j.ID); err != nil {
			return Started{}, err
		}
	}
	return Started{Job: next}, nil
}

// withUpload is j with a fresh upload URL.
func (a *App) withUpload(ctx context.Context, j Job) (Started, error) {
	url, err := a.files.UploadURL(ctx, FileKey(j.OrgID, j.ID), UploadTTL)
	if err != nil {
		return Started{}, err
	}
	return Started{Job: j, Upload: url, UploadExpires: a.store.Now().Add(UploadTTL)}, nil
}
