package scheduler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/testenv"
)

// launched is an organization with a launched campaign over n contacts whose
// job was never run: its launch record is in the due index.
func launched(t *testing.T, s *dynamo.Store, n int) (orgID, campaignID string) {
	t.Helper()
	return launchedWith(t, s, n, 10, "")
}

// launchedWith is launched at price credits a recipient, with the email
// template templateID ("" for none).
func launchedWith(t *testing.T, s *dynamo.Store, n int, price int64, templateID string) (orgID, campaignID string) {
	t.Helper()
	ctx := context.Background()
	orgID, _ = testenv.Org(t, s, "acme", 1_000_000)
	// The campaign's gift is the service catalog's: a launch checks that
	// what a campaign refers to exists.
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	l, err := s.CreateContactList(ctx, orgID, "user-1", "list", "")
	if err != nil {
		t.Fatal(err)
	}
	in := make([]contact.Input, n)
	for i := range in {
		in[i] = contact.Input{MailID: fmt.Sprintf("c%d@example.com", i), FirstName: "C"}
	}
	if _, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil {
		t.Fatal(err)
	}
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "Launch", CreatedBy: "user-1", CampaignData: campaign.Data{
		ContactListID: l.ListID, ContactListIDs: []string{l.ListID}, CreditsPerRecipient: price, GiftIDs: []string{"gift-wireless-charger"},
		EmailTemplateID: templateID,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testenv.LaunchCampaign(ctx, s, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	return orgID, c.CampaignID
}

// launchSlices is the launch job's handler over s, as the server's RunJob
// runs it without a mailer.
func launchSlices(s *dynamo.Store) jobs.Handler {
	return func(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
		next, done, err := testenv.Campaigns(s).LaunchSlice(ctx, j.OrgID, j.Ref, j.Cursor)
		if err != nil || done {
			return nil, err
		}
		j.Cursor = next
		return &j, nil
	}
}

// TestIdleTickReadsOnlyTheDueShards measures a tick with nothing due: one
// Query per shard of the due index and nothing else, both on a fresh table
// and after a launch finished (its record leaves the sparse index).
func TestIdleTickReadsOnlyTheDueShards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now()
	meter := meter.New(testenv.Client(t))
	s := dynamo.New(meter, testenv.Table(t), dynamo.WithClock(func() time.Time { return now }))
	sched := scheduler.New(s, launchSlices(s), testenv.Quiet)
	idle := func(name string) {
		t.Helper()
		before := meter.Total()
		if err := sched.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		got := meter.Total().Sub(before)
		t.Logf("idle tick (%s): %d requests, %.1f read units, %.1f write units", name, got.Requests, got.ReadUnits, got.WriteUnits)
		if got.Requests != 4 || got.ReadUnits > 4 || got.WriteUnits != 0 {
			t.Errorf("idle tick (%s): %d requests, %.1f read units, %.1f write units; want 4 queries (one per shard), ≤ 1 read unit each, no writes",
				name, got.Requests, got.ReadUnits, got.WriteUnits)
		}
	}
	idle("empty table")

	orgID, campaignID := launched(t, s, 30)
	now = now.Add(dynamo.DueLease + time.Second)
	if err := sched.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	c, err := s.Campaign(ctx, orgID, campaignID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != campaign.Live || c.TotalRecipients != 30 {
		t.Fatalf("after a tick: %s with %d recipients; want live with 30", c.Status, c.TotalRecipients)
	}
	now = now.Add(time.Hour)
	idle("after a launch finished")
}

// TestStuckLaunchAlerts fails every slice of a due launch and checks that
// a tick logs a warning while the launch is recent, and an ERROR with the
// alarm's field alert=launch_stuck and ids only once it made no progress
// for 30 minutes; the launch stays due meanwhile.
func TestStuckLaunchAlerts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Now()
	s := testenv.Store(t, dynamo.WithClock(func() time.Time { return now }))
	orgID, campaignID := launched(t, s, 3)
	var buf bytes.Buffer
	failing := func(context.Context, jobs.Job) (*jobs.Job, error) { return nil, errors.New("dynamodb unavailable") }
	sched := scheduler.New(s, failing, slog.New(slog.NewJSONHandler(&buf, nil)))

	for _, tt := range []struct {
		name  string
		after time.Duration
		level string
		alert string
	}{
		{"recent: a warning", dynamo.DueLease + time.Second, "WARN", ""},
		{"no progress for 30 minutes: the alert", scheduler.StuckAfter, "ERROR", "launch_stuck"},
		{"still stuck a lease later: alerts again", dynamo.DueLease + time.Second, "ERROR", "launch_stuck"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			buf.Reset()
			now = now.Add(tt.after)
			if err := sched.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("log %q: %v", buf.String(), err)
			}
			if rec["level"] != tt.level || rec["organizationId"] != orgID || rec["campaignId"] != campaignID {
				t.Errorf("log %v; want level %s with organizationId and campaignId", rec, tt.level)
			}
			if got, _ := rec["alert"].(string); got != tt.alert {
				t.Errorf("alert = %q, want %q", got, tt.alert)
			}
			if strings.Contains(buf.String(), "@example.com") {
				t.Errorf("log holds personal data: %s", buf.String())
			}
		})
	}
	if c, err := s.Campaign(ctx, orgID, campaignID); err != nil || c.Status != campaign.Preparing {
		t.Fatalf("campaign %s, %v; want still preparing", c.Status, err)
	}
	// Once slices work again, the next tick finishes it.
	now = now.Add(dynamo.DueLease + time.Second)
	if err := scheduler.New(s, launchSlices(s), testenv.Quiet).Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Campaign(ctx, orgID, campaignID); err != nil || c.Status != campaign.Live || c.TotalRecipients != 3 {
		t.Errorf("campaign %s with %d recipients, %v; want live with 3", c.Status, c.TotalRecipients, err)
	}
}

// TestLocalTicksHaveTheWorkersDeadline: the local runner's ticks (Run) end
// as a worker invocation does, so a tick working a due item stops starting
// slices before its deadline and never holds up the ticks after it for
// longer than an invocation would.
func TestLocalTicksHaveTheWorkersDeadline(t *testing.T) {
	t.Parallel()
	now := time.Now()
	s := testenv.Store(t, dynamo.WithClock(func() time.Time { return now }))
	launched(t, s, 1)
	now = now.Add(dynamo.DueLease + time.Second)
	seen := make(chan time.Duration, 1)
	job := func(ctx context.Context, _ jobs.Job) (*jobs.Job, error) {
		deadline, ok := ctx.Deadline()
		if !ok {
			deadline = time.Now().Add(time.Hour * 24 * 365)
		}
		select {
		case seen <- time.Until(deadline):
		default:
		}
		return nil, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go scheduler.New(s, job, testenv.Quiet).Run(ctx, 10*time.Millisecond)
	select {
	case left := <-seen:
		if left > scheduler.TickTimeout {
			t.Errorf("a local tick's job has %v left, want at most the worker's %v", left, scheduler.TickTimeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no tick ran the due launch")
	}
}
