package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// walletRace sends walletRequests add-recipients at once to a campaign whose
// wallet can pay for three in four of them, and checks what DESIGN.md
// requires: nothing overspent, the balance exact, every answer 200 or 402.
// Each run has its own organization; throughput is the median over runs.
func walletRace(ctx context.Context, e *env, runs int, deadline time.Duration) []systemFigure {
	const (
		price      = 10
		affordable = walletRequests * 3 / 4
	)
	var statusSummary []string
	var (
		throughputs []float64
		problems    []string
	)
	for r := range runs {
		name := fmt.Sprintf("wallet%d", r)
		t, err := e.newTenant(ctx, name, affordable*price)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		body, err := campaignBody("Wallet race", nil, price)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		campaignID, err := e.createCampaign(ctx, t, body)
		if err != nil {
			problems = append(problems, err.Error())
			break
		}
		type result struct {
			status    int
			remaining int
			err       error
		}
		results := make([]result, walletRequests)
		release := make(chan struct{})
		// A bounded wait: requests still unanswered then are reported.
		raceCtx, cancel := context.WithTimeout(ctx, deadline)
		var wg sync.WaitGroup
		for k := range walletRequests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-release
				res, err := e.do(raceCtx, t, "POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody(name, k))
				results[k] = result{status: res.status, err: err}
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
		cancel()
		throughputs = append(throughputs, walletRequests/took.Seconds())

		statuses := map[int]int{}
		var remaining []int
		unanswered := 0
		for _, res := range results {
			if res.err != nil {
				unanswered++
				continue
			}
			statuses[res.status]++
			if res.status == http.StatusOK {
				remaining = append(remaining, res.remaining)
			}
		}
		if unanswered > 0 {
			problems = append(problems, fmt.Sprintf("run %d: %d requests unanswered after %s", r+1, unanswered, deadline))
		}
		if len(statuses) > 2 || statuses[http.StatusOK]+statuses[http.StatusPaymentRequired] != walletRequests {
			problems = append(problems, fmt.Sprintf("run %d: statuses %v, want only 200 and 402", r+1, statuses))
		}
		statusSummary = append(statusSummary, fmt.Sprintf("run %d: %v in %.1f s", r+1, statuses, took.Seconds()))
		if statuses[http.StatusOK] != affordable {
			problems = append(problems, fmt.Sprintf("run %d: %d added, want exactly %d (what the wallet pays for)", r+1, statuses[http.StatusOK], affordable))
		}
		// Each success saw its own balance: 0, 10, …, 1490, each once.
		sort.Ints(remaining)
		want := make([]int, 0, affordable)
		for b := 0; b < affordable*price && len(remaining) == affordable; b += price {
			want = append(want, b)
		}
		if !slices.Equal(remaining, want) {
			problems = append(problems, fmt.Sprintf("run %d: remainingBalance values are not each balance from 0 to %d once", r+1, (affordable-1)*price))
		}
		balance, recipients, err := walletState(ctx, e, t, campaignID)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if want := affordable*price - statuses[http.StatusOK]*price; balance != want || balance < 0 {
			problems = append(problems, fmt.Sprintf("run %d: final balance %d, want %d", r+1, balance, want))
		}
		if recipients != statuses[http.StatusOK] {
			problems = append(problems, fmt.Sprintf("run %d: campaign has %d recipients, %d were answered 200", r+1, recipients, statuses[http.StatusOK]))
		}
		if len(problems) > 0 {
			// One failed run says it; more would only take time.
			break
		}
	}
	fig := systemFigure{
		figure: fmt.Sprintf("%d concurrent add-recipients on one wallet that pays for %d: throughput, and nothing overspent", walletRequests, affordable),
		target: "0 overspend, balance exact, every request 200 or 402",
	}
	if len(problems) > 0 {
		fig.measured = fmt.Sprintf("%.1f requests/s (%s); problems: %s", medianFloat(throughputs),
			strings.Join(statusSummary, "; "), strings.ReplaceAll(strings.Join(problems, "; "), "|", "\\|"))
		fig.verdict = verdict(false)
	} else {
		fig.measured = fmt.Sprintf("%.0f requests/s (median of %d runs); each run: %d × 200 and %d × 402, final balance 0, each success saw a distinct balance, recipients = successes",
			medianFloat(throughputs), len(throughputs), affordable, walletRequests-affordable)
		fig.verdict = verdict(true)
	}
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
