package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/csvexport"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// The operator's fulfilment (issue 31 item 4; docs/fulfilment.md): the
// service catalog's gifts are shipped by the operator for every
// organization. `orders export` writes the open service orders as the
// organization's export does, plus the organization's id; `orders
// import-shipments FILE` records a shipment file of the organization's
// format, row by row, each row applied once however often it is sent.

const ordersUsage = `usage: admin orders export [-out FILE]
       admin orders import-shipments FILE

  export            the open orders of the service catalog's gifts, every organization, oldest
                    first, as CSV (the organization's export columns, then organizationId), to
                    FILE or standard output; read page by page from the queue index, never a scan
  import-shipments  FILE of rows orderId,carrier,trackingNumber,trackingUrl (header optional,
                    at most 500 rows); prints each row's outcome; a row recorded before is
                    "unchanged", so the same file may be sent again; exit 1 when a row failed
`

// exportPageSize is the orders of one page of the export: one BatchGetItem
// of them after the queue's four Queries (a variable: tests page by 2).
var exportPageSize = 100

// runOrders runs `admin orders ...` and returns the exit code.
func runOrders(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, ordersUsage)
		return 2
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("orders "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "file to write the CSV to (default: standard output)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var file string
	switch {
	case sub == "export" && fs.NArg() == 0:
	case sub == "import-shipments" && fs.NArg() == 1 && *out == "":
		file = fs.Arg(0)
	default:
		fmt.Fprint(stderr, ordersUsage)
		return 2
	}
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 2
	}
	store, _, where, err := newStore(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 1
	}
	fmt.Fprintf(stderr, "admin: table %s %s\n", cfg.TableName, where)
	apps := recipient.NewApp(store, recipient.Config{})
	if sub == "export" {
		return exportServiceOrders(ctx, apps, *out, stdout, stderr)
	}
	return importServiceShipments(ctx, apps, file, stdout, stderr)
}

// exportServiceOrders writes the queue to path (stdout when ""): to a
// file beside it first, renamed once complete, so a failed export leaves
// no file that looks whole. It prints a summary (JSON) to stdout when the
// CSV goes to a file, to stderr otherwise.
func exportServiceOrders(ctx context.Context, apps *recipient.App, path string, stdout, stderr io.Writer) int {
	w, summary := stdout, stderr
	var tmp *os.File
	if path != "" {
		var err error
		if tmp, err = os.CreateTemp(filepath.Dir(path), ".orders-*.csv"); err != nil {
			fmt.Fprintln(stderr, "admin:", err)
			return 1
		}
		defer os.Remove(tmp.Name()) // gone after the rename; a failed export's partial file
		w, summary = tmp, stdout
	}
	rows, pages, err := writeServiceOrders(ctx, apps, w)
	if tmp != nil {
		err = closeAndRename(tmp, path, err)
	}
	if err != nil {
		fmt.Fprintln(stderr, "admin:", describe(err))
		return 1
	}
	printJSON(summary, map[string]any{"orders": rows, "pages": pages, "file": path})
	return 0
}

// writeServiceOrders writes the header and every open service order, page
// after page, and returns the rows and pages written.
func writeServiceOrders(ctx context.Context, apps *recipient.App, w io.Writer) (rows, pages int, err error) {
	cw := csv.NewWriter(w)
	_ = cw.Write(append(append([]string{}, fulfilment.ExportColumns...), "organizationId"))
	for cursor := ""; ; {
		page, err := apps.ServiceOrders(ctx, cursor, exportPageSize)
		if err != nil {
			return rows, pages, err
		}
		pages++
		for _, o := range page.Orders {
			_ = cw.Write(append(fulfilment.ExportRow(o), csvexport.Safe(o.OrganizationID)...))
			rows++
		}
		if cw.Flush(); cw.Error() != nil {
			return rows, pages, cw.Error()
		}
		if cursor = page.Next; cursor == "" {
			return rows, pages, nil
		}
	}
}

// closeAndRename closes f and, when err is nil, moves it to path.
func closeAndRename(f *os.File, path string, err error) error {
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return err
}

// importRowJSON is one row's outcome as printed.
type importRowJSON struct {
	Line           int               `json:"line"`
	OrderID        string            `json:"orderId"`
	OrganizationID string            `json:"organizationId,omitempty"`
	Status         string            `json:"status"`
	Reason         string            `json:"reason,omitempty"`
	Details        map[string]string `json:"details,omitempty"`
}

// importServiceShipments records the shipments of file and prints the
// report: exit 0 when every row was shipped or unchanged, 1 when some
// failed (send the file again once fixed: the others stay unchanged), 2
// when the file is not a shipment file at all.
func importServiceShipments(ctx context.Context, apps *recipient.App, file string, stdout, stderr io.Writer) int {
	f, err := os.Open(file)
	if err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 2
	}
	defer f.Close()
	res, err := apps.ImportServiceShipments(ctx, f)
	if err != nil {
		fmt.Fprintln(stderr, "admin:", describe(err))
		if gifting.ErrorCode(err) == gifting.CodeValidation {
			return 2
		}
		return 1
	}
	rows := make([]importRowJSON, len(res.Items))
	for i, it := range res.Items {
		rows[i] = importRowJSON{Line: it.Line, OrderID: it.OrderID, OrganizationID: res.OrgOf[it.OrderID],
			Status: it.Status, Reason: it.Reason, Details: it.Details}
	}
	printJSON(stdout, map[string]any{"received": len(rows), "shipped": res.Shipped, "unchanged": res.Unchanged,
		"failed": res.Failed, "results": rows})
	if res.Failed > 0 {
		fmt.Fprintf(stderr, "admin: %d of %d rows could not be recorded; see results\n", res.Failed, len(rows))
		return 1
	}
	return 0
}

// printJSON prints v indented, as every command's answer.
func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
