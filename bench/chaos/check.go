package main

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/giftcampaign/service/infra/localstack"
	camp "github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
)

// result is one invariant's row: what was checked, how often it failed, and a few examples.
type result struct {
	name       string
	checked    int
	violations int
	examples   []string
	note       string
}

// fail counts a violation, keeping the first few examples.
func (r *result) fail(format string, args ...any) {
	r.violations++
	if len(r.examples) < 3 {
		r.examples = append(r.examples, fmt.Sprintf(format, args...))
	}
}

// results are the invariants' rows and the figures the checks found on the way.
type results struct {
	rows    []*result
	figures [][2]string
}

func (rs *results) figure(name, format string, args ...any) {
	rs.figures = append(rs.figures, [2]string{name, fmt.Sprintf(format, args...)})
}

// check reads everything once more, now that the ticks settled (or gave up), and checks each invariant.
func check(ctx context.Context, c *cluster, w *world, settled settling) (*results, error) {
	f := w.feed
	if f == nil {
		f = newFeed()
	}
	s, err := take(ctx, c, w, f)
	if err != nil {
		return nil, err
	}
	emails, err := localstack.FetchEmails(ctx, c.ses.Endpoint(), 0)
	if err != nil {
		return nil, err
	}
	rs := &results{}
	ledger, err := checkLedgers(ctx, c, w, s)
	if err != nil {
		return nil, err
	}
	rs.rows = append(rs.rows, ledger...)
	rs.rows = append(rs.rows, checkLoad(w, s), checkSettled(settled), checkLaunches(s), checkCounters(s), checkImports(s), checkRecipients(s), checkReplays(w))
	rs.rows = append(rs.rows, checkInvitations(c, s, emails, rs), checkSentEmails(s, emails))
	rs.rows = append(rs.rows, checkWebhooks(c, s, rs)...)
	inv, err := checkInventory(ctx, c, w, s)
	if err != nil {
		return nil, err
	}
	rs.rows = append(rs.rows, inv)
	rs.rows = append(rs.rows, checkListsDuringLoad(w), checkListsAfter(ctx, s), checkServerErrors(w))
	return rs, nil
}

// checkServerErrors: a fault (DynamoDB Local down, a process restarting) is answered 503 with
// Retry-After, never 500: a client can tell "come back" from "broken".
func checkServerErrors(w *world) *result {
	r := &result{name: "every 5xx is a 503 with Retry-After (no internal error)"}
	kinds, byKind := w.st.rows()
	for _, k := range kinds {
		o := byKind[k]
		r.checked += o.server
		for _, b := range o.bad5xx {
			r.fail("%s", b)
		}
	}
	return r
}

// checkLoad: the load got through: campaigns launched and their recipients written. A run that could
// not launch anything (the service down the whole time, a broken harness) checked nothing, and says so.
func checkLoad(w *world, s *snapshot) *result {
	r := &result{name: "the load reached the service (launches accepted, recipients written)", checked: len(w.launched())}
	recipients := 0
	for _, cs := range s.campaigns {
		recipients += len(cs.recipients)
	}
	if r.checked == 0 || recipients == 0 {
		r.fail("%d launches accepted, %d recipients written", r.checked, recipients)
	}
	return r
}

// checkLaunches: no campaign is left preparing.
func checkLaunches(s *snapshot) *result {
	r := &result{name: "no campaign left `preparing`"}
	for _, cs := range s.campaigns {
		if cs.c.LiveData.LaunchedAt == nil && cs.c.Status == camp.Draft {
			continue
		}
		r.checked++
		if cs.c.Status == camp.Preparing {
			p := cs.c.LaunchProgress
			if p != nil {
				r.fail("%s (%d of %d written, last progress %s)", cs.c.CampaignID, p.Created, p.Contacts, p.LastProgressAt.Format("15:04:05"))
			} else {
				r.fail("%s", cs.c.CampaignID)
			}
		}
	}
	return r
}

// checkCounters: each campaign's counters equal its recipients.
func checkCounters(s *snapshot) *result {
	r := &result{name: "campaign counters = its recipients (total, per status, creditsSpent)"}
	for _, cs := range s.campaigns {
		if len(cs.recipients) == 0 && cs.c.TotalRecipients == 0 {
			continue
		}
		r.checked++
		counts := map[gifting.RecipientStatus]int64{}
		var charged int64
		for _, rc := range cs.recipients {
			counts[rc.Status]++
			charged += rc.CreditsCharged
		}
		var bad []string
		if cs.c.TotalRecipients != int64(len(cs.recipients)) {
			bad = append(bad, fmt.Sprintf("totalRecipients %d, recipients %d", cs.c.TotalRecipients, len(cs.recipients)))
		}
		for _, st := range gifting.RecipientStatuses {
			if cs.c.LiveData.StatusCounts[st] != counts[st] {
				bad = append(bad, fmt.Sprintf("%s %d, recipients %d", st, cs.c.LiveData.StatusCounts[st], counts[st]))
			}
		}
		if cs.c.LiveData.CreditsSpent != charged {
			bad = append(bad, fmt.Sprintf("creditsSpent %d, recipients' charges %d", cs.c.LiveData.CreditsSpent, charged))
		}
		if len(bad) > 0 {
			r.fail("%s: %s", cs.c.CampaignID, strings.Join(bad, "; "))
		}
	}
	return r
}

// checkImports: a launch paid for each distinct valid address imported into its list, once.
func checkImports(s *snapshot) *result {
	r := &result{name: "imports: launch contacts = distinct addresses the import answers confirmed"}
	for _, cs := range s.campaigns {
		k := cs.known
		if k == nil || !k.launchSeen || k.imported == 0 {
			continue
		}
		r.checked++
		if k.contacts != int64(k.imported) {
			r.fail("%s: launch paid for %d contacts; the imports confirmed %d distinct addresses in its list", k.id, k.contacts, k.imported)
		}
	}
	return r
}

// checkRecipients: recipients = the contacts launched + the adds accepted; nothing else.
func checkRecipients(s *snapshot) *result {
	r := &result{name: "recipients = contacts launched + adds accepted (200)"}
	for _, cs := range s.campaigns {
		k := cs.known
		if k == nil || !(k.launchSeen || k.launchUnsure) {
			continue
		}
		r.checked++
		byEmail := map[string]gifting.Recipient{}
		launched := 0
		for _, rc := range cs.recipients {
			if strings.HasPrefix(rc.ContactDetails.Email, "add-") {
				byEmail[rc.ContactDetails.Email] = rc
			} else {
				launched++
			}
		}
		if k.launchSeen && int64(launched) != k.contacts {
			r.fail("%s: %d recipients from its launch of %d contacts", k.id, launched, k.contacts)
		}
		seen := map[string]bool{}
		for _, a := range k.adds {
			seen[a.email] = true
			got, ok := byEmail[a.email]
			switch {
			case a.outcome == "accepted" && !ok:
				r.fail("%s: add of %s answered 200 (recipient %s), no such recipient", k.id, a.email, a.recipientID)
			case a.outcome == "accepted" && a.recipientID != "" && got.RecipientID != a.recipientID:
				r.fail("%s: add answered recipient %s, the table holds %s", k.id, a.recipientID, got.RecipientID)
			case a.outcome == "rejected" && ok:
				r.fail("%s: add of %s was refused, yet recipient %s exists", k.id, a.email, got.RecipientID)
			}
		}
		for e, rc := range byEmail {
			if !seen[e] {
				r.fail("%s: recipient %s (%s) from no add the load made", k.id, rc.RecipientID, e)
			}
		}
	}
	return r
}

// checkReplays: a replayed keyed add answers the first answer, marked as a replay.
func checkReplays(w *world) *result {
	r := &result{name: "idempotent replays equal the first answer (and a keyed retry after a lost answer succeeds)"}
	w.mu.Lock()
	defer w.mu.Unlock()
	afterLoss := 0
	for _, p := range w.replays {
		r.checked++
		switch {
		case p.afterLoss:
			afterLoss++
			// 409 (already a recipient, no longer a draft) or 422 (key reused): the lost attempt went
			// through and the key did not give its answer back.
			if p.status == http.StatusConflict || p.status == http.StatusUnprocessableEntity {
				r.fail("%s %s key %s sent again after a lost answer: %d, not the first answer", p.campaignID, p.what, p.key, p.status)
			}
		case p.status != 200 || !p.equal || !p.replayed:
			r.fail("%s %s key %s: %d, equal %v, Idempotent-Replayed %v", p.campaignID, p.what, p.key, p.status, p.equal, p.replayed)
		}
	}
	r.note = fmt.Sprintf("%d replays on purpose, %d keyed retries after a lost answer", len(w.replays)-afterLoss, afterLoss)
	return r
}

// unsubscribeToken finds the recipient's token (its landing page id) in an email's List-Unsubscribe.
var unsubscribeToken = regexp.MustCompile(`/unsubscribe/([^>/\s,]+)`)

// byToken groups the SES emulator's emails by recipient (landing page id).
func byToken(emails []localstack.Email) map[string][]localstack.Email {
	out := map[string][]localstack.Email{}
	for _, e := range emails {
		if m := unsubscribeToken.FindStringSubmatch(e.Header("List-Unsubscribe")); m != nil {
			out[m[1]] = append(out[m[1]], e)
		}
	}
	return out
}
