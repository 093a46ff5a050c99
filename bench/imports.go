package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/s3files"
	"github.com/giftcampaign/service/shared/service"
)

// importRows is the size of the CSV import row (a short run: the 10,000-row
// import through the bulk add is the chain's first figure).
const importRows = 2_000

// importScenario measures a CSV import (docs/import.md): a file of rows,
// every tenth an email seen before, uploaded to the S3 emulator and read by
// the job, on a table of its own so the meter holds only the import (and
// the polls of its job, one a second).
func importScenario(ctx context.Context, parent *env, n int) []systemFigure {
	method := fmt.Sprintf("CSV import: a file of %d rows (email, names, a company with a comma, tags; every tenth row an email seen before) PUT to the S3 emulator's presigned URL (S3_ENDPOINT), then GET /api/campaigns/jobs/{id} once a second until done; the wall time runs from the first GET (which starts the job) to the last, and the units are everything the table served meanwhile (the job's batches and the polls).", n)
	fail := func(err error) []systemFigure {
		return []systemFigure{{figure: "CSV import", measured: "failed: " + oneLine(err.Error()), method: method}}
	}
	endpoint, bucket := os.Getenv("S3_ENDPOINT"), os.Getenv("IMPORTS_BUCKET")
	if endpoint == "" || bucket == "" {
		return fail(fmt.Errorf("no S3 emulator: run under infra/local exec (make bench)"))
	}
	files, err := s3files.New(app.Config{S3Endpoint: endpoint, ImportsBucket: bucket})
	if err != nil {
		return fail(err)
	}
	e, err := parent.sibling(ctx, envConfig{service: service.Config{Files: files}})
	if err != nil {
		return fail(err)
	}
	defer e.close()
	t, err := e.newTenant(ctx, "importer", 0)
	if err != nil {
		return fail(err)
	}
	listID, err := e.createList(ctx, t, "CSV import")
	if err != nil {
		return fail(err)
	}
	var job struct {
		Data struct {
			JobID, UploadURL, Status, Error string
			Created, Merged, Failed         int
		} `json:"data"`
	}
	res, err := e.expect(ctx, t, http.StatusAccepted, "POST", "/api/campaigns/contact-lists/"+listID+"/contacts/import", nil)
	if err == nil {
		err = res.decode(&job)
	}
	if err == nil {
		err = putFile(ctx, job.Data.UploadURL, importFile(n))
	}
	if err != nil {
		return fail(err)
	}
	took, used, billed, err := e.observe(ctx, func() error {
		for job.Data.Status != "done" && job.Data.Status != "failed" {
			res, err := e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/jobs/"+job.Data.JobID, nil)
			if err == nil {
				err = res.decode(&job)
			}
			if err != nil {
				return err
			}
			time.Sleep(time.Second)
		}
		if job.Data.Status == "failed" {
			return fmt.Errorf("the job failed: %s", job.Data.Error)
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	bulkBilled, err := bulkAddSame(ctx, e, n)
	if err != nil {
		return fail(err)
	}
	return []systemFigure{
		{figure: fmt.Sprintf("CSV import of %d rows (POST …/contacts/import, PUT to S3, GET /jobs/{id} until done): rows per second", n),
			measured: fmt.Sprintf("%.0f rows/s (%.1f s; %d created, %d merged, %d failed)", float64(n)/took.Seconds(), took.Seconds(),
				job.Data.Created, job.Data.Merged, job.Data.Failed), method: method},
		{figure: fmt.Sprintf("CSV import of %d rows: write units per row", n),
			measured: fmt.Sprintf("%.2f WRU billed, est. (%.0f in all; DynamoDB Local reported %.0f; %.2f RRU per row)", billed/float64(n), billed,
				used.WriteUnits, used.ReadUnits/float64(n))},
		{figure: fmt.Sprintf("the same %d rows through the JSON bulk add (POST …/contacts, 100 a request): write units per row", n),
			measured: fmt.Sprintf("%.2f WRU billed, est.: the import adds %.2f per row (its job's commits and polls)", bulkBilled/float64(n), (billed-bulkBilled)/float64(n))},
	}
}

// importFile is the CSV file of importScenario.
func importFile(n int) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write([]string{"email", "firstName", "lastName", "companyName", "tags"})
	for i := range n {
		k := i
		if i%10 == 9 {
			k = i / 2
		}
		_ = w.Write([]string{fmt.Sprintf("import%06d@example.com", k), fmt.Sprintf("First %d", i), "Last", "Acme, Inc.", "csv; bench"})
	}
	w.Flush()
	return b.Bytes()
}

// putFile uploads a file as a client does.
func putFile(ctx context.Context, url string, file []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, bytes.NewReader(file))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "text/csv")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("upload: %s", resp.Status)
	}
	return nil
}

// bulkAddSame adds importFile's rows to a list of another organization
// through the JSON bulk add, 100 a request, and returns the write units
// billed (est.): what the import's rows cost without the import.
func bulkAddSame(ctx context.Context, e *env, n int) (float64, error) {
	t, err := e.newTenant(ctx, "bulkadder", 0)
	if err != nil {
		return 0, err
	}
	listID, err := e.createList(ctx, t, "JSON bulk add")
	if err != nil {
		return 0, err
	}
	recs, err := csv.NewReader(bytes.NewReader(importFile(n))).ReadAll()
	if err != nil {
		return 0, err
	}
	_, _, billed, err := e.observe(ctx, func() error {
		for start := 1; start < len(recs); start += 100 {
			var contacts []map[string]any
			for _, r := range recs[start:min(start+100, len(recs))] {
				contacts = append(contacts, map[string]any{"email": r[0], "firstName": r[1], "lastName": r[2], "companyName": r[3],
					"tags": []string{"csv", "bench"}})
			}
			if _, err := e.expect(ctx, t, http.StatusOK, "POST", "/api/campaigns/contact-lists/"+listID+"/contacts", map[string]any{"contacts": contacts}); err != nil {
				return err
			}
		}
		return nil
	})
	return billed, err
}
