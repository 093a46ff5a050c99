package giftcodes

import "time"

// Slot is a code a claim may take: its id, the key it holds in the gift's
// index of codes that can be handed out (its expiry, then its id: the
// claim's transaction is conditioned on the code still holding it, so a
// code another claim took first fails that condition), and its mask.
type Slot struct {
	ID     string
	Key    string
	Masked string
}

// TakeFrom is the earliest expiry a claim at now hands out: a second past
// now, so a code whose expiry was stored to the second (its index key)
// and falls within the current second is left alone rather than handed
// out expired.
func TakeFrom(now time.Time) time.Time { return now.Add(time.Second) }

// Delivery is what a recipient whose claim took code c shows of it
// (its shipmentInfo, in the API, webhooks and the change feed): that it
// is digital, the code's id within its gift (so the landing page can
// open it) and its mask, never the code.
func Delivery(c Slot) map[string]any {
	return map[string]any{"type": "digital", "codeId": c.ID, "maskedCode": c.Masked}
}

// Assigned reads back the code id a recipient's shipmentInfo (Delivery)
// names, "" when it holds none.
func Assigned(info map[string]any) string {
	if info["type"] != "digital" {
		return ""
	}
	id, _ := info["codeId"].(string)
	return id
}
