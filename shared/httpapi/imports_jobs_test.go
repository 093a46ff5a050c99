package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestContactImportIdempotencyKey: the same Idempotency-Key for the same
// list is one job (answered again as a replay, with an upload URL while
// it awaits its file); for another list it is a 422; without a key each
// request is a job of its own.
func TestContactImportIdempotencyKey(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	list, other := createList(t, api, "Leads"), createList(t, api, "Others")
	first, res := startImport(t, api, list, "import-2026-03-01")
	if res.Status != http.StatusAccepted || first.Status != "awaitingUpload" || first.UploadURL == "" || res.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first: %d %+v replayed %q", res.Status, first, res.Header.Get("Idempotent-Replayed"))
	}
	again, res := startImport(t, api, list, "import-2026-03-01")
	if res.Status != http.StatusAccepted || again.JobID != first.JobID || again.UploadURL == "" || res.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("replay: %d job %s (first %s) url %q replayed %q", res.Status, again.JobID, first.JobID, again.UploadURL, res.Header.Get("Idempotent-Replayed"))
	}
	if _, res := startImport(t, api, other, "import-2026-03-01"); res.Status != http.StatusUnprocessableEntity || !strings.Contains(string(res.Body), "IDEMPOTENCY_KEY_REUSED") {
		t.Fatalf("the key with another list: %d %s", res.Status, res.Body)
	}
	upload(t, first.UploadURL, []byte("email,firstName\nada@example.com,Ada\n"))
	done := awaitJob(t, api, first.JobID)
	if done.Status != "done" || done.Created != 1 {
		t.Fatalf("job %+v", done)
	}
	// After the upload a replay is the job as it stands, with no URL.
	after, res := startImport(t, api, list, "import-2026-03-01")
	if res.Status != http.StatusAccepted || after.JobID != first.JobID || after.Status != "done" || after.UploadURL != "" {
		t.Fatalf("replay after the upload: %d %+v", res.Status, after)
	}
	a, _ := startImport(t, api, list, "")
	b, _ := startImport(t, api, list, "")
	if a.JobID == "" || a.JobID == b.JobID {
		t.Fatalf("two requests without a key gave jobs %q and %q", a.JobID, b.JobID)
	}
}

// TestContactImportOtherOrganization: another organization's job and its
// failed rows are 404, and its list cannot be imported into.
func TestContactImportOtherOrganization(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	list := createList(t, api, "Leads")
	job := importFile(t, api, list, []byte("email\nnot-an-email\nada@example.com\n"))
	_, otherKey := testenv.Org(t, s, "globex", 0)
	other := api.WithKey(otherKey)
	for _, path := range []string{"/api/campaigns/jobs/" + job.JobID, "/api/campaigns/jobs/" + job.JobID + "/failed-rows"} {
		if res := other.Do("GET", path, nil); res.Status != http.StatusNotFound {
			t.Errorf("GET %s by another organization: %d %s", path, res.Status, res.Body)
		}
	}
	if _, res := startImport(t, other, list, ""); res.Status != http.StatusNotFound {
		t.Errorf("import into another organization's list: %d %s", res.Status, res.Body)
	}
}

// TestContactImportBadFiles: a header naming no email column or an
// unknown one fails the job with the reason; rows with the wrong number of
// cells, a broken quote or formula-looking addresses fail alone, and the
// failed rows' CSV neutralises formulas; a body sent to the POST is a 400.
func TestContactImportBadFiles(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	const orgID = "acme" // newContactsAPI's
	list := createList(t, api, "Leads")
	for file, want := range map[string]string{
		"firstName,lastName\nAda,Lovelace\n":  "names no email column",
		"email,shoeSize\nada@example.com,9\n": `"shoeSize"`,
		"":                                    "the file is empty",
	} {
		job := importFile(t, api, list, []byte(file))
		if job.Status != "failed" || !strings.Contains(job.Error, want) || job.RowsDone != 0 {
			t.Errorf("file %q: job %s %q rows %d; want failed with %q", file, job.Status, job.Error, job.RowsDone, want)
		}
		api.Jobs.Wait()
		if uploaded(t, orgID, job.JobID) {
			t.Errorf("file %q: kept after its job failed", file)
		}
	}
	file := "\ufeffEmail,First Name\r\n" // a header cell that names no field
	if job := importFile(t, api, list, []byte(file)); job.Status != "failed" {
		t.Errorf("header with a space: job %s", job.Status)
	}
	file = "EMAIL,firstName\r\nada@example.com,Ada\r\ngrace@example.com\r\n=cmd|' /C calc'!A0,x\r\nbob@example.com,\"Bo\"b\"\r\nkay@example.com,Kay\r\n"
	job := importFile(t, api, list, []byte(file))
	if job.Status != "done" || job.RowsDone != 5 || job.Created != 2 || job.Failed != 3 {
		t.Fatalf("job %+v; want done, 5 rows, 2 created, 3 failed", job)
	}
	rows := failedRowsCSV(t, api, job.JobID)
	want := []struct {
		row    int
		mail   string
		reason string
	}{{2, "", "the row has 1 cells; the header has 2"}, {3, "'=cmd|' /C calc'!A0", "not a valid email"}, {4, "", "not a CSV row"}}
	if len(rows) != len(want) {
		t.Fatalf("failed rows %+v", rows)
	}
	for i, w := range want {
		if rows[i].row != w.row || rows[i].mailID != w.mail || !strings.Contains(rows[i].reason, w.reason) {
			t.Errorf("failed row %d = %+v; want %+v", i, rows[i], w)
		}
	}
	res := api.Do("POST", "/api/campaigns/contact-lists/"+list+"/contacts/import", "email\nada@example.com\n")
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "uploadUrl") {
		t.Errorf("a body on the POST: %d %s", res.Status, res.Body)
	}
}

// crashingFiles reads the uploads as the S3 emulator gives them, but the
// first read breaks off after limit bytes, as a worker that dies mid-file
// stops reading (a fault the emulator cannot produce).
type crashingFiles struct {
	contactimport.Files
	limit int64
}

func (f *crashingFiles) Open(ctx context.Context, key string, offset int64) (io.ReadCloser, error) {
	body, err := f.Files.Open(ctx, key, offset)
	if err != nil {
		return nil, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(io.LimitReader(body, f.limit), errReader{}), body}, nil
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset: the worker died") }

// TestContactImportResumesAfterACrash: a worker that dies mid-file leaves
// the job at its last committed batch; the next run resumes there, so
// every row is read once: the counts add up to the file and every person
// is in the list once.
func TestContactImportResumesAfterACrash(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api, _ := testenv.HeldAPI(t, s, key) // jobs held: this test runs the slices itself
	list := createList(t, api, "Leads")
	var b strings.Builder
	b.WriteString("email,firstName\n")
	for i := range 450 {
		if i%50 == 7 {
			fmt.Fprintf(&b, "bad-%d,x\n", i)
			continue
		}
		fmt.Fprintf(&b, "p%03d@example.com,\"P, %d\"\n", i, i)
	}
	job, _ := startImport(t, api, list, "")
	upload(t, job.UploadURL, []byte(b.String()))
	if res := api.Do("GET", "/api/campaigns/jobs/"+job.JobID, nil); res.Status != http.StatusOK {
		t.Fatalf("GET job: %d", res.Status)
	}
	orgID := "acme"
	crashing := contactimport.NewApp(s, &crashingFiles{Files: testenv.Files(t), limit: int64(b.Len() / 2)}, api.Service.Contacts(), nil)
	if _, err := crashing.RunSlice(context.Background(), orgID, job.JobID); err == nil {
		t.Fatal("the crashing read did not fail the slice")
	}
	mid := readJob(t, api, job.JobID)
	if mid.Status != "running" || mid.RowsDone == 0 || mid.RowsDone%100 != 0 || mid.RowsDone >= 450 {
		t.Fatalf("after the crash: %+v; want running at a batch boundary", mid)
	}
	if !uploaded(t, orgID, job.JobID) {
		t.Fatal("the file is gone while its job runs")
	}
	for more := true; more; {
		var err error
		if more, err = api.Service.Imports().RunSlice(context.Background(), orgID, job.JobID); err != nil {
			t.Fatal(err)
		}
	}
	done := readJob(t, api, job.JobID)
	if done.Status != "done" || done.RowsDone != 450 || done.Created != 441 || done.Failed != 9 || done.Merged != 0 {
		t.Fatalf("after resuming: %+v; want done, 450 rows, 441 created, 9 failed, none merged", done)
	}
	if uploaded(t, orgID, job.JobID) {
		t.Error("the uploaded file outlived its job")
	}
	var l struct {
		Data struct {
			ContactCount int `json:"contactCount"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/contact-lists/"+list, nil).JSON(t, &l)
	if l.Data.ContactCount != 441 {
		t.Fatalf("the list has %d contacts, want 441", l.Data.ContactCount)
	}
}

// readJob reads a job once (the read that starts or resumes it).
func readJob(t *testing.T, api *testenv.API, jobID string) importJob {
	t.Helper()
	var body struct {
		Data importJob `json:"data"`
	}
	api.Do("GET", "/api/campaigns/jobs/"+jobID, nil).JSON(t, &body)
	return body.Data
}

// uploaded reports whether the S3 emulator still holds a job's file.
func uploaded(t *testing.T, orgID, jobID string) bool {
	t.Helper()
	_, found, err := testenv.Files(t).Size(context.Background(), contactimport.FileKey(orgID, jobID))
	if err != nil {
		t.Fatal(err)
	}
	return found
}
