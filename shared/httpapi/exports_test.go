package httpapi_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/testenv"
)

// nextLink is the URL of an export page's Link header.
var nextLink = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// exportAll reads every page of an export from path, following each
// page's Link, and returns the header row (the same on every page, or the
// test fails), the rows of all pages in order and the number of pages.
func exportAll(t *testing.T, api *testenv.API, path string) (header []string, rows [][]string, pages int) {
	t.Helper()
	for path != "" {
		res := api.Do("GET", path, nil)
		if res.Status != http.StatusOK || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Fatalf("GET %s: %d %s %s", path, res.Status, res.Header.Get("Content-Type"), res.Body)
		}
		recs, err := csv.NewReader(strings.NewReader(string(res.Body))).ReadAll()
		if err != nil || len(recs) == 0 {
			t.Fatalf("GET %s: not CSV with a header row (%v): %q", path, err, res.Body)
		}
		if header != nil && !slices.Equal(header, recs[0]) {
			t.Fatalf("page %d's header %q differs from the first's %q", pages+1, recs[0], header)
		}
		header, rows, pages = recs[0], append(rows, recs[1:]...), pages+1
		path = ""
		if m := nextLink.FindStringSubmatch(res.Header.Get("Link")); m != nil {
			path = m[1]
		} else if l := res.Header.Get("Link"); l != "" {
			t.Fatalf("Link %q is not <url>; rel=\"next\"", l)
		}
		if pages > 100 {
			t.Fatal("the export's Links never end")
		}
	}
	return header, rows, pages
}

// column returns a function reading a row's cell under name.
func column(t *testing.T, header []string) func(row []string, name string) string {
	return func(row []string, name string) string {
		t.Helper()
		i := slices.Index(header, name)
		if i < 0 {
			t.Fatalf("no column %q in %q", name, header)
		}
		return row[i]
	}
}

// TestExportListContacts: a list's contacts come out as CSV in pages of
// limit rows whose Links join back to every member exactly once (those
// whose first list it is and those who joined it after another), with
// their fields, a formula neutralised; another organization's list is a
// 404 and a cursor that is not this list's a 400.
func TestExportListContacts(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	list, other := createList(t, api, "Customers"), createList(t, api, "Partners")
	// A member for whom the list is a later list: it is a member item,
	// read after the contacts whose first list it is.
	importContacts(t, api, other, map[string]any{"mailId": "later@example.com", "firstName": "Later", "lastName": "Joiner"})
	members := append(people(1, 6), map[string]any{"mailId": "later@example.com"}, map[string]any{
		"mailId": "eve@example.com", "firstName": "=HYPERLINK(\"https://evil.test\")", "lastName": "Eve",
		"phoneNumber": "+1 555 0100", "companyName": "Acme", "jobTitle": "CFO", "tags": []string{"vip", "q3"},
		"address": map[string]any{"street": "1 Main Street", "city": "Springfield", "state": "IL", "zipCode": "62701", "country": "US"}})
	importContacts(t, api, list, members...)

	header, rows, pages := exportAll(t, api, "/api/campaigns/contact-lists/"+list+"/contacts/export?limit=3")
	if header[0] != "contactId" || !slices.Contains(header, "mailId") || !slices.Contains(header, "createdAt") {
		t.Fatalf("header %q", header)
	}
	if pages < 3 {
		t.Errorf("%d pages of limit 3 for %d members; want 3 or more", pages, len(members))
	}
	col := column(t, header)
	seen := map[string]int{}
	for _, r := range rows {
		seen[col(r, "mailId")]++
		if col(r, "mailId") == "eve@example.com" {
			got := []string{col(r, "firstName"), col(r, "phoneNumber"), col(r, "companyName"), col(r, "street"), col(r, "zipCode"), col(r, "tags")}
			want := []string{"'=HYPERLINK(\"https://evil.test\")", "'+1 555 0100", "Acme", "1 Main Street", "62701", "vip; q3"}
			if !slices.Equal(got, want) {
				t.Errorf("eve's row %q; want %q (formulas prefixed with ')", got, want)
			}
		}
		if col(r, "mailId") == "later@example.com" && !strings.Contains(col(r, "listIds"), list) {
			t.Errorf("later's lists %q; want both", col(r, "listIds"))
		}
	}
	for _, m := range members {
		if seen[m["mailId"].(string)] != 1 {
			t.Errorf("%s exported %d times; want once (all: %v)", m["mailId"], seen[m["mailId"].(string)], seen)
		}
	}
	if len(rows) != len(members) {
		t.Errorf("%d rows; want the %d members", len(rows), len(members))
	}

	_, otherKey := testenv.Org(t, s, "globex", 0)
	assertError(t, api.WithKey(otherKey).Do("GET", "/api/campaigns/contact-lists/"+list+"/contacts/export", nil),
		http.StatusNotFound, "NOT_FOUND")
	for _, bad := range []string{"garbage", "m/MEMBER%23" + other + "%23X1", "s/" + other + "%23x/Y", "s/nolist"} {
		res := api.Do("GET", "/api/campaigns/contact-lists/"+list+"/contacts/export?cursor="+bad, nil)
		assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
		if !strings.Contains(string(res.Body), "cursor") {
			t.Errorf("cursor %s: %s; want the problem named cursor", bad, res.Body)
		}
	}
	assertError(t, api.Do("GET", "/api/campaigns/contact-lists/"+list+"/contacts/export?limit=1001", nil),
		http.StatusBadRequest, "VALIDATION_FAILED")
}

// TestExportCampaignRecipients: a campaign's recipients come out oldest
// first, every one exactly once across pages, with status, contact,
// chosen gift, the address confirmed, tracking, feedback (a formula in it
// neutralised) and dates; another organization's campaign is a 404, a bad
// cursor a 400.
func TestExportCampaignRecipients(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	shipped := f.claimed(t, "jane@example.com", mainStreet)
	order := orderIDOf(t, shipped)
	ship := map[string]any{"carrier": "UPS", "trackingNumber": "1Z999AA10123456784", "trackingUrl": "https://ups.test/1Z999AA10123456784"}
	if res := f.api.Do("POST", "/api/campaigns/orders/"+order+"/shipments", ship); res.Status != http.StatusOK {
		t.Fatalf("ship: %d %s", res.Status, res.Body)
	}
	fb := map[string]any{"rating": "like", "message": map[string]any{"text": "=2+3 loved it"}}
	base := "/api/campaigns/campaigns/" + f.campaignID + "/recipients/"
	if res := f.api.Do("POST", base+shipped.RecipientID+"/feedback", fb); res.Status != http.StatusOK {
		t.Fatalf("feedback: %d %s", res.Status, res.Body)
	}
	want := []string{"jane@example.com"}
	for i := range 4 {
		email := "r" + strconv.Itoa(i) + "@example.com"
		if res := f.api.Do("POST", addPath(f.campaignID), recipientBody(email, "R"+strconv.Itoa(i))); res.Status != http.StatusOK {
			t.Fatalf("add %s: %d %s", email, res.Status, res.Body)
		}
		want = append(want, email)
	}

	header, rows, pages := exportAll(t, f.api, base+"export?limit=2")
	col := column(t, header)
	if pages != 3 || len(rows) != len(want) {
		t.Fatalf("%d rows in %d pages; want %d in 3", len(rows), pages, len(want))
	}
	for i, r := range rows {
		if col(r, "email") != want[i] {
			t.Errorf("row %d is %s; want %s (oldest first, each once)", i, col(r, "email"), want[i])
		}
	}
	j := rows[0]
	got := map[string]string{}
	for _, k := range []string{"recipientId", "status", "firstName", "giftId", "giftName", "giftPrice", "shipLine1", "shipZip",
		"shipPhone", "orderId", "carrier", "trackingNumber", "trackingUrl", "feedbackRating", "feedbackMessages"} {
		got[k] = col(j, k)
	}
	wantJane := map[string]string{"recipientId": shipped.RecipientID, "status": "shipped", "firstName": "Jane", "giftId": f.giftID,
		"giftName": "Mug", "giftPrice": "35", "shipLine1": "1 Main Street", "shipZip": "62701", "shipPhone": "'+1 555 0100",
		"orderId": order, "carrier": "UPS", "trackingNumber": "1Z999AA10123456784", "trackingUrl": "https://ups.test/1Z999AA10123456784",
		"feedbackRating": "like", "feedbackMessages": "'=2+3 loved it"}
	for k, v := range wantJane {
		if got[k] != v {
			t.Errorf("jane's %s = %q; want %q", k, got[k], v)
		}
	}
	for _, k := range []string{"createdAt", "claimedAt", "giftSelectedAt", "shippedAt", "feedbackAt"} {
		if col(j, k) == "" {
			t.Errorf("jane's %s is empty", k)
		}
	}
	if r := rows[1]; col(r, "status") != "invite_sent" || col(r, "claimedAt") != "" || col(r, "carrier") != "" {
		t.Errorf("an unclaimed recipient's row: status %q, claimedAt %q, carrier %q", col(r, "status"), col(r, "claimedAt"), col(r, "carrier"))
	}

	_, otherKey := testenv.Org(t, f.s, "globex", 0)
	assertError(t, f.api.WithKey(otherKey).Do("GET", base+"export", nil), http.StatusNotFound, "NOT_FOUND")
	for _, bad := range []string{"garbage", "a%23b%23c", "%23x"} {
		assertError(t, f.api.Do("GET", base+"export?cursor="+bad, nil), http.StatusBadRequest, "VALIDATION_FAILED")
	}
}

// TestExportWalletLedger: the ledger comes out newest first in pages whose
// Links join back to every entry once, with the amounts exact as GET
// /wallet gives them: the signed amounts sum to the balance. A cursor that
// is not an entry id is a 400.
func TestExportWalletLedger(t *testing.T) {
	t.Parallel()
	f := newOrderFixture(t)
	for i := range 4 {
		if res := f.api.Do("POST", addPath(f.campaignID), recipientBody("l"+strconv.Itoa(i)+"@example.com", "L")); res.Status != http.StatusOK {
			t.Fatalf("add: %d %s", res.Status, res.Body)
		}
	}
	w := walletOf(t, f.api, "?limit=100")
	header, rows, pages := exportAll(t, f.api, "/api/campaigns/wallet/ledger/export?limit=2")
	col := column(t, header)
	if len(rows) != len(w.Ledger.Items) || pages != (len(rows)+1)/2 {
		t.Fatalf("%d rows in %d pages; want the ledger's %d entries, 2 a page", len(rows), pages, len(w.Ledger.Items))
	}
	var sum int64
	for i, r := range rows {
		e := w.Ledger.Items[i]
		amount, _ := strconv.ParseInt(col(r, "amount"), 10, 64)
		after, _ := strconv.ParseInt(col(r, "balanceAfter"), 10, 64)
		if col(r, "entryId") != e.EntryID || col(r, "type") != e.Type || amount != e.Amount || after != e.BalanceAfter ||
			col(r, "campaignId") != e.CampaignID || col(r, "recipientId") != e.RecipientID {
			t.Errorf("row %d %q; want entry %+v", i, r, e)
		}
		if e.Type == "debit" {
			amount = -amount
		}
		sum += amount
	}
	if sum != w.Balance {
		t.Errorf("the exported ledger sums to %d; the balance is %d", sum, w.Balance)
	}
	for _, bad := range []string{"garbage", "01ARZ3NDEKTSV4RRFFQ69G5FA"} {
		assertError(t, f.api.Do("GET", "/api/campaigns/wallet/ledger/export?cursor="+bad, nil), http.StatusBadRequest, "VALIDATION_FAILED")
	}
}

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
