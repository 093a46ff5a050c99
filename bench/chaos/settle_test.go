package main

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/gifting"
)

func TestEmailOwed(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	past, future := gifting.FormatTime(now.Add(-time.Minute)), gifting.FormatTime(now.Add(time.Hour))
	claimed, later := now.Add(-time.Second), now.Add(10*time.Minute)
	for name, c := range map[string]struct {
		e    gifting.EmailSchedule
		owed bool
	}{
		"due":                   {gifting.EmailSchedule{Active: true, ScheduledTime: past}, true},
		"claimed, not sent":     {gifting.EmailSchedule{Active: true, ScheduledTime: future, ClaimedAt: &claimed}, true},
		"not yet due":           {gifting.EmailSchedule{Active: true, ScheduledTime: future}, false},
		"retry later":           {gifting.EmailSchedule{Active: true, ScheduledTime: past, RetryAt: &later}, false},
		"sent":                  {gifting.EmailSchedule{Active: true, ScheduledTime: past, Sent: true, ClaimedAt: &claimed}, false},
		"failed":                {gifting.EmailSchedule{Active: true, ScheduledTime: past, Failure: "expired"}, false},
		"inactive":              {gifting.EmailSchedule{ScheduledTime: past}, false},
		"waiting for its event": {gifting.EmailSchedule{Active: true}, false},
	} {
		if got := emailOwed(c.e, now); got != c.owed {
			t.Errorf("%s: owed %v, want %v", name, got, c.owed)
		}
	}
}

// A duplicate counts as explained by a kill from 5 s before its first send to its last, not otherwise.
func TestKilledBetween(t *testing.T) {
	first := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	kill := func(at time.Time, what string) []fault { return []fault{{at: at, target: "api-0", what: what}} }
	from, to := first.Unix(), first.Add(90*time.Second).Unix()
	for name, c := range map[string]struct {
		kills []fault
		want  bool
	}{
		"a kill between":               {kill(first.Add(30*time.Second), "kill -9"), true},
		"a kill just before the first": {kill(first.Add(-3*time.Second), "kill -9"), true},
		"a kill long before":           {kill(first.Add(-time.Minute), "kill -9"), false},
		"a kill after the last":        {kill(first.Add(2*time.Minute), "kill -9"), false},
		"a restart is no kill":         {kill(first.Add(30*time.Second), "restarted"), false},
	} {
		if got := killedBetween(c.kills, from, to); got != c.want {
			t.Errorf("%s: %v, want %v", name, got, c.want)
		}
	}
}

// Emails are told apart by the unsubscribe token of their List-Unsubscribe header.
func TestByToken(t *testing.T) {
	mail := func(value string) localstack.Email {
		var e localstack.Email
		e.Headers = append(e.Headers, struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		}{"List-Unsubscribe", value})
		return e
	}
	got := byToken([]localstack.Email{
		mail("<http://127.0.0.1:1/unsubscribe/acme.c1.r1.abc>"), mail("<http://127.0.0.1:1/unsubscribe/acme.c1.r1.abc>"),
		mail("<http://127.0.0.1:1/unsubscribe/acme.c1.r2.def>"), {},
	})
	if len(got) != 2 || len(got["acme.c1.r1.abc"]) != 2 || len(got["acme.c1.r2.def"]) != 1 {
		t.Errorf("byToken = %v, want two emails of r1 and one of r2", got)
	}
}
