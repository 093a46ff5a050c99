package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/testenv"
)

// importJob is a job as GET /jobs/{jobId} answers it.
type importJob struct {
	JobID      string `json:"jobId"`
	ListID     string `json:"listId"`
	Status     string `json:"status"`
	UploadURL  string `json:"uploadUrl"`
	Error      string `json:"error"`
	RowsDone   int    `json:"rowsDone"`
	Created    int    `json:"created"`
	Merged     int    `json:"merged"`
	Unchanged  int    `json:"unchanged"`
	Failed     int    `json:"failed"`
	FailedRows []struct {
		Row    int    `json:"row"`
		MailID string `json:"mailId"`
		Reason string `json:"reason"`
	} `json:"failedRows"`
	FailedRowsURL string `json:"failedRowsUrl"`
}

// startImport starts an import into listID under key ("" for none) and
// returns the job and the response's status.
func startImport(t *testing.T, api *testenv.API, listID, key string) (importJob, testenv.Response) {
	t.Helper()
	var headers []string
	if key != "" {
		headers = []string{"Idempotency-Key", key}
	}
	res := api.Do("POST", "/api/campaigns/contact-lists/"+listID+"/contacts/import", nil, headers...)
	var body struct {
		Data importJob `json:"data"`
	}
	if res.Status == http.StatusAccepted {
		res.JSON(t, &body)
	}
	return body.Data, res
}

// upload PUTs file to a job's upload URL, as a client does (the S3
// emulator, over real HTTP).
func upload(t *testing.T, url string, file []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/csv")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("upload: %s %s", resp.Status, b)
	}
}

// awaitJob reads the job until it is done or failed (the first read after
// the upload starts it).
func awaitJob(t *testing.T, api *testenv.API, jobID string) importJob {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		res := api.Do("GET", "/api/campaigns/jobs/"+jobID, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("GET job: %d %s", res.Status, res.Body)
		}
		var body struct {
			Data importJob `json:"data"`
		}
		res.JSON(t, &body)
		if body.Data.Status == "done" || body.Data.Status == "failed" {
			return body.Data
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %s after 5 minutes (%d rows)", body.Data.Status, body.Data.RowsDone)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// importFile imports file into listID and waits for the outcome.
func importFile(t *testing.T, api *testenv.API, listID string, file []byte) importJob {
	t.Helper()
	job, res := startImport(t, api, listID, "")
	if res.Status != http.StatusAccepted {
		t.Fatalf("start import: %d %s", res.Status, res.Body)
	}
	upload(t, job.UploadURL, file)
	return awaitJob(t, api, job.JobID)
}

// csvFile writes rows as RFC 4180 CSV (CRLF, quoted where needed), after
// a BOM when bom is set.
func csvFile(t *testing.T, bom bool, rows [][]string) []byte {
	t.Helper()
	var b bytes.Buffer
	if bom {
		b.WriteString("\ufeff")
	}
	w := csv.NewWriter(&b)
	w.UseCRLF = true
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// exportedMembers reads every page of a list's CSV export, without the
// columns that differ between two lists of the same people (ids, lists,
// dates), sorted.
func exportedMembers(t *testing.T, api *testenv.API, listID string) []string {
	t.Helper()
	var out []string
	path := "/api/campaigns/contact-lists/" + listID + "/contacts/export"
	for path != "" {
		res := api.Do("GET", path, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("export: %d %s", res.Status, res.Body)
		}
		recs, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		keep := func(name string) bool {
			return !slices.Contains([]string{"contactId", "listIds", "createdAt", "updatedAt"}, name)
		}
		for _, rec := range recs[1:] {
			var cells []string
			for i, c := range rec {
				if keep(recs[0][i]) {
					cells = append(cells, c)
				}
			}
			out = append(out, strings.Join(cells, "\x1f"))
		}
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			path = link[1:strings.Index(link, ">")]
		}
	}
	slices.Sort(out)
	return out
}

// importRows are n rows of people as a spreadsheet holds them: commas,
// quotes and line breaks inside cells, every tenth row an email seen
// before (merged), and bad ones: invalid and missing emails, a mailId
// that differs from the email, a name too long.
func importRows(n int) (header []string, rows [][]string) {
	header = []string{"email", "mailId", "firstName", "lastName", "companyName", "jobTitle", "tags", "city", "country"}
	email := func(i int) string { return fmt.Sprintf("person%05d@example.com", i) }
	for i := range n {
		row := []string{email(i), "", fmt.Sprintf("First%d", i), "Last", fmt.Sprintf("Acme, Inc. #%d", i%37),
			"Head of \"Gifts\"", "vip; q" + fmt.Sprint(i%4), "Springfield", "US"}
		switch {
		case i%10 == 3 && i > 10:
			row[0], row[2] = email(i*7919%i), "" // an earlier person again: fills no name, unites tags
			row[5] = "Line one\nline two"
		case i%97 == 5:
			row[0] = fmt.Sprintf("not-an-email-%d", i)
		case i%251 == 7:
			row[0] = ""
		case i%333 == 9:
			row[1] = "someone.else@example.com"
		case i%499 == 11:
			row[2] = strings.Repeat("N", 300)
		case i%13 == 0:
			row[0] = strings.ToUpper(email(i - 1)) // the row before, in other letter case
		}
		rows = append(rows, row)
	}
	return header, rows
}

// bulkContactOf is a row as the JSON bulk add's contact, field for field.
func bulkContactOf(header, row []string) map[string]any {
	c := map[string]any{}
	for i, name := range header {
		switch {
		case name == "tags":
			var tags []string
			for _, t := range strings.Split(row[i], ";") {
				if t = strings.TrimSpace(t); t != "" {
					tags = append(tags, t)
				}
			}
			if tags != nil {
				c["tags"] = tags
			}
		case name == "city" || name == "country":
			addr, _ := c["address"].(map[string]any)
			if addr == nil {
				addr = map[string]any{}
				c["address"] = addr
			}
			if row[i] != "" {
				addr[name] = row[i]
			}
		case row[i] != "":
			// An empty cell is an absent field, as a JSON client leaves it out.
			c[name] = row[i]
		}
	}
	return c
}

// TestContactImportMatchesBulkAdd: a 10,000-row CSV file (a BOM, quoted
// commas and quotes, line breaks in cells, repeated emails, bad rows)
// imported into one organization's list ends exactly as the JSON bulk add
// of the same rows, 100 a request, into another's: the same counts, the
// same rows failed for the same reasons, the same contacts stored.
func TestContactImportMatchesBulkAdd(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, csvKey := testenv.Org(t, s, "csvorg", 0)
	_, jsonKey := testenv.Org(t, s, "jsonorg", 0)
	csvAPI := testenv.NewAPI(t, s, csvKey)
	jsonAPI := csvAPI.WithKey(jsonKey)
	csvList, jsonList := createList(t, csvAPI, "From CSV"), createList(t, jsonAPI, "From JSON")

	header, rows := importRows(10_000)
	// The import runs in the background (the job's queue) while the same
	// rows go through the JSON bulk add: two organizations, nothing shared.
	started, res := startImport(t, csvAPI, csvList, "")
	if res.Status != http.StatusAccepted {
		t.Fatalf("start import: %d %s", res.Status, res.Body)
	}
	upload(t, started.UploadURL, csvFile(t, true, append([][]string{header}, rows...)))
	if res := csvAPI.Do("GET", "/api/campaigns/jobs/"+started.JobID, nil); res.Status != http.StatusOK {
		t.Fatalf("GET job: %d %s", res.Status, res.Body)
	}
	began := time.Now()

	var want bulkResult
	type failure struct {
		row    int
		reason string
	}
	var wantFailed []failure
	for start := 0; start < len(rows); start += 100 {
		var contacts []map[string]any
		for _, row := range rows[start:min(start+100, len(rows))] {
			contacts = append(contacts, bulkContactOf(header, row))
		}
		res := jsonAPI.Do("POST", "/api/campaigns/contact-lists/"+jsonList+"/contacts", map[string]any{"contacts": contacts})
		var body bulkResponse
		res.JSON(t, &body)
		want.Created, want.Merged, want.Unchanged, want.Failed = want.Created+body.Data.Created, want.Merged+body.Data.Merged,
			want.Unchanged+body.Data.Unchanged, want.Failed+body.Data.Failed
		for _, it := range body.Data.Items {
			if it.Status == "failed" {
				wantFailed = append(wantFailed, failure{start + it.Index + 1, it.Reason})
			}
		}
	}
	t.Logf("bulk-added %d rows in %v", len(rows), time.Since(began))
	job := awaitJob(t, csvAPI, started.JobID)
	t.Logf("imported %d rows in %v", job.RowsDone, time.Since(began))
	if job.Status != "done" || job.RowsDone != len(rows) {
		t.Fatalf("job %s (%s) with %d rows done, want done with %d", job.Status, job.Error, job.RowsDone, len(rows))
	}
	if job.Created != want.Created || job.Merged != want.Merged || job.Unchanged != want.Unchanged || job.Failed != want.Failed {
		t.Fatalf("import: created %d merged %d unchanged %d failed %d; bulk add: created %d merged %d unchanged %d failed %d",
			job.Created, job.Merged, job.Unchanged, job.Failed, want.Created, want.Merged, want.Unchanged, want.Failed)
	}
	if want.Merged < 900 || want.Failed < 100 {
		t.Fatalf("the rows test too little: %d merged, %d failed", want.Merged, want.Failed)
	}
	var gotFailed []failure
	for _, f := range failedRowsCSV(t, csvAPI, job.JobID) {
		gotFailed = append(gotFailed, failure{f.row, f.reason})
	}
	if !slices.Equal(gotFailed, wantFailed) {
		t.Fatalf("failed rows differ: import %d, bulk add %d; first import %v, first bulk add %v", len(gotFailed), len(wantFailed),
			gotFailed[:min(3, len(gotFailed))], wantFailed[:min(3, len(wantFailed))])
	}
	if len(job.FailedRows) != min(len(wantFailed), 1000) || job.FailedRows[0].Row != wantFailed[0].row {
		t.Fatalf("the job lists %d failed rows, first %+v; want %d, first %+v", len(job.FailedRows), job.FailedRows[0], min(len(wantFailed), 1000), wantFailed[0])
	}
	got, wantMembers := exportedMembers(t, csvAPI, csvList), exportedMembers(t, jsonAPI, jsonList)
	if len(got) != want.Created || !slices.Equal(got, wantMembers) {
		t.Fatalf("the lists differ: %d contacts imported, %d bulk-added (created %d)", len(got), len(wantMembers), want.Created)
	}
}

// failedRow is a row of GET /jobs/{jobId}/failed-rows.
type failedRow struct {
	row    int
	mailID string
	reason string
}

// failedRowsCSV reads every page of a job's failed rows.
func failedRowsCSV(t *testing.T, api *testenv.API, jobID string) []failedRow {
	t.Helper()
	var out []failedRow
	path := "/api/campaigns/jobs/" + jobID + "/failed-rows"
	for path != "" {
		res := api.Do("GET", path, nil)
		if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
			t.Fatalf("failed rows: %d %s %s", res.Status, res.Header.Get("Content-Type"), res.Body)
		}
		recs, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(recs[0], []string{"row", "mailId", "reason"}) {
			t.Fatalf("header %q", recs[0])
		}
		for _, r := range recs[1:] {
			var n int
			fmt.Sscan(r[0], &n)
			out = append(out, failedRow{n, r[1], r[2]})
		}
		path = ""
		if link := res.Header.Get("Link"); link != "" {
			path = link[1:strings.Index(link, ">")]
		}
	}
	return out
}
