package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// walletRace sends walletRequests add-recipients at once to a campaign whose
// wallet can pay for three in four of them, and checks what the target
// requires: nothing overspent, the balance exact, every answer 200 or 402.
//
// Each request may take as long as the function's timeout in template.yaml
// (API Gateway gives up on a Lambda at about the same time); one that takes
// longer counts as unanswered, as it would be deployed. The race's effects
// are read back through the API once every request has ended on the
// server: the balance must be exactly the credits less the price of each
// recipient written, whatever the callers were told.
func walletRace(ctx context.Context, e *env, runs int, timeout time.Duration) []systemFigure {
	const (
		price      = 10
		affordable = walletRequests * 3 / 4
	)
	var (
		throughputs []float64
		summaries   []string
		problems    []string
	)
	for r := range runs {
		name := fmt.Sprintf("wallet%d", r)
		t, err := e.newTenant(ctx, name, affordable*price)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		campaignID, err := e.newCampaign(ctx, t, "Wallet race", nil, price)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		type result struct {
			status    int
			remaining int
			took      time.Duration
			err       error
		}
		results := make([]result, walletRequests)
		release := make(chan struct{})
		var wg sync.WaitGroup
		for k := range walletRequests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-release
				rctx, cancel := context.WithTimeout(ctx, timeout)
				defer cancel()
				start := time.Now()
				res, err := e.do(rctx, t, "POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody(name, k))
				results[k] = result{status: res.status, took: time.Since(start), err: err}
				if err == nil && res.status == http.StatusOK {
					var out struct {
						RemainingBalance int `json:"remainingBalance"`
					}
					results[k].err = res.decode(&out)
					results[k].remaining = out.RemainingBalance
				}
			}()
		}
		start := time.Now()
		close(release)
		wg.Wait()
		took := time.Since(start)
		// Requests the callers gave up on may still be finishing on the
		// server; the state is read once they have.
		if !e.idle(time.Minute) {
			problems = append(problems, fmt.Sprintf("run %d: requests still running a minute after their callers gave up", r+1))
		}

		statuses := map[int]int{}
		var (
			remaining []int
			durations []time.Duration
			timedOut  int
		)
		for _, res := range results {
			switch {
			case errors.Is(res.err, context.DeadlineExceeded):
				timedOut++
				continue
			case res.err != nil:
				problems = append(problems, fmt.Sprintf("run %d: %v", r+1, res.err))
				continue
			}
			statuses[res.status]++
			durations = append(durations, res.took)
			if res.status == http.StatusOK {
				remaining = append(remaining, res.remaining)
			}
		}
		ok, refused := statuses[http.StatusOK], statuses[http.StatusPaymentRequired]
		throughputs = append(throughputs, float64(ok+refused)/took.Seconds())
		balance, recipients, err := walletState(ctx, e, t, campaignID)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		summaries = append(summaries, fmt.Sprintf("run %d: %d × 200, %d × 402, %d other, %d unanswered within %s; answers p50 %s, slowest %s; %d recipients written, final balance %d",
			r+1, ok, refused, walletRequests-ok-refused-timedOut, timedOut, timeout, ms(percentile(durations, 50)), ms(percentile(durations, 100)), recipients, balance))
		// What must hold whatever the callers were told.
		if balance < 0 || recipients > affordable || balance != affordable*price-recipients*price {
			problems = append(problems, fmt.Sprintf("run %d: OVERSPENT or inexact: balance %d with %d recipients written from %d credits", r+1, balance, recipients, affordable*price))
		}
		// What the target (docs/performance.md) requires of the answers.
		if ok+refused != walletRequests {
			problems = append(problems, fmt.Sprintf("run %d: %d requests were not answered 200 or 402 in time", r+1, walletRequests-ok-refused))
		}
		if timedOut == 0 && ok != affordable {
			problems = append(problems, fmt.Sprintf("run %d: %d added, want exactly %d (what the wallet pays for)", r+1, ok, affordable))
		}
		// Each success saw its own balance: the answers are consistent.
		sort.Ints(remaining)
		if len(slices.Compact(slices.Clone(remaining))) != len(remaining) {
			problems = append(problems, fmt.Sprintf("run %d: two successes report the same remaining balance", r+1))
		}
		if len(problems) > 0 {
			// One failed run says it; more would only take time.
			break
		}
	}
	fig := systemFigure{
		figure: fmt.Sprintf("%d concurrent add-recipients on one wallet that pays for %d: throughput (answers per second), and nothing overspent", walletRequests, affordable),
		target: fmt.Sprintf("0 overspend, balance exact, every request 200 or 402 (within the function timeout, %s)", timeout),
	}
	runsNote := fmt.Sprintf("median of %d runs", len(throughputs))
	if len(throughputs) == 1 {
		runsNote = "one run"
	}
	fig.measured = fmt.Sprintf("%.1f answers/s (%s). %s", medianFloat(throughputs), runsNote, strings.Join(summaries, "; "))
	fig.verdict = verdict(len(problems) == 0)
	if len(problems) > 0 {
		fig.measured += ". Problems: " + strings.Join(problems, "; ")
	}
	fig.measured = strings.ReplaceAll(fig.measured, "|", "\\|")
	return []systemFigure{fig}
}

// walletState reads the wallet's balance and the campaign's recipient count
// through the API.
func walletState(ctx context.Context, e *env, t tenant, campaignID string) (balance, recipients int, err error) {
	res, err := e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/wallet", nil)
	if err != nil {
		return 0, 0, err
	}
	var w struct {
		Data struct {
			Balance int `json:"balance"`
		} `json:"data"`
	}
	if err := res.decode(&w); err != nil {
		return 0, 0, err
	}
	res, err = e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/"+campaignID, nil)
	if err != nil {
		return 0, 0, err
	}
	var c struct {
		Data struct {
			TotalRecipients int `json:"totalRecipients"`
		} `json:"data"`
	}
	return w.Data.Balance, c.Data.TotalRecipients, res.decode(&c)
}
