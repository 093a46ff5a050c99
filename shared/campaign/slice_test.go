package campaign

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/wallet"
)

// preparing is a campaign being launched, with the launch record of 10
// contacts over two lists at 10 credits each, 4 of them recipients.
func preparing() (Campaign, LaunchRecord) {
	c := draft(10)
	c.Status, c.LaunchProgress = Preparing, &LaunchProgress{Contacts: 10, Created: 4}
	return c, LaunchRecord{CampaignID: "c1", ListIDs: []string{"l1", "l2"}, Contacts: 10, CreditsPerRecipient: 10,
		Debited: 100, Created: 4, Cursor: "0|m/x"}
}

func TestDecideSlice(t *testing.T) {
	t.Parallel()
	finished := time.Now()
	for _, tt := range []struct {
		name   string
		edit   func(*Campaign, *LaunchRecord, *bool)
		cursor string
		want   SliceStep
		err    bool
	}{
		{"a slice at the record's cursor", func(*Campaign, *LaunchRecord, *bool) {}, "0|m/x",
			SliceStep{Kind: StepRun, List: 0, After: "m/x", Room: 6}, false},
		{"the first slice", func(_ *Campaign, r *LaunchRecord, _ *bool) { r.Cursor = "" }, "",
			SliceStep{Kind: StepRun, Room: 6}, false},
		{"the next list", func(_ *Campaign, r *LaunchRecord, _ *bool) { r.Cursor = "1" }, "1",
			SliceStep{Kind: StepRun, List: 1, Room: 6}, false},
		{"a cursor the launch passed", func(*Campaign, *LaunchRecord, *bool) {}, "", SliceStep{Kind: StepSkip, Next: "0|m/x"}, false},
		{"every list read", func(_ *Campaign, r *LaunchRecord, _ *bool) { r.Cursor = "2" }, "2", SliceStep{Kind: StepFinish}, false},
		{"every contact paid for a recipient", func(_ *Campaign, r *LaunchRecord, _ *bool) { r.Created = 10 }, "0|m/x",
			SliceStep{Kind: StepFinish}, false},
		{"the finish", func(*Campaign, *LaunchRecord, *bool) {}, FinishCursor, SliceStep{Kind: StepFinish}, false},
		{"a campaign moved on leaves its record due", func(c *Campaign, _ *LaunchRecord, _ *bool) { c.Status = Completed }, "0|m/x",
			SliceStep{Kind: StepStop, ClearDue: true}, false},
		{"a launch over", func(c *Campaign, r *LaunchRecord, _ *bool) { c.Status, r.FinishedAt = Live, &finished }, "0|m/x",
			SliceStep{Kind: StepStop}, false},
		{"no launch record", func(_ *Campaign, _ *LaunchRecord, found *bool) { *found = false }, "0|m/x", SliceStep{Kind: StepStop}, false},
		{"a bad cursor", func(_ *Campaign, r *LaunchRecord, _ *bool) { r.Cursor = "x|y" }, "x|y", SliceStep{}, true},
		{"a list past the lists", func(_ *Campaign, r *LaunchRecord, _ *bool) { r.Cursor = "3" }, "3", SliceStep{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, rec := preparing()
			found := true
			tt.edit(&c, &rec, &found)
			got, err := DecideSlice(c, rec, found, tt.cursor)
			if (err != nil) != tt.err || got != tt.want {
				t.Errorf("DecideSlice = %+v, %v; want %+v (error %v)", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestClaims(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		inviting bool
		room     int64
		want     int
	}{{false, 10_000, SliceSize}, {true, 10_000, InviteSliceSize}, {false, 7, 7}, {true, 7, 7}} {
		if got := ClaimSize(tt.inviting, tt.room); got != tt.want {
			t.Errorf("ClaimSize(%v, %d) = %d, want %d", tt.inviting, tt.room, got, tt.want)
		}
	}
	if c := NewClaim("", 0, []string{"a"}, "m/a"); c.Next != "0|m/a" || c.From != "" {
		t.Errorf("a claim within the list: %+v", c)
	}
	if c := NewClaim("0|m/a", 0, nil, ""); c.Next != "1" {
		t.Errorf("a claim that ends the list: %+v, want the next list", c)
	}
	_, rec := preparing()
	rec.Claim = &SliceClaim{From: "0|m/x", IDs: []string{"a"}, Next: "1"}
	if rec.ClaimAt("0|m/x") == nil || rec.ClaimAt("") != nil {
		t.Errorf("ClaimAt: the record's claim is of the slice at its cursor only")
	}
	if SliceID("0|m/x") != "launch:0|m/x" {
		t.Errorf("SliceID = %q", SliceID("0|m/x"))
	}
}

// written is a recipient a slice wrote, in status st, unchanged or not,
// its invitation claimed at claimed (nil: scheduled).
func written(id string, st gifting.RecipientStatus, unchanged bool, claimed *time.Time) SliceRecipient {
	r := gifting.Recipient{RecipientID: id, CampaignID: "c1", Status: st}
	r.Emails.AddressConfirmation = gifting.EmailSchedule{Active: true, ClaimedAt: claimed}
	return SliceRecipient{Recipient: r, Unchanged: unchanged}
}

// TestDecideCount: a slice counts its recipients at the status it wrote
// them with while they are unchanged, pending otherwise (a move since then
// moved the counters from pending), spends their price, and never counts
// past the contacts paid for.
func TestDecideCount(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c, rec := preparing()
	claim := SliceClaim{From: "0|m/x", IDs: []string{"a", "b", "c", "d"}, Next: "1"}
	mine := []SliceRecipient{
		written("a", gifting.RecipientPending, true, nil),
		written("b", gifting.RecipientInviteSent, false, nil), // sent by the tick since: counted pending
		written("c", gifting.RecipientPending, true, &now),
	}
	p, err := DecideCount("org", c, rec, claim, mine, now)
	if err != nil {
		t.Fatal(err)
	}
	wantDeltas := map[gifting.RecipientStatus]int64{gifting.RecipientPending: 3}
	if p.Created != 3 || p.Room != 7 || p.Spent != 30 || !maps.Equal(p.Deltas, wantDeltas) || !p.Inviting || !p.Progress ||
		p.From != "0|m/x" || p.Next != "1" || p.Members != 4 || len(p.Messages) != 3 || p.OrgID != "org" {
		t.Errorf("count %+v", p)
	}
	for _, m := range p.Messages {
		if m.Type != gifting.ChangeRecipientCreated {
			t.Errorf("message %s, want recipient.created", m.Type)
		}
	}
	mine[0] = written("a", gifting.RecipientInviteSent, true, &now)
	if p, _ := DecideCount("org", c, rec, claim, mine[:1], now); p.Deltas[gifting.RecipientInviteSent] != 1 {
		t.Errorf("an unchanged invited recipient counts %v, want invite_sent", p.Deltas)
	}
	if p, err := DecideCount("org", c, rec, claim, nil, now); err != nil || p.Created != 0 || p.Deltas != nil || p.Room != 10 {
		t.Errorf("an empty slice: %+v, %v; want only its cursor moved", p, err)
	}
	c.CampaignData.CreditsPerRecipient = wallet.MaxBalance
	if _, err := DecideCount("org", c, rec, claim, mine, now); err == nil {
		t.Error("a slice that costs more than a wallet holds is counted")
	}
}

func TestStillClaimed(t *testing.T) {
	t.Parallel()
	_, rec := preparing()
	if StillClaimed(rec, true, "0|m/x") != nil {
		t.Error("a record without a claim refuses a count")
	}
	rec.Claim = &SliceClaim{From: "0|m/x"}
	if err := StillClaimed(rec, true, "0|m/x"); err == nil || !strings.Contains(err.Error(), "refuses its count") {
		t.Errorf("a record still holding the claim: %v, want an error", err)
	}
	if StillClaimed(rec, false, "0|m/x") != nil || StillClaimed(rec, true, "1") != nil {
		t.Error("a record gone or at another slice refuses a count")
	}
}

// TestInvitations: the run that counted a slice sends the invitations
// claimed for it, still its own and with enough of their lease left.
func TestInvitations(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	old := now.Add(-gifting.EmailLease)
	rs := []SliceRecipient{
		written("mine", gifting.RecipientPending, true, &now),
		written("scheduled", gifting.RecipientPending, true, nil),
		written("taken over", gifting.RecipientPending, false, &now),
		written("lease run out", gifting.RecipientPending, true, &old),
	}
	invs := Invitations(rs, now)
	if len(invs) != 1 || invs[0].Recipient.RecipientID != "mine" {
		t.Errorf("invitations %v, want only the unchanged one claimed now", invs)
	}
}

func TestDecideFinish(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	c, rec := preparing()
	p, err := DecideFinish("org", c, rec, now)
	if err != nil {
		t.Fatal(err)
	}
	want := wallet.Change{OrgID: "org", Type: wallet.Refund, Delta: 60, CampaignID: "c1",
		Reason: "campaign launch: 6 of 10 contacts paid for did not become recipients"}
	if p.Refund != 60 || p.Created != 4 || !p.Progress || p.Credit == nil || *p.Credit != want {
		t.Errorf("finish %+v (credit %+v)", p, p.Credit)
	}
	live, ok := p.Messages[0].Data.(Campaign)
	if len(p.Messages) != 1 || p.Messages[0].Type != gifting.ChangeCampaignLive || !ok || live.Status != Live ||
		live.LaunchProgress.Refunded == nil || *live.LaunchProgress.Refunded != 60 {
		t.Errorf("messages %+v, want campaign.live with the refund", p.Messages)
	}
	rec.Created = 10
	if p, err := DecideFinish("org", c, rec, now); err != nil || p.Refund != 0 || p.Credit != nil {
		t.Errorf("every contact a recipient: %+v, %v; want no refund", p, err)
	}
	rec.Created = 11
	if _, err := DecideFinish("org", c, rec, now); err == nil {
		t.Error("more recipients than were paid for finish the launch")
	}
}
