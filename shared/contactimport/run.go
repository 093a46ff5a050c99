package contactimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// SliceBatches is how many batches (of contact.MaxBulk rows) one run of the
// background job reads before it hands the rest to its continuation, so no
// invocation runs long.
const SliceBatches = 20

// bom is UTF-8's byte order mark, which spreadsheet programs write first.
var bom = []byte{0xEF, 0xBB, 0xBF}

// source is what a CSV import records as a contact's source.
var source = contact.Source{Type: contact.SourceImport, Provider: "csv"}

// RunSlice reads up to SliceBatches batches of orgID's job jobID from its
// committed offset, adding each through the bulk add and committing it
// (offset, counts, failed rows) before the next. It reports whether rows
// remain. A job committed by another worker meanwhile is left to it.
//
// The uploaded file holds people's data and is read once: the run that
// ends the job (done or failed) deletes it, and a run of a job already
// ended deletes it again, so a delete that failed, or a process that died
// before it, is made good by the job's next delivery. The bucket's
// one-day expiry is the last resort.
func (a *App) RunSlice(ctx context.Context, orgID, jobID string) (more bool, err error) {
	j, err := a.store.ImportJob(ctx, orgID, jobID)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if j.Status != StatusRunning {
		return false, a.discardFile(ctx, j) // ended, or (never started) awaiting its file
	}
	body, err := a.files.Open(ctx, FileKey(orgID, jobID), j.Offset)
	if err != nil {
		return false, err
	}
	defer body.Close()
	rows, err := a.openRows(ctx, &j, io.LimitReader(body, max(j.Size-j.Offset, 0)))
	if err != nil {
		return false, err
	}
	if rows == nil {
		return false, a.discardFile(ctx, j)
	}
	for range SliceBatches {
		done, err := a.batch(ctx, &j, rows)
		if err != nil {
			return false, err
		}
		if done {
			return false, a.discardFile(ctx, j)
		}
	}
	return true, nil
}

// discardFile deletes j's uploaded file once j has ended; a job still
// running (another worker took it over) or awaiting its upload keeps it.
func (a *App) discardFile(ctx context.Context, j Job) error {
	if !j.Ended() {
		return nil
	}
	return a.files.Delete(ctx, FileKey(j.OrgID, j.ID))
}

// rowReader reads a file's records from a job's offset, and tells the
// offset after the last record read.
type rowReader struct {
	csv  *csv.Reader
	base int64 // the file offset the csv reader started at
}

func (r *rowReader) offset() int64 { return r.base + r.csv.InputOffset() }

// openRows starts reading j's file at j.Offset. At the file's start it
// skips a BOM and reads the header, failing the job (nil reader) when the
// header names no email or an unknown column.
func (a *App) openRows(ctx context.Context, j *Job, body io.Reader) (*rowReader, error) {
	br := bufio.NewReader(body)
	base := j.Offset
	if base == 0 {
		if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
			_, _ = br.Discard(len(bom))
			base = int64(len(bom))
		}
	}
	r := &rowReader{csv: csv.NewReader(br), base: base}
	// Rows with the wrong number of cells fail alone (batch), not the file.
	r.csv.FieldsPerRecord = -1
	if j.Offset > 0 {
		return r, nil
	}
	cells, err := r.csv.Read()
	if err == nil {
		j.Header, err = ReadHeader(cells)
	} else if errors.Is(err, io.EOF) {
		err = errors.New("the file is empty: the first row must name the columns, one of them email (or mailId)")
	}
	if err != nil {
		return nil, a.fail(ctx, j, err.Error())
	}
	return r, nil
}

// fail ends j as failed, with why (j is left as it was when another
// worker committed first).
func (a *App) fail(ctx context.Context, j *Job, why string) error {
	next := *j
	next.Status, next.Error, next.UpdatedAt = StatusFailed, why, a.store.Now()
	err := a.store.CommitImport(ctx, next, StatusRunning, j.Offset, nil, j.CreatedAt.Add(JobTTL))
	if errors.Is(err, ErrMoved) {
		return nil
	}
	if err == nil {
		*j = next
	}
	return err
}

// batch reads and adds up to contact.MaxBulk rows, then commits them with
// the offset after them: done when the file ended (or the job was taken
// over or failed).
func (a *App) batch(ctx context.Context, j *Job, rows *rowReader) (bool, error) {
	var (
		cands []contact.Candidate
		given []string
		eof   bool
		err   error
	)
	for len(cands) < contact.MaxBulk {
		cells, err := rows.csv.Read()
		if errors.Is(err, io.EOF) {
			eof = true
			break
		}
		var parse *csv.ParseError
		if err != nil && !errors.As(err, &parse) {
			// The file could not be read (S3, the network): the slice
			// fails, and runs again from the last committed batch.
			return false, err
		}
		var c contact.Candidate
		var mail string
		switch {
		case err != nil:
			c.Err = gifting.Errorf(gifting.CodeValidation, "not a CSV row: %v", err)
		case len(cells) != len(j.Header):
			c.Err = gifting.Errorf(gifting.CodeValidation, "the row has %d cells; the header has %d", len(cells), len(j.Header))
		default:
			c, mail = Candidate(j.Header, cells)
		}
		cands, given = append(cands, c), append(given, mail)
	}
	var res contact.BulkResult
	if len(cands) > 0 {
		res, err = a.contacts.AddCandidates(ctx, j.OrgID, j.ListID, cands, source)
	}
	if gifting.ErrorCode(err) == gifting.CodeNotFound {
		return true, a.fail(ctx, j, "the contact list was deleted while the file was read")
	}
	if err != nil {
		return false, err
	}
	var failed []FailedRow
	for _, it := range res.Items {
		if it.Status == contact.StatusFailed {
			failed = append(failed, FailedRow{Row: j.RowsDone + it.Index + 1, MailID: given[it.Index], Reason: it.Reason})
		}
	}
	from := j.Offset
	next := *j
	next.Offset, next.UpdatedAt = rows.offset(), a.store.Now()
	next.RowsDone += len(cands)
	next.Created, next.Merged, next.Unchanged, next.Failed = next.Created+res.Created, next.Merged+res.Merged, next.Unchanged+res.Unchanged, next.Failed+res.Failed
	if eof {
		next.Status = StatusDone
	}
	err = a.store.CommitImport(ctx, next, StatusRunning, from, failed, j.CreatedAt.Add(JobTTL))
	if errors.Is(err, ErrMoved) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	*j = next
	return eof, nil
}

// String describes a job for logs: ids and counts only.
func (j Job) String() string {
	return fmt.Sprintf("import %s org=%s list=%s status=%s rows=%d", j.ID, j.OrgID, j.ListID, j.Status, j.RowsDone)
}
