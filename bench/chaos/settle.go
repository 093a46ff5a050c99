package main

import (
	"context"
	"fmt"
	"time"

	"github.com/giftcampaign/service/client"
	camp "github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// snapshot is the state the checks read once the load stopped: every campaign of every organization
// with its recipients as the table holds them, and the change feed read so far.
type snapshot struct {
	at        time.Time
	campaigns []*campState
	feed      *feed
}

// campState is one campaign as the table holds it, with the load's record of it (nil when the load
// never learnt of it: a create whose every answer was lost).
type campState struct {
	org        *org
	c          camp.Campaign
	recipients []gifting.Recipient
	known      *campaign
}

// feed reads each organization's change feed through the API, from where the last read stopped.
type feed struct {
	cursor map[string]string
	ids    map[string][]string // organization → message ids in feed order
}

// take reads the whole state; the feed carries on from f.
func take(ctx context.Context, c *cluster, w *world, f *feed) (*snapshot, error) {
	s := &snapshot{at: time.Now(), feed: f}
	known := map[string]*campaign{}
	w.mu.Lock()
	for _, k := range w.campaigns {
		known[k.id] = k
	}
	w.mu.Unlock()
	for _, o := range w.orgs {
		for page := 1; ; page++ {
			cs, _, err := c.store.ListCampaigns(ctx, o.id, camp.Filter{}, "", gifting.Asc, gifting.PageRequest{Page: page, Limit: 100})
			if err != nil {
				return nil, err
			}
			for _, camp := range cs {
				st := &campState{org: o, c: camp, known: known[camp.CampaignID]}
				if st.recipients, err = c.store.AuditRecipients(ctx, o.id, camp.CampaignID); err != nil {
					return nil, err
				}
				s.campaigns = append(s.campaigns, st)
			}
			if len(cs) < 100 {
				break
			}
		}
		if err := f.read(ctx, o); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func newFeed() *feed { return &feed{cursor: map[string]string{}, ids: map[string][]string{}} }

// read takes o's feed from its cursor to its end (the feed serves records older than 5 s).
func (f *feed) read(ctx context.Context, o *org) error {
	limit := 100
	for {
		after := f.cursor[o.id]
		params := &client.ListChangesParams{Limit: &limit}
		if after != "" {
			params.After = &after
		}
		res, err := o.api.ListChangesWithResponse(as(ctx, "feed: page"), params)
		if err != nil {
			return err
		}
		if res.JSON200 == nil {
			return fmt.Errorf("change feed of %s: %s %s", o.id, res.Status(), body2(res.Body))
		}
		for _, m := range res.JSON200.Data.Items {
			f.ids[o.id] = append(f.ids[o.id], m.Id)
		}
		if len(res.JSON200.Data.Items) == 0 {
			return nil
		}
		f.cursor[o.id] = res.JSON200.Data.NextCursor
	}
}

// sending reports whether a campaign in status st sends its recipients' emails.
func sending(st camp.Status) bool {
	return st == camp.Live || st == camp.Preparing
}

// outstanding is the work the ticks still owe: launches preparing, emails due (or claimed and not sent)
// in campaigns that send, change records not yet delivered.
type outstanding struct {
	preparing, emails, webhooks int
}

func (o outstanding) zero() bool { return o.preparing == 0 && o.emails == 0 && o.webhooks == 0 }

func (o outstanding) String() string {
	return fmt.Sprintf("%d launches preparing, %d emails due or claimed and not sent, %d change records not delivered",
		o.preparing, o.emails, o.webhooks)
}

// owed counts the work s shows still to do.
func (s *snapshot) owed(c *cluster) outstanding {
	var o outstanding
	for _, cs := range s.campaigns {
		if cs.c.Status == camp.Preparing {
			o.preparing++
		}
		if !sending(cs.c.Status) {
			continue
		}
		for _, r := range cs.recipients {
			for _, kind := range gifting.EmailKinds {
				if emailOwed(*r.Emails.Kind(kind), s.at) {
					o.emails++
				}
			}
		}
	}
	for org, ids := range s.feed.ids {
		got := c.hooks.received(org)
		for _, id := range ids {
			if got[id] == 0 {
				o.webhooks++
			}
		}
	}
	return o
}

// emailOwed reports whether e should go out by now: active, scheduled and due (retry time included),
// or claimed by a sender, yet neither sent nor failed.
func emailOwed(e gifting.EmailSchedule, now time.Time) bool {
	if !e.Active || e.ScheduledTime == "" || e.Sent || e.Failure != "" {
		return false
	}
	if e.ClaimedAt != nil {
		return true
	}
	at, err := time.Parse(time.RFC3339Nano, e.ScheduledTime)
	if err != nil {
		return true
	}
	if e.RetryAt != nil && e.RetryAt.After(at) {
		at = *e.RetryAt
	}
	return !at.After(now)
}

// settling is how the settling went: whether nothing was owed in time, how long it took, and what was
// still owed at the last look.
type settling struct {
	done  bool
	took  time.Duration
	owed  outstanding
	err   error
	limit time.Duration
}

// settle waits, at most limit, until the ticks owe nothing.
func settle(ctx context.Context, c *cluster, w *world, limit time.Duration) settling {
	start := time.Now()
	f := newFeed()
	w.feed = f
	st := settling{limit: limit}
	for {
		s, err := take(ctx, c, w, f)
		st.err = err
		if err == nil {
			st.owed = s.owed(c)
			if st.owed.zero() {
				st.done, st.took = true, time.Since(start)
				return st
			}
			fmt.Printf("chaos: %s after %v: %s\n", time.Now().Format("15:04:05"), time.Since(start).Round(time.Second), st.owed)
		} else {
			fmt.Println("chaos: settle:", err)
		}
		if time.Since(start) > limit || ctx.Err() != nil {
			st.took = time.Since(start)
			return st
		}
		pause(ctx, 10*time.Second)
	}
}

// checkSettled: the ticks owed nothing within the limit (SETTLE).
func checkSettled(st settling) *result {
	r := &result{name: "the ticks settle within SETTLE (nothing owed)", checked: 1}
	switch {
	case st.err != nil:
		r.fail("the state could not be read: %v", st.err)
	case !st.done:
		r.fail("after %v: %s", st.took.Round(time.Second), st.owed)
	}
	return r
}
