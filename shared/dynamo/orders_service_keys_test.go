package dynamo

import (
	"encoding/base64"
	"maps"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/fulfilment"
)

// TestServiceOrderKeys: the operator's keys an order carries follow its
// fulfiller and status: an open service order is in the queue (its shard
// fixed by its id, its sort key its creation then its id) and findable by
// id; once it leaves open only the lookup stays; an organization's own
// order carries neither.
func TestServiceOrderKeys(t *testing.T) {
	at := time.Date(2026, 11, 27, 4, 5, 6, 789_000_000, time.UTC)
	o := fulfilment.Order{OrderID: "01JH8Z4Q1V6W3K2M9T5R7Y0ORD", Fulfiller: fulfilment.FulfillerService,
		Status: fulfilment.StatusOpen, CreatedAt: at}
	shard := serviceQueuePK(serviceQueueShard(o.OrderID))
	want := map[string]string{"pg": "SVCORD#" + o.OrderID, "dueShard": shard, "dueAt": "2026-11-27T04:05:06.789Z#" + o.OrderID}
	if got := serviceOrderKeys(o); !maps.Equal(got, want) {
		t.Errorf("open service order: %v, want %v", got, want)
	}
	for _, st := range []fulfilment.Status{fulfilment.StatusShipped, fulfilment.StatusCancelled, fulfilment.StatusDelivered} {
		o.Status = st
		if got := serviceOrderKeys(o); !maps.Equal(got, map[string]string{"pg": "SVCORD#" + o.OrderID}) {
			t.Errorf("%s service order: %v; want the lookup only", st, got)
		}
	}
	o.Status, o.Fulfiller = fulfilment.StatusOpen, fulfilment.FulfillerOrganization
	if got := serviceOrderKeys(o); len(got) != 0 {
		t.Errorf("an organization's order carries %v; want no operator key", got)
	}
	// The queue never shares the scheduler's partitions.
	for i := range serviceQueueShards {
		for j := range dueShards {
			if serviceQueuePK(i) == dueShardPK(j) {
				t.Fatalf("queue shard %d is due shard %d", i, j)
			}
		}
	}
}

// TestServiceQueueCursor: a cursor the queue handed out reads back; one
// it did not (not base64, another shard count, a position in the wrong
// shard, bad ids or time) is refused, not read as the start.
func TestServiceQueueCursor(t *testing.T) {
	id := "01JH8Z4Q1V6W3K2M9T5R7Y0ORD"
	pos := "acme/2026-11-27T04:05:06.789Z#" + id
	parts := make([]string, serviceQueueShards)
	parts[serviceQueueShard(id)] = pos
	enc := func(s []string) string {
		raw := ""
		for i, p := range s {
			if i > 0 {
				raw += ","
			}
			raw += p
		}
		return base64.RawURLEncoding.EncodeToString([]byte(raw))
	}
	got, ok := decodeQueueCursor(enc(parts))
	if !ok || got[serviceQueueShard(id)] != pos {
		t.Fatalf("a valid cursor read %v, %v", got, ok)
	}
	wrong := make([]string, serviceQueueShards)
	wrong[(serviceQueueShard(id)+1)%serviceQueueShards] = pos
	for name, c := range map[string]string{
		"not base64":       "%%%",
		"fewer shards":     enc(parts[:serviceQueueShards-1]),
		"wrong shard":      enc(wrong),
		"bad organization": enc(append([]string{}, "a b/2026-11-27T04:05:06.789Z#"+id, "", "", "")),
		"bad time":         enc([]string{"acme/yesterday#" + id, "", "", ""}),
	} {
		if _, ok := decodeQueueCursor(c); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}
