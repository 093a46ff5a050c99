package scheduler_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/campaign"
)

// TestSuspendedOrganizationsEmailsHold: while the service's operator has
// an organization suspended, its recipients' scheduled emails wait (the
// reminder due during the suspension is not sent, however many ticks
// pass) and their pages stay up; resumed, the reminder goes out at the
// next tick, once. The usage counts exactly the emails sent.
func TestSuspendedOrganizationsEmailsHold(t *testing.T) {
	t.Parallel()
	e := newMailEnv(t)
	ctx := context.Background()
	ops := access.NewApp(e.store)
	c := e.campaign(campaign.Live)
	jane := e.add(c, "jane")
	e.wantSubjects("jane", invitation)

	if err := ops.Suspend(ctx, e.orgID); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(72 * time.Hour)
	e.tick()
	e.clock.Advance(2 * time.Hour)
	e.tick()
	e.wantSubjects("jane", invitation)
	if r := e.recipient(c.CampaignID, jane.Response.RecipientID); r.Emails.Reminder1.Sent {
		t.Error("the reminder is marked sent while the organization is suspended")
	}
	landing, err := url.Parse(jane.Response.LandingPageURL)
	if err != nil {
		t.Fatal(err)
	}
	if status, body, _ := e.page("GET", landing.Path, ""); status != http.StatusOK || !strings.Contains(body, "Jane") {
		t.Errorf("the landing page of a suspended organization's recipient: %d, want 200 with the page", status)
	}

	if err := ops.Resume(ctx, e.orgID); err != nil {
		t.Fatal(err)
	}
	// A held email is due again after EmailHold.
	e.clock.Advance(time.Hour)
	e.tick()
	e.tick()
	e.wantSubjects("jane", invitation, reminder1)

	// The test's clock may have crossed into another month.
	months := []string{access.MonthOf(e.clock.Now().Add(-75 * time.Hour))}
	if m := access.MonthOf(e.clock.Now()); m != months[0] {
		months = append(months, m)
	}
	var sent int64
	for _, m := range months {
		u, err := e.store.Usage(ctx, e.orgID, m)
		if err != nil {
			t.Fatal(err)
		}
		sent += u.EmailsSent
	}
	if sent != 2 {
		t.Errorf("usage counts %d emails sent, want 2", sent)
	}
}
