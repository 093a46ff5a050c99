package main

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/giftcampaign/service/client"
)

// pageLimit is the page size the list readers ask for.
const pageLimit = 100

// listPass is one reading of a campaign's whole recipient list, page after page until hasNext is false.
type listPass struct {
	ids    map[string]bool
	pages  int
	total  int  // the last page's pagination.total
	failed bool // a page could not be read
}

// pageAll reads every page of c's recipients (newest first, the default order), as a client would,
// trusting hasNext. With offset pages, recipients written meanwhile (newest first) only push others to
// a later page, so no recipient that existed before the first page can be missed unless the list hides
// it; a page may repeat one.
func pageAll(ctx context.Context, c *campaign, maxPages int) listPass {
	pass := listPass{ids: map[string]bool{}}
	limit := pageLimit
	for page := 1; page <= maxPages; page++ {
		var res *client.ListCampaignRecipientsResponse
		var err error
		for rt := newRetrier(); rt.more(ctx); {
			res, err = c.org.api.ListCampaignRecipientsWithResponse(as(ctx, "list: page"), c.id,
				&client.ListCampaignRecipientsParams{Page: &page, Limit: &limit})
			if !unsure(httpRes(res, err), err) {
				break
			}
		}
		if err != nil || res.JSON200 == nil {
			pass.failed = true
			return pass
		}
		rs, err := res.JSON200.Recipients.AsRecipientListRecipients0()
		if err != nil {
			pass.failed = true
			return pass
		}
		pass.pages++
		pass.total = res.JSON200.Pagination.Total
		for _, r := range rs {
			pass.ids[r.RecipientId] = true
		}
		if !res.JSON200.Pagination.HasNext {
			return pass
		}
	}
	return pass
}

// readLists is a client reading whole recipient lists while launches run: every 8–12 s it takes a
// launched campaign (the newest more often: its launch may still be writing), reads its recipients
// from the table, then every page of its list, and records the recipients the pages missed.
func readLists(ctx, load context.Context, c *cluster, w *world, rng *rand.Rand) {
	for load.Err() == nil {
		pause(load, time.Duration(8000+rng.IntN(4000))*time.Millisecond)
		cs := w.launched()
		if len(cs) == 0 || load.Err() != nil {
			continue
		}
		i := len(cs) - 1 - min(rng.IntN(len(cs)), rng.IntN(len(cs)))
		camp := cs[i]
		truth, err := c.store.AuditRecipients(ctx, camp.org.id, camp.id)
		if err != nil {
			continue // DynamoDB Local down: the next round tries again
		}
		pass := pageAll(ctx, camp, len(truth)/pageLimit+20)
		if pass.failed {
			continue
		}
		read := listRead{campaignID: camp.id, truth: len(truth), pages: pass.pages}
		for _, r := range truth {
			if !pass.ids[r.RecipientID] {
				read.missing = append(read.missing, r.RecipientID)
			}
		}
		read.earlyEnd = len(read.missing) > 0 && pass.pages*pageLimit < len(truth)
		w.mu.Lock()
		w.lists = append(w.lists, read)
		w.mu.Unlock()
	}
}

// checkListsDuringLoad: the lists read while launches ran held every recipient that existed before
// their first page.
func checkListsDuringLoad(w *world) *result {
	r := &result{name: "list pages complete while work ran (every recipient in the table before page 1 on some page)"}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range w.lists {
		r.checked++
		if len(l.missing) > 0 {
			how := ""
			if l.earlyEnd {
				how = ", hasNext false early"
			}
			r.fail("%s: %d of %d missing after %d pages%s (e.g. %s)", l.campaignID, len(l.missing), l.truth, l.pages, how, l.missing[0])
		}
	}
	return r
}

// checkListsAfter: every campaign's list, read page by page once the ticks settled, is its recipients,
// with the right total.
func checkListsAfter(ctx context.Context, s *snapshot) *result {
	r := &result{name: "list pages complete after settling (union of pages = recipients, total exact)"}
	for _, cs := range s.campaigns {
		if len(cs.recipients) == 0 {
			continue
		}
		r.checked++
		camp := &campaign{org: cs.org, id: cs.c.CampaignID}
		pass := pageAll(ctx, camp, len(cs.recipients)/pageLimit+20)
		missing := 0
		example := ""
		for _, rc := range cs.recipients {
			if !pass.ids[rc.RecipientID] {
				missing++
				example = rc.RecipientID
			}
		}
		switch {
		case pass.failed:
			r.fail("%s: a page could not be read", camp.id)
		case missing > 0:
			r.fail("%s: %d of %d on no page (e.g. %s); total %d after %d pages", camp.id, missing, len(cs.recipients), example, pass.total, pass.pages)
		case pass.total != len(cs.recipients):
			r.fail("%s: total %d, %d recipients", camp.id, pass.total, len(cs.recipients))
		}
	}
	return r
}
