package httpapi

import (
	"encoding/csv"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/csvexport"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wire"
)

// The organization's fulfilment endpoints (issue 31; docs/fulfilment.md):
// its orders, their export for a warehouse, shipments one by one or as a
// CSV file, cancellations. Served by the recipients function, whose
// transactions the orders share.
func (s *Server) orderRoutes() []route {
	return []route{
		{pattern: "GET /api/campaigns/orders", handle: s.listOrders},
		{pattern: "GET /api/campaigns/orders/export", handle: s.exportOrders},
		{pattern: "GET /api/campaigns/orders/{orderId}", handle: s.getOrder},
		{pattern: "POST /api/campaigns/orders/{orderId}/shipments", handle: s.shipOrder},
		{pattern: "POST /api/campaigns/orders/shipments/import", handle: s.importShipments},
		// A cancellation gives the recipient's credits back.
		{pattern: "POST /api/campaigns/orders/{orderId}/cancel", handle: s.cancelOrder, scope: gifting.ScopeSpend},
	}
}

// ordersPageDTO is the data of GET /orders.
type ordersPageDTO struct {
	Items      []wire.Order     `json:"items"`
	Pagination ordersPagination `json:"pagination"`
	// NextCursor starts the next page ("" on the last): orders created
	// meanwhile do not move it, as they move page numbers.
	NextCursor string `json:"nextCursor"`
}

// ordersPagination is a page's position: no total, which would cost a
// read of every order.
type ordersPagination struct {
	Page    int  `json:"page"`
	Limit   int  `json:"limit"`
	HasNext bool `json:"hasNext"`
	HasPrev bool `json:"hasPrev"`
}

// ordersQuery reads the list parameters: status, campaignId, page, limit
// (1..maxLimit), cursor.
func ordersQuery(r *http.Request, defLimit, maxLimit int) (recipient.OrdersQuery, error) {
	q := newQuery(r)
	oq := recipient.OrdersQuery{Status: q.filter("status"), CampaignID: q.filter("campaignId"),
		Page: q.integer("page", 1, 1, 100_000), Limit: q.integer("limit", defLimit, 1, maxLimit), Cursor: q.filter("cursor")}
	return oq, q.err()
}

func (s *Server) listOrders(w http.ResponseWriter, r *http.Request) error {
	q, err := ordersQuery(r, recipient.DefaultOrdersLimit, recipient.MaxOrdersLimit)
	if err != nil {
		return err
	}
	page, err := s.recipients.Orders(r.Context(), principal(r.Context()).OrgID, q, recipient.MaxOrdersLimit)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Orders retrieved", ordersPageDTO{Items: wire.OrdersOf(page.Orders), NextCursor: page.Next,
		Pagination: ordersPagination{Page: page.Page, Limit: page.Limit, HasNext: page.Next != "", HasPrev: page.Page > 1 || q.Cursor != ""}})
	return nil
}

func (s *Server) getOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := s.recipients.Order(r.Context(), principal(r.Context()).OrgID, r.PathValue("orderId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Order retrieved", wire.OrderOf(o))
	return nil
}

// exportOrders serves GET /orders/export: a page of orders as text/csv
// (default status open, up to MaxExportLimit rows, about 300 bytes each:
// far under Lambda's 6 MB), the next page's URL in a Link header.
func (s *Server) exportOrders(w http.ResponseWriter, r *http.Request) error {
	q, err := ordersQuery(r, recipient.MaxExportLimit, recipient.MaxExportLimit)
	if err != nil {
		return err
	}
	if q.Status == "" {
		q.Status = string(fulfilment.StatusOpen)
	}
	page, err := s.recipients.Orders(r.Context(), principal(r.Context()).OrgID, q, recipient.MaxExportLimit)
	if err != nil {
		return err
	}
	next := ""
	if page.Next != "" {
		v := url.Values{"status": {q.Status}, "limit": {strconv.Itoa(page.Limit)}}
		if q.CampaignID != "" {
			v.Set("campaignId", q.CampaignID)
		}
		next = csvexport.NextURL(r.URL.Path, v, page.Next)
	}
	csvexport.Header(w, "orders-"+q.Status+".csv", next)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	_ = cw.Write(fulfilment.ExportColumns)
	for _, o := range page.Orders {
		_ = cw.Write(fulfilment.ExportRow(o))
	}
	cw.Flush()
	return nil // the status is sent: a write error is a broken connection
}

// shipmentBody is the body of POST /orders/{orderId}/shipments.
type shipmentBody struct {
	Carrier        string `json:"carrier"`
	TrackingNumber string `json:"trackingNumber"`
	TrackingURL    string `json:"trackingUrl,omitempty"`
}

// shipOrder records a shipment: 200 with the order, shipped; the same
// shipment again is 200 with Idempotent-Replayed: true and no change.
func (s *Server) shipOrder(w http.ResponseWriter, r *http.Request) error {
	var body shipmentBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	in := fulfilment.ShipmentInput{Carrier: body.Carrier, TrackingNumber: body.TrackingNumber, TrackingURL: body.TrackingURL}
	o, replay, err := s.recipients.Ship(r.Context(), principal(r.Context()).OrgID, r.PathValue("orderId"), in)
	if err != nil {
		return err
	}
	if replay {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeEnvelope(w, http.StatusOK, "Shipment recorded", wire.OrderOf(o))
	return nil
}

// maxImportBody bounds a shipment CSV: 500 rows of at most about 400
// bytes.
const maxImportBody = 256 << 10

// importItemDTO is one row's outcome.
type importItemDTO struct {
	Line    int               `json:"line"`
	OrderID string            `json:"orderId"`
	Status  string            `json:"status"`
	Reason  string            `json:"reason,omitempty"`
	Details map[string]string `json:"details,omitempty"`
}

// importDTO is the data of a shipment import.
type importDTO struct {
	Received  int             `json:"received"`
	Shipped   int             `json:"shipped"`
	Unchanged int             `json:"unchanged"`
	Failed    int             `json:"failed"`
	Results   []importItemDTO `json:"results"`
}

// importShipments serves POST /orders/shipments/import: a text/csv body of
// rows orderId,carrier,trackingNumber,trackingUrl; 200 when every row was
// recorded or unchanged, 207 with the rows' outcomes when some failed.
func (s *Server) importShipments(w http.ResponseWriter, r *http.Request) error {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "text/csv" {
		return gifting.Errorf(gifting.CodeUnsupportedMedia, "send the file with Content-Type: text/csv")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxImportBody))
	if err != nil {
		return gifting.Errorf(gifting.CodeTooLarge, "the file is larger than %d bytes; send at most 500 rows a request", maxImportBody)
	}
	res, err := s.recipients.ImportShipments(r.Context(), principal(r.Context()).OrgID, strings.NewReader(string(body)))
	if err != nil {
		return err
	}
	data := importDTO{Received: len(res.Items), Shipped: res.Shipped, Unchanged: res.Unchanged, Failed: res.Failed,
		Results: make([]importItemDTO, len(res.Items))}
	for i, it := range res.Items {
		data.Results[i] = importItemDTO(it)
	}
	if res.Failed > 0 {
		writeJSON(w, http.StatusMultiStatus, Envelope{Success: false, StatusCode: http.StatusMultiStatus,
			Message: fmt.Sprintf("%d of %d rows could not be recorded; see data.results", res.Failed, len(res.Items)), Data: data})
		return nil
	}
	writeEnvelope(w, http.StatusOK, "Shipments recorded", data)
	return nil
}

// cancelBody is the body of POST /orders/{orderId}/cancel.
type cancelBody struct {
	Reason string `json:"reason"`
}

// cancelOrder cancels an order before shipment: 200 with the order; a
// cancelled order again is 200 with Idempotent-Replayed: true.
func (s *Server) cancelOrder(w http.ResponseWriter, r *http.Request) error {
	var body cancelBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	o, replay, err := s.recipients.CancelOrder(r.Context(), principal(r.Context()).OrgID, r.PathValue("orderId"), body.Reason)
	if err != nil {
		return err
	}
	if replay {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	writeEnvelope(w, http.StatusOK, "Order cancelled", wire.OrderOf(o))
	return nil
}
