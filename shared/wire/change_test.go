package wire_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/wire"
)

// TestChange: the test message leaves byte for byte as it did before the
// webhook slice (the other types: shared/dynamo's TestChangeMessageBytes),
// data this code has no shape for is refused rather than sent in a shape
// nobody documented, and data kept as the record holds it is sent so.
func TestChange(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 23, 10, 5, 0, 120_000_000, time.UTC)
	test := webhook.TestMessage("acme", "01KAQ0Y8G0ZX3V5N7W9A1C3E5G", at)
	test.ID = "test_01KAQ0YH0000000000000000RC"
	for _, tt := range []struct {
		name string
		msg  webhook.Message
		want string // "" for an error
	}{
		{"webhook.test", test, `{"id":"test_01KAQ0YH0000000000000000RC","type":"webhook.test","createdAt":"2026-11-23T10:05:00.120Z",` +
			`"organizationId":"acme","data":{"webhookId":"01KAQ0Y8G0ZX3V5N7W9A1C3E5G"}}`},
		{"data as the record holds it", webhook.Message{ID: "r.00", Type: "gift.sent", CreatedAt: at, OrgID: "acme",
			Data: webhook.Snapshot(`{"giftId":"g\u003c1"}`)},
			`{"id":"r.00","type":"gift.sent","createdAt":"2026-11-23T10:05:00.120Z","organizationId":"acme","data":{"giftId":"g\u003c1"}}`},
		{"data of no known shape", webhook.Message{ID: "r.00", Type: "gift.sent", Data: map[string]string{"giftId": "g1"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := wire.Change(tt.msg)
			if tt.want == "" {
				if err == nil {
					t.Errorf("rendered %s, want an error", b)
				}
				return
			}
			if err != nil || string(b) != tt.want {
				t.Errorf("rendered %s, %v\nwant %s", b, err, tt.want)
			}
		})
	}
}
