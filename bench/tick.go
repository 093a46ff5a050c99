package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// tickEmails is the number of emails the tick scenario has the scheduler
// send (issue 14's "a tick that sends 1,000 emails").
const tickEmails = 1_000

// reminderDelay is when the catalog's first template (the benchmark's
// campaigns' template, campaignBody) sends its first reminder.
const reminderDelay = 72 * time.Hour

// TestTickCostPerEmail's bounds, per email sent (shared/scheduler's
// mailevents_test.go: 10 requests since the tick reads the organization's
// suspension; keep the two equal).
const (
	tickRequestsPerEmail = 10
	tickWritesPerEmail   = 24
)

// countingMailer counts the emails its mailer accepted.
type countingMailer struct {
	mail.Mailer
	sent atomic.Int64
}

func (m *countingMailer) SendEmail(ctx context.Context, msg mail.Message) (mail.Sent, error) {
	s, err := m.Mailer.SendEmail(ctx, msg)
	if err == nil {
		m.sent.Add(1)
	}
	return s, err
}

// benchMailer is the SES v2 emulator `make bench` starts (SES_ENDPOINT,
// through the same mailer as the deployed functions), else shared/mail's
// in-memory mailer; the name says which, for the report. Without
// SES_ENDPOINT the SES mailer would reach real AWS, which the benchmark
// never does.
func benchMailer() (mail.Mailer, string, error) {
	endpoint := os.Getenv("SES_ENDPOINT")
	if endpoint == "" {
		return &mail.Memory{}, "in-memory mailer (no SES_ENDPOINT)", nil
	}
	m, err := sesmail.New(app.Config{SenderAddress: "gifts@example.com", SESEndpoint: endpoint, PublicBaseURL: "https://gifts.example.com"})
	if err != nil {
		return nil, "", err
	}
	return m, "SES v2 emulator", nil
}

// tickScenario measures the scheduler tick on a table of its own: idle on
// the fresh table, idle again with tickEmails recipients waiting for a
// reminder, then the ticks that send those reminders once their time has
// come (an injected clock), until every one went out.
func tickScenario(ctx context.Context, e *env) []systemFigure {
	method := fmt.Sprintf("Scheduler tick (shared/scheduler, the worker's EventBridge entry): on a fresh table of its own, so nothing other scenarios left is due, over the metered client; the store's clock is the real time plus an offset the benchmark sets. A campaign over %d imported contacts is launched through the API (POST /launch, the launch job sends the invitations; the campaign goes live), then the clock moves %.0f h on, to its template's first reminder, and ticks run one after another until the mailer accepted %d reminders. An idle tick's units are as DynamoDB Local reports them (none for an empty page); WRU billed (est.) as for the endpoints; per email divides everything the ticks did, the due-index queries included.",
		tickEmails, reminderDelay.Hours(), tickEmails)
	fail := func(err error) []systemFigure {
		return []systemFigure{{figure: "scheduler tick", measured: "failed: " + oneLine(err.Error()), method: method}}
	}
	inner, mailerName, err := benchMailer()
	if err != nil {
		return fail(err)
	}
	mailer := &countingMailer{Mailer: inner}
	clk := &testenv.Clock{}
	te, err := e.sibling(ctx, envConfig{store: []dynamo.Option{dynamo.WithClock(clk.Now)}, service: service.Config{Mailer: mailer}})
	if err != nil {
		return fail(err)
	}
	defer te.close()
	sched := scheduler.New(te.store, te.svc.RunJob, slog.New(slog.DiscardHandler))
	tick := func() (time.Duration, meter.Counts, float64, error) {
		return te.observe(ctx, func() error { return sched.Tick(ctx) })
	}

	_, idleFresh, _, err := tick()
	if err != nil {
		return fail(fmt.Errorf("idle tick: %w", err))
	}
	if err := liveCampaign(ctx, te, "tick", tickEmails); err != nil {
		return fail(err)
	}
	if n := mailer.sent.Load(); n != tickEmails {
		return fail(fmt.Errorf("the launch sent %d invitations, want %d", n, tickEmails))
	}
	_, idleWaiting, _, err := tick()
	if err != nil {
		return fail(fmt.Errorf("idle tick: %w", err))
	}
	if n := mailer.sent.Load(); n != tickEmails {
		return fail(fmt.Errorf("an idle tick sent %d emails", n-tickEmails))
	}

	clk.Advance(reminderDelay + time.Minute)
	var (
		took   time.Duration
		counts meter.Counts
		billed float64
		ticks  int
	)
	for mailer.sent.Load() < 2*tickEmails {
		before := mailer.sent.Load()
		d, c, b, err := tick()
		if err != nil {
			return fail(fmt.Errorf("tick %d: %w", ticks+1, err))
		}
		took, billed, ticks = took+d, billed+b, ticks+1
		counts = counts.Add(c)
		if mailer.sent.Load() == before {
			return fail(fmt.Errorf("tick %d sent nothing with %d of %d reminders sent", ticks, before-tickEmails, tickEmails))
		}
	}
	sent := float64(mailer.sent.Load() - tickEmails)
	per := func(v float64) float64 { return v / sent }
	idleOK := func(c meter.Counts) bool { return c.Requests == 4 && c.WriteUnits == 0 }
	return []systemFigure{
		{
			figure: fmt.Sprintf("scheduler tick with nothing due: on a fresh table; with %d recipients waiting for a reminder %.0f h away", tickEmails, reminderDelay.Hours()),
			measured: fmt.Sprintf("%d requests, %s RRU, %s WRU; %d requests, %s RRU, %s WRU", idleFresh.Requests, num(idleFresh.ReadUnits), num(idleFresh.WriteUnits),
				idleWaiting.Requests, num(idleWaiting.ReadUnits), num(idleWaiting.WriteUnits)),
			target:  "one Query per due shard (4), no writes",
			verdict: verdict(idleOK(idleFresh) && idleOK(idleWaiting)),
			method:  method,
		},
		{
			figure: fmt.Sprintf("scheduler ticks sending %d due reminders (%s): wall time, requests, units", tickEmails, mailerName),
			measured: fmt.Sprintf("%d ticks in %.1f s (%.0f emails/s); %d requests, %.0f RRU, %.0f WRU reported, %.0f WRU billed (est.); per email %.2f requests, %.2f RRU, %.1f WRU reported, %.1f WRU billed (est.)",
				ticks, took.Seconds(), sent/took.Seconds(), counts.Requests, counts.ReadUnits, counts.WriteUnits, billed,
				per(float64(counts.Requests)), per(counts.ReadUnits), per(counts.WriteUnits), per(billed)),
			target:  fmt.Sprintf("per email ≤ %d requests, ≤ %d WRU reported (TestTickCostPerEmail's bounds)", tickRequestsPerEmail, tickWritesPerEmail),
			verdict: verdict(per(float64(counts.Requests)) <= tickRequestsPerEmail && per(counts.WriteUnits) <= tickWritesPerEmail),
			method:  method,
		},
	}
}

// liveCampaign imports n contacts through e's API and launches a campaign
// over them to its end: live, n recipients.
func liveCampaign(ctx context.Context, e *env, name string, n int) error {
	const price = 10
	t, err := e.newTenant(ctx, name, int64(n*price))
	if err != nil {
		return err
	}
	listID, err := e.createList(ctx, t, name)
	if err != nil {
		return err
	}
	if _, _, err := e.importContacts(ctx, t, listID, name, 0, n, 1); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	campaignID, err := e.newCampaign(ctx, t, name, []string{listID}, price)
	if err != nil {
		return err
	}
	if _, err := e.expect(ctx, t, http.StatusAccepted, "POST", "/api/campaigns/"+campaignID+"/launch", nil); err != nil {
		return err
	}
	e.queue.Wait()
	status, total, err := e.campaignState(ctx, t, campaignID)
	if err != nil {
		return err
	}
	if status != "live" || total != n {
		return fmt.Errorf("launch: campaign is %s with %d recipients, want live with %d", status, total, n)
	}
	return nil
}

// campaignState reads a campaign's status and number of recipients
// through the API.
func (e *env) campaignState(ctx context.Context, t tenant, campaignID string) (status string, recipients int, err error) {
	res, err := e.expect(ctx, t, http.StatusOK, "GET", "/api/campaigns/"+campaignID, nil)
	if err != nil {
		return "", 0, err
	}
	var c struct {
		Data struct {
			Status          string `json:"status"`
			TotalRecipients int    `json:"totalRecipients"`
		} `json:"data"`
	}
	err = res.decode(&c)
	return c.Data.Status, c.Data.TotalRecipients, err
}
