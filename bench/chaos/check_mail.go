package main

import (
	"context"
	"fmt"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
)

// killWindow is how far before a duplicate's first send a kill may have happened and still explain it:
// a process that claimed (or sent) an email shortly before it died.
const killWindow = 5 * time.Second

// checkInvitations: each recipient's invitation went out exactly once, or is recorded as failed. A
// duplicate is counted, and is a violation only when no kill explains it (no process died between
// shortly before the first send and the second). An invitation whose send failed on a transient error
// (DynamoDB down while it was sent) and whose retry is due after the check is not lost: it is in the due
// index with its retry time (gifting.EmailRetryAfter: 5 minutes after a first failure), and is counted as
// retrying; one whose retry time has passed and still nothing went out is a violation.
func checkInvitations(c *cluster, s *snapshot, emails []localstack.Email, rs *results) *result {
	r := &result{name: "each invitation sent exactly once, or recorded as failed (SES emulator's store)"}
	mail := byToken(emails)
	kills := c.faults.all()
	var once, failed, held, retrying, unrecorded, dupExplained int
	for _, cs := range s.campaigns {
		for _, rc := range cs.recipients {
			r.checked++
			inv := rc.Emails.AddressConfirmation
			var sent []localstack.Email
			for _, e := range mail[rc.LandingPageID] {
				if e.Subject == inv.Subject {
					sent = append(sent, e)
				}
			}
			switch {
			case len(sent) == 0 && inv.Failure != "":
				failed++
			case len(sent) == 0 && !sending(cs.c.Status) && !inv.Sent && inv.ClaimedAt == nil:
				held++
			case len(sent) == 0 && inv.RetryAt != nil && !emailOwed(inv, s.at):
				retrying++
			case len(sent) == 0:
				r.fail("%s/%s: %s, %s, nothing in SES", cs.c.CampaignID, rc.RecipientID, rc.Status, entryState(inv))
			case len(sent) == 1:
				once++
				if !inv.Sent || inv.MessageID != sent[0].MessageID {
					unrecorded++
				}
			case killedBetween(kills, sent[0].At, sent[len(sent)-1].At):
				dupExplained++
			default:
				r.fail("%s/%s: sent %d times (%s), no kill in between", cs.c.CampaignID, rc.RecipientID, len(sent), sendTimes(sent))
			}
		}
	}
	r.note = fmt.Sprintf("%d once, %d recorded as failed, %d held (campaign not sending), %d retrying later (a send failed on a transient error), %d sent twice or more after a kill",
		once, failed, held, retrying, dupExplained)
	rs.figure("invitations", "%d sent once, %d failed, %d held, %d retrying later, %d duplicated after a kill (%d sent but not recorded as sent)",
		once, failed, held, retrying, dupExplained, unrecorded)
	return r
}

// entryState describes an email entry that did not go out.
func entryState(e recipient.EmailSchedule) string {
	switch {
	case e.Sent:
		return "recorded sent (" + e.MessageID + ")"
	case e.ClaimedAt != nil:
		return "claimed at " + e.ClaimedAt.Format("15:04:05") + ", not sent, no failure"
	case !e.Active:
		return "inactive"
	case e.RetryAt != nil:
		return fmt.Sprintf("failed %d times, retry at %s", e.Attempts, e.RetryAt.Format("15:04:05"))
	default:
		return "waiting, scheduled " + e.ScheduledTime
	}
}

// killedBetween reports whether a kill happened from killWindow before from (Unix seconds) to to.
func killedBetween(kills []fault, from, to int64) bool {
	lo, hi := time.Unix(from, 0).Add(-killWindow), time.Unix(to+1, 0)
	for _, k := range kills {
		if k.what == "kill -9" && !k.at.Before(lo) && !k.at.After(hi) {
			return true
		}
	}
	return false
}

func sendTimes(sent []localstack.Email) string {
	var out string
	for i, e := range sent {
		if i > 0 {
			out += ", "
		}
		out += time.Unix(e.At, 0).Format("15:04:05")
	}
	return out
}

// checkSentEmails: every email entry recorded as sent (any kind) names a message the SES emulator has.
func checkSentEmails(s *snapshot, emails []localstack.Email) *result {
	r := &result{name: "every email recorded as sent is in the SES emulator's store"}
	ids := map[string]bool{}
	for _, e := range emails {
		ids[e.MessageID] = true
	}
	for _, cs := range s.campaigns {
		for _, rc := range cs.recipients {
			for _, kind := range gifting.EmailKinds {
				e := *rc.Emails.Kind(kind)
				if !e.Sent {
					continue
				}
				r.checked++
				if !ids[e.MessageID] {
					r.fail("%s/%s %s: message %q not in SES", cs.c.CampaignID, rc.RecipientID, kind, e.MessageID)
				}
			}
		}
	}
	return r
}

// checkWebhooks: every change record of the feed reached the receiver, verified, at least once.
func checkWebhooks(c *cluster, s *snapshot, rs *results) []*result {
	delivered := &result{name: "every change record delivered to the webhook receiver at least once"}
	dups := 0
	for org, ids := range s.feed.ids {
		got := c.hooks.received(org)
		for _, id := range ids {
			delivered.checked++
			switch n := got[id]; {
			case n == 0:
				delivered.fail("%s %s", org, id)
			case n > 1:
				dups++
			}
		}
	}
	attempts, refused, bad := c.hooks.stats()
	signed := &result{name: "every delivery verifies (Standard Webhooks signature and timestamp)", checked: attempts}
	for _, b := range bad {
		signed.fail("%s", b)
	}
	rs.figure("webhooks", "%d attempts, %d refused on purpose (500), %d messages delivered more than once", attempts, refused, dups)
	return []*result{delivered, signed}
}

// checkInventory: each gift's reserved units are its claims not shipped yet, the units shipped left
// the shelf (none oversold), and every claim the claim page accepted (303) is recorded on its
// recipient.
func checkInventory(ctx context.Context, c *cluster, w *world, s *snapshot) (*result, error) {
	r := &result{name: "inventory = claims (no gift oversold, every 303 claim recorded)"}
	claimed := map[string]int{} // org/gift → recipients that claimed it
	shipped := map[string]int{} // org/gift → of them, those whose order shipped (shipped or later)
	byPage := map[string]recipient.Recipient{}
	for _, cs := range s.campaigns {
		for _, rc := range cs.recipients {
			byPage[rc.LandingPageID] = rc
			if rc.ClaimedAt != nil {
				claimed[cs.org.id+"/"+rc.SelectedGift.GiftID]++
				if rc.Status.Rank() >= gifting.RecipientShipped.Rank() {
					shipped[cs.org.id+"/"+rc.SelectedGift.GiftID]++
				}
			}
		}
	}
	for _, o := range w.orgs {
		for _, id := range o.gifts {
			g, err := c.store.Gift(ctx, o.id, id)
			if err != nil {
				return nil, err
			}
			r.checked++
			inv, n, out := g.Inventory, claimed[o.id+"/"+id], shipped[o.id+"/"+id]
			if inv.Reserved != n-out || inv.Available+inv.Reserved != o.stock[id]-out || inv.Available < 0 {
				r.fail("%s/%s: stock %d, available %d, reserved %d; %d recipients claimed it, %d of them shipped",
					o.id, id, o.stock[id], inv.Available, inv.Reserved, n, out)
			}
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, cl := range w.claims {
		if cl.outcome != "claimed" {
			continue
		}
		r.checked++
		rc, ok := byPage[cl.landingPageID]
		if !ok || rc.ClaimedAt == nil || rc.SelectedGift.GiftID != cl.giftID {
			r.fail("claim of page %s answered 303, the recipient is not claimed with %s", cl.landingPageID, cl.giftID)
		}
	}
	return r, nil
}
