package main

import (
	"fmt"
	"strings"
	"time"
)

// report is the run's output: the invariants, the requests and the figures, as markdown tables.
type report struct {
	cfg         config
	results     *results
	w           *world
	c           *cluster
	load, total time.Duration
	loadStart   time.Time
	settled     settling
}

// violations is the number of invariants that failed.
func (r report) violations() int {
	n := 0
	for _, row := range r.results.rows {
		if row.violations > 0 {
			n++
		}
	}
	return n
}

func (r report) markdown() string {
	var b strings.Builder
	verdict := "every invariant holds"
	if n := r.violations(); n > 0 {
		verdict = fmt.Sprintf("%d invariants violated", n)
	}
	fmt.Fprintf(&b, "\n## Chaos run, seed %d: %s\n\n", r.cfg.seed, verdict)
	fmt.Fprintf(&b, "`make chaos SEED=%d DURATION=%v` — %d API processes on one table, DynamoDB Local on disk, %v of load.\n\n",
		r.cfg.seed, r.cfg.duration, r.cfg.procs, r.load.Round(time.Second))
	b.WriteString("| invariant | checked | violations | examples |\n| --- | ---: | ---: | --- |\n")
	for _, row := range r.results.rows {
		ex := strings.Join(row.examples, "<br>")
		if row.note != "" {
			ex = strings.TrimPrefix(ex+"<br>"+row.note, "<br>")
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", row.name, row.checked, row.violations, escape(ex))
	}
	b.WriteString("\n| requests | sent | 2xx | 3xx | 4xx | 5xx | lost |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	kinds, byKind := r.w.st.rows()
	var all outcomes
	for _, k := range kinds {
		o := byKind[k]
		n := o.ok + o.redirect + o.client + o.server + o.lost
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", k, n, o.ok, o.redirect, o.client, o.server, o.lost)
		all.ok, all.redirect, all.client, all.server, all.lost = all.ok+o.ok, all.redirect+o.redirect, all.client+o.client, all.server+o.server, all.lost+o.lost
	}
	fmt.Fprintf(&b, "| **all** | %d | %d | %d | %d | %d | %d |\n", all.ok+all.redirect+all.client+all.server+all.lost,
		all.ok, all.redirect, all.client, all.server, all.lost)
	b.WriteString("\n| figure | value |\n| --- | --- |\n")
	for _, f := range r.figures() {
		fmt.Fprintf(&b, "| %s | %s |\n", f[0], escape(f[1]))
	}
	b.WriteString("\n")
	return b.String()
}

// figures are the run's numbers besides the invariants.
func (r report) figures() [][2]string {
	var apiKills, dbKills int
	var timeline []string
	start := r.loadStart
	for _, f := range r.c.faults.all() {
		if f.what != "kill -9" {
			continue
		}
		if f.target == "DynamoDB Local" {
			dbKills++
		} else {
			apiKills++
		}
		timeline = append(timeline, fmt.Sprintf("%s %s", f.at.Sub(start).Round(time.Second), f.target))
	}
	settle := fmt.Sprintf("settled in %v", r.settled.took.Round(time.Second))
	if !r.settled.done {
		settle = fmt.Sprintf("**not settled** after %v (the limit is %v): %s", r.settled.took.Round(time.Second), r.cfg.settle, r.settled.owed)
	}
	var launched, completed, recipients, adds, accepted int
	r.w.mu.Lock()
	for _, c := range r.w.campaigns {
		if c.launchSeen {
			launched++
		}
		if c.completed {
			completed++
		}
		for _, a := range c.adds {
			adds++
			if a.outcome == "accepted" {
				accepted++
			}
		}
	}
	claims := 0
	for _, cl := range r.w.claims {
		if cl.outcome == "claimed" {
			claims++
		}
	}
	listReads := len(r.w.lists)
	campaigns := len(r.w.campaigns)
	r.w.mu.Unlock()
	if r.w.feed != nil {
		for _, ids := range r.w.feed.ids {
			recipients += len(ids)
		}
	}
	out := [][2]string{
		{"kills", fmt.Sprintf("%d API processes, %d DynamoDB Local (into the load: %s)", apiKills, dbKills, strings.Join(timeline, ", "))},
		{"settling", settle},
		{"whole run", r.total.Round(time.Second).String()},
		{"campaigns", fmt.Sprintf("%d created, %d launched, %d completed", campaigns, launched, completed)},
		{"adds", fmt.Sprintf("%d made, %d accepted", adds, accepted)},
		{"claims", fmt.Sprintf("%d accepted (303)", claims)},
		{"change records in the feed", fmt.Sprint(recipients)},
		{"whole lists read while work ran", fmt.Sprint(listReads)},
	}
	return append(out, r.results.figures...)
}

// escape keeps a cell's text from breaking the table.
func escape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
