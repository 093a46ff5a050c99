package httpapi

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/csvexport"
	"github.com/giftcampaign/service/shared/gifting"
)

// The CSV import of contacts (docs/import.md): POST …/contacts/import makes
// a job and answers 202 with the URL to PUT the file to (S3: API Gateway
// and Lambda take no 10 MB body); GET /jobs/{jobId} shows its progress,
// and starts it once the file is there; GET /jobs/{jobId}/failed-rows is
// the failed rows as CSV.

func (s *Server) importRoutes() []route {
	return []route{
		{pattern: "POST /api/campaigns/contact-lists/{listId}/contacts/import", handle: s.startImport, rate: gifting.RateBulkAdd},
		{pattern: "GET /api/campaigns/jobs/{jobId}", handle: s.getJob},
		{pattern: "GET /api/campaigns/jobs/{jobId}/failed-rows", handle: s.exportFailedRows},
	}
}

// maxFailedRowsShown bounds the failed rows a job's JSON lists; all of them
// are in GET /jobs/{jobId}/failed-rows.
const maxFailedRowsShown = 1000

// importJobDTO is an import job as the API shows it.
type importJobDTO struct {
	JobID           string                    `json:"jobId"`
	Kind            string                    `json:"kind"`
	ListID          string                    `json:"listId"`
	Status          string                    `json:"status"`
	UploadURL       string                    `json:"uploadUrl,omitempty"`
	UploadMethod    string                    `json:"uploadMethod,omitempty"`
	UploadExpiresAt *time.Time                `json:"uploadExpiresAt,omitempty"`
	Error           string                    `json:"error,omitempty"`
	SizeBytes       int64                     `json:"sizeBytes"`
	RowsDone        int                       `json:"rowsDone"`
	Created         int                       `json:"created"`
	Merged          int                       `json:"merged"`
	Unchanged       int                       `json:"unchanged"`
	Failed          int                       `json:"failed"`
	FailedRows      []contactimport.FailedRow `json:"failedRows,omitempty"`
	FailedRowsURL   string                    `json:"failedRowsUrl,omitempty"`
	CreatedAt       time.Time                 `json:"createdAt"`
	UpdatedAt       time.Time                 `json:"updatedAt"`
}

func importJobOf(st contactimport.Started) importJobDTO {
	j := st.Job
	d := importJobDTO{JobID: j.ID, Kind: contactimport.JobKind, ListID: j.ListID, Status: j.Status, Error: j.Error,
		SizeBytes: j.Size, RowsDone: j.RowsDone, Created: j.Created, Merged: j.Merged, Unchanged: j.Unchanged, Failed: j.Failed,
		CreatedAt: j.CreatedAt, UpdatedAt: j.UpdatedAt}
	if st.Upload != "" {
		exp := st.UploadExpires.UTC()
		d.UploadURL, d.UploadMethod, d.UploadExpiresAt = st.Upload, http.MethodPut, &exp
	}
	if j.Status == contactimport.StatusDone && j.Failed > 0 {
		d.FailedRows = st.Failures[:min(len(st.Failures), maxFailedRowsShown)]
		d.FailedRowsURL = "/api/campaigns/jobs/" + j.ID + "/failed-rows"
	}
	return d
}

// startImport serves POST …/contacts/import. It takes no body: the file
// goes to the upload URL it answers. The same Idempotency-Key for the same
// list is the same job.
func (s *Server) startImport(w http.ResponseWriter, r *http.Request) error {
	if n, _ := io.ReadFull(http.MaxBytesReader(w, r.Body, 1), make([]byte, 1)); n > 0 {
		var p gifting.Problems
		p.Add("body", "send no body: PUT the CSV file to the uploadUrl this request answers (docs/import.md)")
		return p.Err()
	}
	listID := r.PathValue("listId")
	key, err := idempotencyKey(r, "contacts.import", listID, nil)
	if err != nil {
		return err
	}
	st, err := s.svc.Imports().Start(r.Context(), principal(r.Context()).OrgID, listID, key)
	if err != nil {
		return err
	}
	if st.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeEnvelope(w, http.StatusAccepted, "Import job created; PUT the CSV file to data.uploadUrl, then follow GET /api/campaigns/jobs/"+st.Job.ID,
		importJobOf(st))
	return nil
}

// getJob serves GET /jobs/{jobId}.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request) error {
	st, err := s.svc.Imports().Job(r.Context(), principal(r.Context()).OrgID, r.PathValue("jobId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Job retrieved", importJobOf(st))
	return nil
}

// failedRowColumns is the header of the failed rows' CSV.
var failedRowColumns = []string{"row", "mailId", "reason"}

// exportFailedRows serves GET /jobs/{jobId}/failed-rows: text/csv pages, as
// the exports (cursor: the last row number of the page before).
func (s *Server) exportFailedRows(w http.ResponseWriter, r *http.Request) error {
	q, limit, cursor := exportQuery(r)
	after := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			q.problems.Add("cursor", "is not a cursor a Link header gave")
		}
		after = n
	}
	if err := q.err(); err != nil {
		return err
	}
	jobID := r.PathValue("jobId")
	_, failed, err := s.svc.Imports().FailedRows(r.Context(), principal(r.Context()).OrgID, jobID)
	if err != nil {
		return err
	}
	var rows []contactimport.FailedRow
	var cursors []string
	for _, f := range failed {
		if f.Row > after && len(rows) < limit {
			rows, cursors = append(rows, f), append(cursors, strconv.Itoa(f.Row))
		}
	}
	next := ""
	if len(rows) == limit && rows[len(rows)-1].Row < failed[len(failed)-1].Row {
		next = cursors[len(cursors)-1]
	}
	sendRows(w, r, "import-"+jobID+"-failed-rows.csv", failedRowColumns, limit, rows, cursors, next, func(f contactimport.FailedRow) []string {
		return csvexport.Safe(strconv.Itoa(f.Row), f.MailID, f.Reason)
	})
	return nil
}
