package fulfilment_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// trackerEvent is a tracker.updated Event as EasyPost's webhooks guide
// shows one, trimmed to a few fields.
const trackerEvent = `{
  "id": "evt_qatAiJDM", "object": "Event", "created_at": "2014-11-19T10:51:54Z", "updated_at": "2014-11-19T10:51:54Z",
  "description": "tracker.updated", "mode": "test", "previous_attributes": {"status": "unknown"},
  "pending_urls": [], "completed_urls": [],
  "result": {
    "id": "trk_Txyy1vaM", "object": "Tracker", "mode": "test", "tracking_code": "EZ4000000004", "status": "delivered",
    "created_at": "2014-11-18T10:51:54Z", "updated_at": "2014-11-18T10:51:54Z", "signed_by": "John Tester", "weight": 17.6,
    "est_delivery_date": "2014-08-27T00:00:00Z", "shipment_id": null, "carrier": "UPS",
    "public_url": "https://track.easypost.com/djE7",
    "tracking_details": [
      {"object": "TrackingDetail", "message": "BILLING INFORMATION RECEIVED", "status": "pre_transit", "datetime": "2014-08-21T14:24:00Z",
       "tracking_location": {"object": "TrackingLocation", "city": null, "state": null, "country": null, "zip": null}},
      {"object": "TrackingDetail", "message": "ORIGIN SCAN", "status": "in_transit", "datetime": "2014-08-21T14:48:00Z",
       "tracking_location": {"object": "TrackingLocation", "city": "SOUTH SAN FRANCISCO", "state": "CA", "country": "US", "zip": null}},
      {"object": "TrackingDetail", "message": "odd scan", "status": "in_transit", "datetime": "soon"}
    ]
  }
}`

func TestDecodeEvent(t *testing.T) {
	t.Parallel()
	u, err := fulfilment.DecodeEvent([]byte(trackerEvent))
	if err != nil {
		t.Fatal(err)
	}
	est := time.Date(2014, 8, 27, 0, 0, 0, 0, time.UTC)
	if u.EventID != "evt_qatAiJDM" || u.TrackingCode != "EZ4000000004" || u.Carrier != "UPS" || u.Status != "delivered" ||
		u.PublicURL != "https://track.easypost.com/djE7" || !u.UpdatedAt.Equal(time.Date(2014, 11, 18, 10, 51, 54, 0, time.UTC)) ||
		u.EstDeliveryAt == nil || !u.EstDeliveryAt.Equal(est) {
		t.Errorf("update %+v", u)
	}
	if len(u.Details) != 2 {
		t.Fatalf("details %+v; want the two scans with a time", u.Details)
	}
	if d := u.Details[1]; d.Status != "in_transit" || d.Message != "ORIGIN SCAN" || d.Location != "SOUTH SAN FRANCISCO, CA, US" ||
		!d.At.Equal(time.Date(2014, 8, 21, 14, 48, 0, 0, time.UTC)) {
		t.Errorf("second scan %+v", d)
	}
	if u.Details[0].Location != "" {
		t.Errorf("a scan with no location has %q", u.Details[0].Location)
	}
}

// TestDecodeEventRefusals: no JSON is MALFORMED_REQUEST; another event
// type is refused as unsupported; a tracker without what identifies it is
// VALIDATION_FAILED naming the field.
func TestDecodeEventRefusals(t *testing.T) {
	t.Parallel()
	_, err := fulfilment.DecodeEvent([]byte(`{"id":`))
	wantError(t, err, gifting.CodeMalformed, "")

	batch := strings.Replace(trackerEvent, `"tracker.updated"`, `"batch.updated"`, 1)
	_, err = fulfilment.DecodeEvent([]byte(batch))
	wantError(t, err, gifting.CodeValidation, "only tracker.created and tracker.updated events are accepted")
	if !errors.Is(err, fulfilment.ErrUnsupportedEvent) {
		t.Errorf("%v does not say the event is unsupported", err)
	}
	created := strings.Replace(trackerEvent, `"tracker.updated"`, `"tracker.created"`, 1)
	if _, err := fulfilment.DecodeEvent([]byte(created)); err != nil {
		t.Errorf("tracker.created refused: %v", err)
	}
	for field, change := range map[string][2]string{
		"result":               {`"object": "Tracker"`, `"object": "Batch"`},
		"result.tracking_code": {`"EZ4000000004"`, `""`},
		"result.carrier":       {`"carrier": "UPS"`, `"carrier": " "`},
		"result.updated_at":    {`"updated_at": "2014-11-18T10:51:54Z"`, `"updated_at": "yesterday"`},
	} {
		_, err := fulfilment.DecodeEvent([]byte(strings.Replace(trackerEvent, change[0], change[1], 1)))
		var e *gifting.Error
		if !asError(err, &e) || e.Code != gifting.CodeValidation || e.Details[field] == "" {
			t.Errorf("%s: %v; want VALIDATION_FAILED naming it", field, err)
		}
	}
}

// TestDecodedEventMovesTheOrder: the decoded event of a parcel drives the
// order's decision end to end.
func TestDecodedEventMovesTheOrder(t *testing.T) {
	t.Parallel()
	cur := openOrder()
	p, err := fulfilment.DecideShipment(cur, reservedStock(), fulfilment.ShipmentInput{Carrier: "ups", TrackingNumber: "EZ4000000004"}, at)
	if err != nil {
		t.Fatal(err)
	}
	u, err := fulfilment.DecodeEvent([]byte(trackerEvent))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := fulfilment.DecideTrackerUpdate(p.Order, u, at)
	if err != nil || tp.Order.Status != fulfilment.StatusDelivered || tp.Recipient.TrackingLink != "https://track.easypost.com/djE7" {
		t.Errorf("%+v, %v; want delivered with EasyPost's page as the link", tp.Order.Order, err)
	}
}
