package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/giftcampaign/service/client"
)

// replayShare is the share of accepted keyed adds that the load replays later on purpose.
const replayShare = 5 // one in five

// addRecipient adds a new address to the campaign, with an Idempotency-Key six times in ten. A lost
// answer (or a 5xx) is retried: with the key, a retry must get the first answer again; without, a 409
// "already a recipient" says the lost attempt went through.
func (l *campaignLife) addRecipient(ctx context.Context, i int) {
	a := &add{email: fmt.Sprintf("add-%s-%d-%d@%s.example.com", l.o.id, l.n, i, l.o.id)}
	var params client.AddRecipientParams
	kind := "add-recipient"
	if l.rng.IntN(10) < 6 {
		a.key = l.newKey("add")
		params.IdempotencyKey, kind = &a.key, "add-recipient (key)"
	}
	body, _ := json.Marshal(map[string]any{"sourceType": "api",
		"contactDetails": map[string]string{"email": a.email, "firstName": "Added", "lastName": fmt.Sprintf("N%d", i)}})
	a.body, a.outcome = body, "unknown"
	wasUnsure := false
	for rt := newRetrier(); rt.more(ctx); {
		k := kind
		if wasUnsure {
			k += " retry"
		}
		res, err := l.o.api.AddRecipientWithBodyWithResponse(as(ctx, k), l.c.id, &params, "application/json", bytes.NewReader(body))
		h := httpRes(res, err)
		switch {
		case unsure(h, err):
			wasUnsure = true
			continue
		case wasUnsure && a.key != "" && res.JSON200 == nil:
			// The key must replay an add that went through; any other refusal leaves it unknown.
			l.w.keyedRetry(l.c.id, a.key, "add-recipient", h)
		case res.JSON200 != nil:
			if wasUnsure && a.key != "" {
				l.w.keyedRetry(l.c.id, a.key, "add-recipient", h)
			}
			a.outcome, a.recipientID, a.first = "accepted", res.JSON200.RecipientId, res.Body
		case h.StatusCode == http.StatusConflict && wasUnsure && a.key == "":
			a.outcome = "accepted" // by the attempt whose answer was lost
		default:
			a.outcome = "rejected"
		}
		break
	}
	l.w.mu.Lock()
	l.c.adds = append(l.c.adds, a)
	l.w.mu.Unlock()
}

// replayAdds replays, now and then, a keyed add that was accepted a while ago (often across a kill of
// the process that answered it): the answer must be the first one, marked as a replay.
func replayAdds(ctx, load context.Context, w *world) {
	done := map[*add]bool{}
	for load.Err() == nil {
		pause(load, 3*time.Second)
		w.mu.Lock()
		var todo []struct {
			c *campaign
			a *add
		}
		for _, c := range w.campaigns {
			for j, a := range c.adds {
				if a.key != "" && a.outcome == "accepted" && a.first != nil && !done[a] && j%replayShare == 0 {
					todo = append(todo, struct {
						c *campaign
						a *add
					}{c, a})
				}
			}
		}
		w.mu.Unlock()
		for _, t := range todo {
			done[t.a] = true
			replayOne(ctx, w, t.c, t.a)
		}
	}
}

// replayOne sends a again with its key and body and records whether the answer equals the first.
func replayOne(ctx context.Context, w *world, c *campaign, a *add) {
	for rt := newRetrier(); rt.more(ctx); {
		res, err := c.org.api.AddRecipientWithBodyWithResponse(as(ctx, "add-recipient replay"), c.id,
			&client.AddRecipientParams{IdempotencyKey: &a.key}, "application/json", bytes.NewReader(a.body))
		h := httpRes(res, err)
		if unsure(h, err) {
			continue
		}
		rp := replay{campaignID: c.id, key: a.key, what: "add-recipient", status: h.StatusCode,
			replayed: h.Header.Get("Idempotent-Replayed") == "true", equal: jsonEqual(res.Body, a.first)}
		w.mu.Lock()
		w.replays = append(w.replays, rp)
		w.mu.Unlock()
		return
	}
}

// jsonEqual reports whether two bodies hold the same JSON value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
