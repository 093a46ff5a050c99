package audience

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// page is a page of contacts: an engineer for each 'e', an accountant for
// each 'a', an alias (an email's slot without a contact) for each '-',
// their cursors c00, c01, … in order.
func page(kinds string, last bool) ContactPage {
	p := ContactPage{Last: last}
	for i, k := range kinds {
		c := Contact{Cursor: fmt.Sprintf("c%02d", i), ContactID: "id" + itoa(i), JobTitle: "Accountant"}
		switch k {
		case 'e':
			c.JobTitle = "Software Engineer"
		case '-':
			c.ContactID = ""
		}
		p.Contacts = append(p.Contacts, c)
	}
	return p
}

// TestChunks: a slice's matches are cut into commits of at most
// MembersPerCommit members in the page's order; every contact compared is
// counted once, an alias never; the build's cursor after each commit is
// its last contact's; only the last page's last commit is final.
func TestChunks(t *testing.T) {
	engineers := NewMatcher(Criteria{JobTitles: []string{"engineer"}})
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	type chunk struct {
		members int
		cursor  string
		scanned int64
		final   bool
	}
	for _, tt := range []struct {
		name   string
		m      *Matcher
		cursor string
		page   ContactPage
		want   []chunk
	}{
		{"no criteria: one final commit, nothing read", NewMatcher(Criteria{Name: "everyone?"}), "c07", ContactPage{Last: true},
			[]chunk{{0, "c07", 0, true}}},
		{"the last page in one commit", engineers, "", page("eae-a", true), []chunk{{2, "c04", 4, true}}},
		{"a page that is not the last records how far it got", engineers, "c03", page("eaa", false), []chunk{{1, "c02", 3, false}}},
		{"a page without a match still moves the cursor", engineers, "", page("aaa", false), []chunk{{0, "c02", 3, false}}},
		{"an empty last page ends the build where it is", engineers, "c09", ContactPage{Last: true}, []chunk{{0, "c09", 0, true}}},
		{"an empty page that is not the last", engineers, "c09", ContactPage{}, []chunk{{0, "c09", 0, false}}},
		{"a page ending with an alias", engineers, "", page("ea-", true), []chunk{{1, "c02", 2, true}}},
		{"commits of at most 98 members", engineers, "", page(strings.Repeat("e", 100)+"a", true),
			[]chunk{{98, "c97", 98, false}, {2, "c100", 3, true}}},
		{"exactly 98 on a page that goes on", engineers, "", page(strings.Repeat("e", 98), false), []chunk{{98, "c97", 98, false}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Chunks("aud", tt.m, tt.cursor, tt.page, now)
			if len(got) != len(tt.want) {
				t.Fatalf("%d commits %+v, want %d", len(got), got, len(tt.want))
			}
			for i, c := range got {
				w := tt.want[i]
				if len(c.Members) != w.members || c.Cursor != w.cursor || c.Scanned != w.scanned || c.Final != w.final {
					t.Errorf("commit %d: %d members, cursor %q, scanned %d, final %v; want %+v", i, len(c.Members), c.Cursor, c.Scanned, c.Final, w)
				}
				for _, m := range c.Members {
					if m.AudienceID != "aud" || m.JobTitle != "Software Engineer" || !m.MatchedAt.Equal(now) || m.MatchedOn.JobTitle != "engineer" {
						t.Errorf("member %+v", m)
					}
				}
			}
		})
	}
}

// TestPlan: a commit adds its members and their price to the audience's
// totals, its compared contacts to contactsScanned, moves the cursor, and
// is conditioned on the cursor it was decided from; the final one makes
// the audience ready as its change record shows it, conditioned on the
// version read; a price beyond what a wallet holds is refused.
func TestPlan(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	st := State{
		Audience: Audience{ID: "aud", OrganizationID: "acme", Status: Building, TotalMatch: 10, CreditRequired: 30,
			Meta: Meta{CreditsPerContact: 3, ContactsScanned: 40}},
		Build:   Build{Cursor: "c40", Failures: 2, Due: true},
		Version: "v1",
	}
	members := make([]Member, 4)
	t.Run("a commit along the way", func(t *testing.T) {
		c, next, err := Plan(st, Chunk{Members: members, Cursor: "c60", Scanned: 20}, now)
		if err != nil {
			t.Fatal(err)
		}
		if c.From != "c40" || c.To != "c60" || c.Credits != 12 || c.Scanned != 20 || c.Final || !c.Due || !c.At.Equal(now) ||
			c.OrgID != "acme" || c.AudienceID != "aud" {
			t.Errorf("commit %+v", c)
		}
		a := next.Audience
		if a.TotalMatch != 14 || a.CreditRequired != 42 || a.Meta.ContactsScanned != 60 || a.Status != Building ||
			next.Build.Cursor != "c60" || next.Build.Failures != 0 || !a.UpdatedAt.Equal(now) {
			t.Errorf("state after %+v", next)
		}
	})
	t.Run("a commit that leaves the cursor", func(t *testing.T) {
		c, next, err := Plan(st, Chunk{Final: true}, now)
		if err != nil {
			t.Fatal(err)
		}
		if c.From != "c40" || c.To != "c40" || next.Build.Cursor != "c40" {
			t.Errorf("commit from %q to %q, cursor after %q; want it left at c40", c.From, c.To, next.Build.Cursor)
		}
	})
	t.Run("the final commit", func(t *testing.T) {
		c, next, err := Plan(st, Chunk{Members: members, Cursor: "c70", Scanned: 30, Final: true}, now)
		if err != nil {
			t.Fatal(err)
		}
		r := c.Ready
		if !c.Final || c.Version != "v1" || r.Status != Ready || r.TotalMatch != 14 || r.CreditRequired != 42 ||
			r.Meta.BuildFinishedAt == nil || !r.Meta.BuildFinishedAt.Equal(now) || !r.UpdatedAt.Equal(now) || next.Audience.Status != Ready {
			t.Errorf("final commit %+v", c)
		}
	})
	t.Run("a price beyond any wallet", func(t *testing.T) {
		dear := st
		dear.Audience.Meta.CreditsPerContact = 1 << 62
		_, _, err := Plan(dear, Chunk{Members: members}, now)
		if gifting.ErrorCode(err) != gifting.CodeInsufficientCredits {
			t.Errorf("Plan = %v; want INSUFFICIENT_CREDITS", err)
		}
	})
}

// TestOvertaken: a run of a slice stops when the build, read again before
// its final commit, has ended or another run moved its cursor; an edit
// alone (a new version) does not stop it.
func TestOvertaken(t *testing.T) {
	was := State{Audience: Audience{Status: Building}, Build: Build{Cursor: "c10"}, Version: "v1"}
	for _, tt := range []struct {
		name string
		now  State
		want bool
	}{
		{"unchanged", was, false},
		{"edited", State{Audience: Audience{Status: Building, Name: "new"}, Build: Build{Cursor: "c10"}, Version: "v2"}, false},
		{"cursor moved", State{Audience: Audience{Status: Building}, Build: Build{Cursor: "c20"}}, true},
		{"ready", State{Audience: Audience{Status: Ready}, Build: Build{Cursor: "c10"}}, true},
		{"failed", State{Audience: Audience{Status: Failed}, Build: Build{Cursor: "c10"}}, true},
	} {
		if got := Overtaken(was, tt.now); got != tt.want {
			t.Errorf("%s: Overtaken = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestNextStep: a building audience clears a rebuild's members before it
// matches; one that is not building has nothing left to do.
func TestNextStep(t *testing.T) {
	for _, tt := range []struct {
		st   State
		want Step
	}{
		{State{Audience: Audience{Status: Building}}, StepMatching},
		{State{Audience: Audience{Status: Building}, Build: Build{Clearing: true}}, StepClearing},
		{State{Audience: Audience{Status: Ready}, Build: Build{Clearing: true}}, StepEnded},
		{State{Audience: Audience{Status: Failed}}, StepEnded},
	} {
		if got := NextStep(tt.st); got != tt.want {
			t.Errorf("NextStep(%+v) = %v, want %v", tt.st, got, tt.want)
		}
	}
}
