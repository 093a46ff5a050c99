package fulfilment

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// MaxImportRows is the most shipment rows one import takes: each row is a
// transaction, and a request must finish well within its time limit.
const MaxImportRows = 500

// shownID bounds an order id a row's problem reports back, in characters.
const shownID = 64

// importColumns are the columns of a shipment import, in order.
var importColumns = []string{"orderId", "carrier", "trackingNumber", "trackingUrl"}

// ShipmentRow is one row of a shipment import: the order and its
// shipment, validated. Line is the row's line in the file (1 is the
// first line, the header's when there is one).
type ShipmentRow struct {
	Line    int
	OrderID string
	ShipmentInput
}

// RowProblem is a row that cannot be applied, reported as a bulk add
// reports a failed item: its line, the order id when it could be read,
// the reason, and for invalid fields the problem with each
// (VALIDATION_FAILED's details).
type RowProblem struct {
	Line    int
	OrderID string
	Reason  string
	Details map[string]string
}

// ParseShipmentCSV reads a shipment import: rows of
// orderId,carrier,trackingNumber,trackingUrl (the last may be empty). A
// first row naming the columns (case-insensitively) is a header and is
// skipped. Each row is validated on its own (ShipmentInput.Validate, and
// an order id of at most 64 characters): a bad row is a RowProblem and
// the others still apply. A row sent twice in one file is applied once:
// the repeat is reported as a problem naming the first line. The file as
// a whole is refused, VALIDATION_FAILED naming "file", when it is no CSV,
// has no row, or has more than MaxImportRows.
func ParseShipmentCSV(r io.Reader) ([]ShipmentRow, []RowProblem, error) {
	cr := csv.NewReader(skipBOM(r))
	cr.FieldsPerRecord = -1 // a row's field count is that row's problem
	cr.TrimLeadingSpace = true
	var rows []ShipmentRow
	var problems []RowProblem
	seen := map[string]int{}
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fileProblem(fmt.Sprintf("is not CSV: %v", err))
		}
		// The line the row starts on, as a spreadsheet numbers it: blank
		// lines are skipped by the reader but still counted.
		line, _ := cr.FieldPos(0)
		if first && isHeader(rec) {
			continue
		}
		if len(rows)+len(problems) >= MaxImportRows {
			return nil, nil, fileProblem(fmt.Sprintf("must have at most %d rows; split it into files of %d", MaxImportRows, MaxImportRows))
		}
		row, prob := parseRow(line, rec)
		if prob == nil {
			key := strings.ToLower(row.OrderID)
			if first, dup := seen[key]; dup {
				prob = &RowProblem{Line: line, OrderID: row.OrderID, Reason: fmt.Sprintf("order %s is on line %d already; it is applied once", row.OrderID, first)}
			} else {
				seen[key] = line
			}
		}
		if prob != nil {
			problems = append(problems, *prob)
			continue
		}
		rows = append(rows, row)
	}
	if len(rows)+len(problems) == 0 {
		return nil, nil, fileProblem("has no rows: send orderId,carrier,trackingNumber,trackingUrl lines")
	}
	return rows, problems, nil
}

// parseRow validates one record at line.
func parseRow(line int, rec []string) (ShipmentRow, *RowProblem) {
	if len(rec) < 3 || len(rec) > len(importColumns) {
		id := ""
		if len(rec) > 0 {
			id = strings.TrimSpace(rec[0])
		}
		return ShipmentRow{}, &RowProblem{Line: line, OrderID: clipID(id),
			Reason: fmt.Sprintf("has %d fields; a row is %s", len(rec), strings.Join(importColumns, ","))}
	}
	row := ShipmentRow{Line: line, OrderID: strings.TrimSpace(rec[0]),
		ShipmentInput: ShipmentInput{Carrier: rec[1], TrackingNumber: rec[2]}}
	if len(rec) == 4 {
		row.TrackingURL = rec[3]
	}
	var p gifting.Problems
	switch {
	case row.OrderID == "":
		p.Add("orderId", "is required")
	case gifting.TooLong(row.OrderID, gifting.MaxIDLength):
		p.Add("orderId", fmt.Sprintf("must be at most %d characters", gifting.MaxIDLength))
	case !gifting.IDCharacters(row.OrderID):
		// The service's id rule (gifting.ValidID): anything else names no order.
		p.Add("orderId", "must be an order id: letters, digits, '-', '_', '.' or ':'")
	}
	if err := gifting.MergeProblems(p, row.Validate()); err != nil {
		var e *gifting.Error
		errors.As(err, &e)
		return ShipmentRow{}, &RowProblem{Line: line, OrderID: clipID(row.OrderID), Reason: e.Message, Details: e.Details}
	}
	return row, nil
}

// skipBOM drops the byte order mark spreadsheets put before a UTF-8
// CSV, which would otherwise hide the header's first column.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		_, _ = br.Discard(3)
	}
	return br
}

// isHeader reports whether rec names the import's columns.
func isHeader(rec []string) bool {
	if len(rec) < 3 {
		return false
	}
	for i, f := range rec {
		if i >= len(importColumns) || !strings.EqualFold(strings.TrimSpace(f), importColumns[i]) {
			return false
		}
	}
	return true
}

// clipID keeps an order id reported back short: a row's problem may be
// that the id is far too long.
func clipID(id string) string {
	if r := []rune(id); len(r) > shownID {
		return string(r[:shownID]) + "…"
	}
	return id
}

func fileProblem(problem string) error {
	return &gifting.Error{Code: gifting.CodeValidation, Message: "the shipment file cannot be read; see details",
		Details: map[string]string{"file": problem}}
}
