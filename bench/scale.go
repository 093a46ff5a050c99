package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
)

// systemFigure is one whole-system figure of the report.
type systemFigure struct {
	figure, measured, target string
	// verdict is "pass", "**miss**", or empty when no target applies.
	verdict string
	// method, when set, is how the figure was measured, printed once
	// under the table.
	method string
}

// The reference sizes of the bulk scenarios (docs/performance.md).
const (
	bulkContacts   = 10_000
	deepContacts   = 100_000
	walletRequests = 200
)

// bulkRun is one run of the 10,000-contact chain: import, launch over the
// imported list, audience build over the imported contacts.
type bulkRun struct {
	importTook, launchTook, audienceTook    time.Duration
	importUnits, launchUnits, audienceUnits meter.Counts
	// importBilled … are the write units AWS would bill (see units.go).
	importBilled, launchBilled, audienceBilled float64
	recipients, matched                        int
	// launchPeak and audiencePeak are the busiest partition key and second
	// of the launch and of the audience build.
	launchPeak, audiencePeak meter.PartitionSecond
	// batches are the times of the import's requests.
	batches []time.Duration
	// launchChanges is the part of launchBilled that the launch's change
	// records take.
	launchChanges float64
	// memberPages are the figures of the audience's member pages.
	memberPages []systemFigure
}

// bulkScenarios measures the work over large collections.
func bulkScenarios(ctx context.Context, e *env, o options) []systemFigure {
	n := max(100, int(float64(bulkContacts)*o.scale))
	var (
		runs []bulkRun
		figs []systemFigure
	)
	for r := range o.bulkRuns {
		if !strings.Contains(o.bulk, "chain") {
			break
		}
		progress("bulk chain %d/%d over %d contacts", r+1, o.bulkRuns, n)
		run, err := bulkChain(ctx, e, fmt.Sprintf("bulk%d", r), n)
		if err != nil {
			figs = append(figs, systemFigure{figure: "bulk chain (import, launch, audience build)", measured: "failed: " + oneLine(err.Error())})
			break
		}
		runs = append(runs, run)
	}
	if len(runs) > 0 {
		figs = append(figs, bulkFigures(runs, n)...)
		figs = append(figs, runs[0].memberPages...)
	}
	if strings.Contains(o.bulk, "deep") {
		progress("deep pages over %d contacts", max(10_000, int(float64(deepContacts)*o.scale)))
		figs = append(figs, deepPages(ctx, e, max(10_000, int(float64(deepContacts)*o.scale)))...)
	}
	if strings.Contains(o.bulk, "ledger") {
		progress("deep ledger pages over %d entries, change feed pages", max(5_000, int(float64(ledgerEntries)*o.scale)))
		figs = append(figs, ledgerPages(ctx, e, max(5_000, int(float64(ledgerEntries)*o.scale)))...)
		figs = append(figs, feedPages(ctx, e)...)
	}
	if strings.Contains(o.bulk, "tick") {
		progress("scheduler ticks sending %d emails", tickEmails)
		figs = append(figs, tickScenario(ctx, e)...)
	}
	if strings.Contains(o.bulk, "webhooks") {
		progress("webhook deliveries of %d add-recipients", webhookRecipients)
		figs = append(figs, webhookScenario(ctx, e)...)
	}
	if strings.Contains(o.bulk, "imports") {
		progress("CSV import of %d rows", max(100, int(float64(importRows)*o.scale)))
		figs = append(figs, importScenario(ctx, e, max(100, int(float64(importRows)*o.scale)))...)
	}
	if strings.Contains(o.bulk, "orders") {
		progress("fulfilment: claims, shipments, cancels, exports")
		figs = append(figs, ordersScenario(ctx, e)...)
	}
	if strings.Contains(o.bulk, "digital") {
		progress("claims of a digital gift")
		figs = append(figs, digitalScenario(ctx, e)...)
	}
	if strings.Contains(o.bulk, "wallet") {
		progress("wallet under %d concurrent add-recipients", walletRequests)
		timeout, err := functionTimeout(e.root, httpapi.Recipients.String())
		if err != nil {
			return append(figs, systemFigure{figure: "wallet race", measured: "failed: " + err.Error()})
		}
		figs = append(figs, walletRace(ctx, e, o.bulkRuns, timeout)...)
	}
	return figs
}

// bulkChain imports n contacts through the API (batches of 100, one after
// another, as a client following the original interface does), launches a
// campaign over them and builds an audience over them, each timed to the end of
// its background work.
func bulkChain(ctx context.Context, e *env, name string, n int) (bulkRun, error) {
	var r bulkRun
	const price = 10
	t, err := e.newTenant(ctx, name, int64(n*price))
	if err != nil {
		return r, err
	}
	listID, err := e.createList(ctx, t, "Bulk import")
	if err != nil {
		return r, err
	}
	var ids []string
	r.importTook, r.importUnits, r.importBilled, err = e.observe(ctx, func() (err error) {
		ids, r.batches, err = e.importContacts(ctx, t, listID, name, 0, n, 1)
		return err
	})
	if err != nil {
		return r, fmt.Errorf("import: %w", err)
	}
	if slices.Contains(ids, "") {
		return r, fmt.Errorf("import: some contacts were not created")
	}

	campaignID, err := e.newCampaign(ctx, t, "Bulk launch", []string{listID}, price)
	if err != nil {
		return r, err
	}
	var launchCalls []meter.Call
	r.launchTook, r.launchUnits, launchCalls, err = e.observeCalls(func() error {
		_, err := e.expect(ctx, t, http.StatusAccepted, "POST", "/api/campaigns/"+campaignID+"/launch", nil)
		e.queue.Wait()
		return err
	})
	if busiest := meter.PartitionSeconds(launchCalls, e.bill.layout()); len(busiest) > 0 {
		r.launchPeak = busiest[0]
	}
	if err != nil {
		return r, err
	}
	r.launchBilled, r.launchChanges = e.changeWrites(ctx, launchCalls)
	status, total, err := e.campaignState(ctx, t, campaignID)
	if err != nil {
		return r, err
	}
	if r.recipients = total; r.recipients != n {
		return r, fmt.Errorf("launch: campaign is %s with %d recipients, want %d", status, r.recipients, n)
	}

	icpID, err := e.createPersona(ctx, t)
	if err != nil {
		return r, err
	}
	var audienceID string
	var audienceCalls []meter.Call
	r.audienceTook, r.audienceUnits, audienceCalls, err = e.observeCalls(func() (err error) {
		audienceID, err = e.buildAudience(ctx, t, icpID)
		return err
	})
	if busiest := meter.PartitionSeconds(audienceCalls, e.bill.layout()); len(busiest) > 0 {
		r.audiencePeak = busiest[0]
	}
	if err != nil {
		return r, err
	}
	r.audienceBilled = e.bill.writeUnits(ctx, audienceCalls)
	res, err := e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/audience-lists/"+audienceID, nil)
	if err != nil {
		return r, err
	}
	var a struct {
		Data struct {
			Status     string `json:"status"`
			TotalMatch int    `json:"totalMatch"`
		} `json:"data"`
	}
	if err := res.decode(&a); err != nil {
		return r, err
	}
	// Two job titles in five are marketing ones, and every contact lives
	// where the persona looks.
	if r.matched = a.Data.TotalMatch; r.matched != n*2/5 {
		return r, fmt.Errorf("audience: %s with %d matches, want %d", a.Data.Status, r.matched, n*2/5)
	}
	r.memberPages = audienceMemberFigures(ctx, e, t, audienceID, r.matched)
	return r, nil
}

// observe runs f and returns how long it took, what it asked of DynamoDB
// (its background jobs included) and the write units AWS would bill.
func (e *env) observe(ctx context.Context, f func() error) (time.Duration, meter.Counts, float64, error) {
	took, counts, calls, err := e.observeCalls(f)
	return took, counts, e.bill.writeUnits(ctx, calls), err
}

// observeCalls runs f and returns how long it took and what it asked of
// DynamoDB (its background jobs included), call by call.
func (e *env) observeCalls(f func() error) (time.Duration, meter.Counts, []meter.Call, error) {
	u := &meter.Usage{Record: true}
	stop := e.meter.Observe(u)
	start := time.Now()
	err := f()
	took := time.Since(start)
	stop()
	return took, u.Counts(), u.Calls(), err
}

func bulkFigures(runs []bulkRun, n int) []systemFigure {
	pick := func(f func(bulkRun) float64) float64 {
		var v []float64
		for _, r := range runs {
			v = append(v, f(r))
		}
		return medianFloat(v)
	}
	secs := func(d time.Duration) float64 { return d.Seconds() }
	importS := pick(func(r bulkRun) float64 { return secs(r.importTook) })
	importWRU := pick(func(r bulkRun) float64 { return r.importBilled })
	importReported := pick(func(r bulkRun) float64 { return r.importUnits.WriteUnits })
	perContact := importWRU / float64(n)
	launchS := pick(func(r bulkRun) float64 { return secs(r.launchTook) })
	launchWRU := pick(func(r bulkRun) float64 { return r.launchBilled })
	audS := pick(func(r bulkRun) float64 { return secs(r.audienceTook) })
	audWRU := pick(func(r bulkRun) float64 { return r.audienceBilled })
	audRRU := pick(func(r bulkRun) float64 { return r.audienceUnits.ReadUnits })
	runsNote := fmt.Sprintf("median of %d runs", len(runs))
	if len(runs) == 1 {
		runsNote = "one run"
	}
	var allBatches []time.Duration
	for _, r := range runs {
		allBatches = append(allBatches, r.batches...)
	}
	return []systemFigure{
		{figure: fmt.Sprintf("import of %d contacts through the API (%d POST /contact-lists/{id}/contacts of 100, one after another): wall time", n, (n+99)/100),
			measured: fmt.Sprintf("%.1f s (%s); one request of 100: p50 %s, p99 %s", importS, runsNote,
				ms(percentile(allBatches, 50)), ms(percentile(allBatches, 99))), target: "≤ 30 s locally", verdict: verdict(importS <= 30)},
		{figure: fmt.Sprintf("import of %d contacts: write units per new contact", n),
			measured: fmt.Sprintf("%.2f WRU billed, est. (%.0f in all; DynamoDB Local reported %.0f; %.0f RRU)", perContact, importWRU, importReported,
				pick(func(r bulkRun) float64 { return r.importUnits.ReadUnits })),
			target: "≤ 2", verdict: verdict(perContact <= 2)},
		{figure: fmt.Sprintf("launch of a %d-contact campaign: POST /launch to the last recipient written", n),
			measured: fmt.Sprintf("%.1f s, %.0f WRU billed, est. (%.2f per recipient), %.0f RRU (%s)", launchS, launchWRU, launchWRU/float64(n),
				pick(func(r bulkRun) float64 { return r.launchUnits.ReadUnits }), runsNote)},
		{figure: fmt.Sprintf("write units the change records add to the launch of %d (billed, est.)", n),
			measured: fmt.Sprintf("%.0f of the launch's %.0f WRU (%.2f per launched recipient; %s)", pick(func(r bulkRun) float64 { return r.launchChanges }),
				launchWRU, pick(func(r bulkRun) float64 { return r.launchChanges })/float64(n), runsNote)},
		peakFigure(runs, func(r bulkRun) meter.PartitionSecond { return r.launchPeak },
			fmt.Sprintf("the %d-recipient launch", n), "launch", fmt.Sprintf("launch pace %d WRU/s", dynamo.LaunchWriteRate)),
		{figure: fmt.Sprintf("audience build over %d contacts (%d match): POST /audience-lists to the build's end", n, n*2/5),
			measured: fmt.Sprintf("%.1f s, %.0f WRU billed, est. (%.2f per member), %.0f RRU (%.3f per contact scanned) (%s)", audS, audWRU, audWRU/float64(n*2/5),
				audRRU, audRRU/float64(n), runsNote)},
		peakFigure(runs, func(r bulkRun) meter.PartitionSecond { return r.audiencePeak },
			fmt.Sprintf("the audience build over %d contacts", n), "build", "builds are paced at the launch pace less one commit's units"),
	}
}

// peakFigure is the busiest second of one partition key during work (the
// launch, the audience build) over the runs, from the meter: the most
// write units, with the key's pattern. peakOf picks the run's figure; how
// says how the work is paced.
func peakFigure(runs []bulkRun, peakOf func(bulkRun) meter.PartitionSecond, work, what, how string) systemFigure {
	var peak meter.PartitionSecond
	for _, r := range runs {
		if p := peakOf(r); p.Units > peak.Units {
			peak = p
		}
	}
	return systemFigure{
		figure:   fmt.Sprintf("peak write units per second into one partition key during %s (from the meter)", work),
		measured: fmt.Sprintf("%.0f WRU in one second into %s (%s)", peak.Units, meter.KeyPattern(peak.Key), how),
		target:   "≤ 1,000, or the " + what + " paced to it", verdict: verdict(peak.Units <= 1000),
	}
}
