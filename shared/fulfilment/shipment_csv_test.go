package fulfilment_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestParseShipmentCSV: a header is skipped; good rows are read (with or
// without a link); each bad row is reported on its own line with what is
// wrong, and the others still apply; an order twice in a file applies
// once.
func TestParseShipmentCSV(t *testing.T) {
	t.Parallel()
	file := "OrderId,Carrier,TrackingNumber,TrackingUrl\n" +
		"o1,UPS,1Z999AA10123456784,https://track.example/1Z\n" +
		"o2, USPS ,9400 1000 0000,\n" +
		"o3,FedEx\n" +
		",DHL,123,\n" +
		"o5,DHL,123,ftp://files.example/x\n" +
		strings.Repeat("o", 130) + ",DHL,123\n" +
		"o7,DHL,123,https://t.example,extra\n" +
		"O1,UPS,1Z999AA10123456784\n" +
		"\"o9\",\"Royal Mail\",\"AB 123-456 GB\"\n"
	rows, problems, err := fulfilment.ParseShipmentCSV(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = fmt.Sprintf("%d %s %s %s %s", r.Line, r.OrderID, r.Carrier, r.TrackingNumber, r.TrackingURL)
	}
	want := []string{"2 o1 UPS 1Z999AA10123456784 https://track.example/1Z", "3 o2 USPS 9400 1000 0000 ", "10 o9 Royal Mail AB 123-456 GB "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var res fulfilment.ImportResult
	for _, p := range problems {
		res.Add(fulfilment.ProblemItem(p))
	}
	wantProblems := map[int]string{
		4: "has 2 fields; a row is orderId,carrier,trackingNumber,trackingUrl",
		5: "orderId is required",
		6: "trackingUrl must be an http(s) URL",
		7: "orderId must be at most 128 characters",
		8: "has 5 fields; a row is orderId,carrier,trackingNumber,trackingUrl",
		9: "order O1 is on line 2 already; it is applied once",
	}
	if res.Failed != len(wantProblems) || len(res.Items) != len(wantProblems) {
		t.Fatalf("problems %+v; want %d", res.Items, len(wantProblems))
	}
	for _, it := range res.Items {
		if it.Status != fulfilment.RowFailed || wantProblems[it.Line] != it.Reason {
			t.Errorf("line %d: %s %q; want failed %q", it.Line, it.Status, it.Reason, wantProblems[it.Line])
		}
		if len([]rune(it.OrderID)) > 65 {
			t.Errorf("line %d reports an order id of %d characters", it.Line, len(it.OrderID))
		}
	}
}

// TestParseShipmentCSVLines: a spreadsheet's byte order mark does not
// hide the header, and lines are numbered as in the file, blank lines
// and quoted line breaks counted.
func TestParseShipmentCSVLines(t *testing.T) {
	t.Parallel()
	file := "\ufefforderId,carrier,trackingNumber,trackingUrl\r\n\r\no1,UPS,1Z1\r\n\"o\n2\",UPS,1Z2\r\n\r\no3,UPS,1Z/3\r\n"
	rows, problems, err := fulfilment.ParseShipmentCSV(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Line != 3 || rows[0].OrderID != "o1" {
		t.Errorf("rows %+v; want o1 on line 3", rows)
	}
	if len(problems) != 2 || problems[0].Line != 4 || problems[1].Line != 7 || problems[1].Details["trackingNumber"] == "" {
		t.Errorf("problems %+v; want line 4 (an order id across lines) and line 7 (a bad tracking number)", problems)
	}
}

// TestParseShipmentCSVRefusesTheFile: no rows, too many rows, or no CSV
// at all refuse the whole file, naming it.
func TestParseShipmentCSVRefusesTheFile(t *testing.T) {
	t.Parallel()
	var many strings.Builder
	for i := range fulfilment.MaxImportRows + 1 {
		fmt.Fprintf(&many, "o%d,UPS,1Z%d\n", i, i)
	}
	for name, file := range map[string]string{
		"empty":          "",
		"only a header":  "orderId,carrier,trackingNumber,trackingUrl\n",
		"too many rows":  many.String(),
		"a broken quote": "o1,\"UPS,1Z\n",
	} {
		rows, problems, err := fulfilment.ParseShipmentCSV(strings.NewReader(file))
		var e *gifting.Error
		if !errors.As(err, &e) || e.Code != gifting.CodeValidation || e.Details["file"] == "" || rows != nil || problems != nil {
			t.Errorf("%s: %v; want VALIDATION_FAILED naming file", name, err)
		}
	}
	exact := strings.Join(strings.Split(many.String(), "\n")[:fulfilment.MaxImportRows], "\n")
	if rows, _, err := fulfilment.ParseShipmentCSV(strings.NewReader(exact)); err != nil || len(rows) != fulfilment.MaxImportRows {
		t.Errorf("%d rows: %d read, %v; want all", fulfilment.MaxImportRows, len(rows), err)
	}
}

// TestImportOutcomes: the per-row report of an applied import counts
// shipped, unchanged (a row sent again) and failed rows, in line order,
// and hides internal errors' text.
func TestImportOutcomes(t *testing.T) {
	t.Parallel()
	var res fulfilment.ImportResult
	row := func(line int, id string) fulfilment.ShipmentRow {
		return fulfilment.ShipmentRow{Line: line, OrderID: id}
	}
	res.Add(fulfilment.RowOutcome(row(4, "o3"), false, gifting.NotFound("order", "o3")))
	res.Add(fulfilment.RowOutcome(row(2, "o1"), false, nil))
	res.Add(fulfilment.RowOutcome(row(3, "o2"), true, nil))
	res.Add(fulfilment.RowOutcome(row(5, "o4"), false, errors.New("dial tcp 10.0.0.1: secret-host refused")))
	res.Sort()
	if res.Shipped != 1 || res.Unchanged != 1 || res.Failed != 2 {
		t.Errorf("totals %+v", res)
	}
	want := []string{"2 shipped ", "3 unchanged ", `4 failed order "o3" was not found`, "5 failed the shipment could not be recorded; send this row again"}
	for i, it := range res.Items {
		if got := fmt.Sprintf("%d %s %s", it.Line, it.Status, it.Reason); got != want[i] {
			t.Errorf("item %d: %q; want %q", i, got, want[i])
		}
	}
}
