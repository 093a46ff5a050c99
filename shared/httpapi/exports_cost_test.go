package httpapi_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/bench/meter"
)

// TestExportPagesCostTheSameAtAnyDepth: every page of a list's export,
// the last as the first, reads the same requests (the list, one Query of
// keys from the cursor, one BatchGet of the page) and about the same read
// units: a page starts at its cursor's key, never by walking the rows
// before it.
func TestExportPagesCostTheSameAtAnyDepth(t *testing.T) {
	t.Parallel()
	a, _ := newMeteredContactsAPI(t)
	list := createList(t, a.API, "Big")
	importContacts(t, a.API, list, people(1, 90)...)
	type cost struct {
		ops   string
		units float64
	}
	var costs []cost
	for path := "/api/campaigns/contact-lists/" + list + "/contacts/export?limit=10"; path != ""; {
		u := &meter.Usage{Record: true}
		a.usage.Store(u)
		res := a.Do("GET", path, nil)
		a.usage.Store(&meter.Usage{})
		if res.Status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
		}
		var ops []string
		for _, c := range u.Calls() {
			ops = append(ops, c.Op)
		}
		slices.Sort(ops)
		costs = append(costs, cost{strings.Join(ops, " "), u.Counts().ReadUnits})
		path = ""
		if m := nextLink.FindStringSubmatch(res.Header.Get("Link")); m != nil {
			path = m[1]
		}
	}
	if len(costs) < 9 {
		t.Fatalf("%d pages of 10 for 90 contacts", len(costs))
	}
	first, last := costs[0], costs[8]
	if last.ops != first.ops || last.units > first.units+0.5 {
		t.Errorf("page 9 costs %+v; page 1 %+v: want the same requests and read units", last, first)
	}
	t.Logf("page 1: %+v; page 9: %+v", first, last)
}

// TestExportRoundTripsThroughPythonCSV: a recipients page whose cells hold
// quotes, commas, line breaks and formulas reads back the same through
// Python's csv module as through Go's: a spreadsheet or script gets the
// cells the service wrote.
func TestExportRoundTripsThroughPythonCSV(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	f := newOrderFixture(t)
	r := f.claimed(t, "jane@example.com", mainStreet)
	base := "/api/campaigns/campaigns/" + f.campaignID + "/recipients/"
	for _, text := range []string{"=SUM(A1:A9), \"great\"", "line one\nline two, with a comma"} {
		if res := f.api.Do("POST", base+r.RecipientID+"/feedback", map[string]any{"message": map[string]any{"text": text}}); res.Status != http.StatusOK {
			t.Fatalf("feedback: %d %s", res.Status, res.Body)
		}
	}
	res := f.api.Do("GET", base+"export", nil)
	goRows, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
	if res.Status != http.StatusOK || err != nil {
		t.Fatalf("export: %d %v %s", res.Status, err, res.Body)
	}
	cmd := exec.Command(python, "-c", "import csv, io, json, sys; print(json.dumps(list(csv.reader(io.StringIO(sys.stdin.read(), newline='')))))")
	cmd.Stdin = strings.NewReader(string(res.Body))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python csv: %v", err)
	}
	var pyRows [][]string
	if err := json.Unmarshal(out, &pyRows); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(goRows, pyRows, slices.Equal) {
		t.Fatalf("Python reads %q; Go reads %q", pyRows, goRows)
	}
	col := column(t, goRows[0])
	if got, want := col(pyRows[1], "feedbackMessages"), "'=SUM(A1:A9), \"great\"\nline one\nline two, with a comma"; got != want {
		t.Errorf("feedbackMessages read by Python %q; want %q", got, want)
	}
}
