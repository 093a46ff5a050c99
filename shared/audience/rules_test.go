package audience

import (
	"strings"
	"testing"
	"time"

	contacts "github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// TestBusy: an audience cannot be deleted or rebuilt while it builds or
// while a copy into a contact list runs; the CONFLICT says which and what
// to wait for.
func TestBusy(t *testing.T) {
	for _, tt := range []struct {
		name string
		a    Audience
		want string // in the message; "" for no error
	}{
		{"ready", Audience{ID: "a1", Status: Ready}, ""},
		{"failed", Audience{ID: "a1", Status: Failed}, ""},
		{"copied before", Audience{ID: "a1", Status: Ready, Meta: Meta{ContactLists: map[string]ListProgress{"l1": {Status: ListReady}}}}, ""},
		{"building", Audience{ID: "a1", Status: Building}, "is being built; it can be deleted once its status is ready or failed"},
		{"copying", Audience{ID: "a1", Status: Ready, Meta: Meta{ContactLists: map[string]ListProgress{"l1": {Status: ListAdding}}}},
			`is being copied into contact list "l1"; it can be deleted once that is done`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Busy(tt.a, "deleted")
			if tt.want == "" {
				if err != nil {
					t.Errorf("Busy = %v", err)
				}
				return
			}
			if gifting.ErrorCode(err) != gifting.CodeConflict || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Busy = %v; want CONFLICT saying %q", err, tt.want)
			}
		})
	}
}

// TestNotReady: copying an audience that is not ready is a CONFLICT that
// says to wait for a build, or why it cannot be copied.
func TestNotReady(t *testing.T) {
	if err := NotReady(Audience{ID: "a1", Status: Building}); gifting.ErrorCode(err) != gifting.CodeConflict ||
		!strings.Contains(err.Error(), "still being built; try again when its status is ready") {
		t.Errorf("building: %v", err)
	}
	if err := NotReady(Audience{ID: "a1", Status: Failed}); gifting.ErrorCode(err) != gifting.CodeConflict ||
		!strings.Contains(err.Error(), "is failed; only a ready audience can become a contact list") {
		t.Errorf("failed: %v", err)
	}
	if err := PersonaDeleted(Audience{ID: "a1", ICPID: "p1"}); gifting.ErrorCode(err) != gifting.CodeConflict ||
		!strings.Contains(err.Error(), `its ICP persona "p1" was deleted`) {
		t.Errorf("persona deleted: %v", err)
	}
}

// TestAudienceStates: a new audience starts building at zero; a rebuild
// starts over from zero, its last end and error gone; a build ends ready,
// or failed with its reason.
func TestAudienceStates(t *testing.T) {
	t0, t1 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	a := New(Audience{Name: "Eng", ICPID: "p1", TotalMatch: 9, Status: Ready}, "acme", "u1", "id1", PricedAt(3), t0)
	if a.ID != "id1" || a.OrganizationID != "acme" || a.CreatedBy != "u1" || a.Status != Building || a.TotalMatch != 0 ||
		a.Meta.CreditsPerContact != 3 || !a.Meta.BuildStartedAt.Equal(t0) || a.Meta.ContactLists == nil || !a.CreatedAt.Equal(t0) {
		t.Errorf("New = %+v", a)
	}
	done := Built(a, t0, "")
	if done.Status != Ready || done.Meta.BuildFinishedAt == nil || !done.UpdatedAt.Equal(t0) || done.Meta.Error != "" {
		t.Errorf("Built = %+v", done)
	}
	failed := Built(a, t0, ReasonPersonaGone)
	if failed.Status != Failed || failed.Meta.Error != ReasonPersonaGone {
		t.Errorf("Built failed = %+v", failed)
	}
	failed.TotalMatch, failed.CreditRequired, failed.Meta.ContactsScanned = 5, 15, 50
	again := Rebuilt(failed, t1)
	if again.Status != Building || again.TotalMatch != 0 || again.CreditRequired != 0 || again.Meta.ContactsScanned != 0 ||
		again.Meta.BuildFinishedAt != nil || again.Meta.Error != "" || !again.Meta.BuildStartedAt.Equal(t1) || !again.UpdatedAt.Equal(t1) ||
		again.Meta.CreditsPerContact != 3 {
		t.Errorf("Rebuilt = %+v", again)
	}
	for failures, want := range []bool{false, false, false, true, true} {
		if GaveUp(failures) != want {
			t.Errorf("GaveUp(%d) = %v", failures, !want)
		}
	}
}

// TestCopy: a copy's list is named after the audience unless named; each
// slice records what it added and where it got, the last one ending it.
func TestCopy(t *testing.T) {
	a := Audience{Name: "Engineers", Meta: Meta{ContactLists: map[string]ListProgress{"l1": CopyStarted(), "l2": {Status: ListReady}}}}
	if n, d := ListNames(a, " ", ""); n != "Engineers" || d != "Contacts of audience list Engineers" {
		t.Errorf("ListNames defaults = %q, %q", n, d)
	}
	if n, d := ListNames(a, "Mine", "Notes"); n != "Mine" || d != "Notes" {
		t.Errorf("ListNames = %q, %q", n, d)
	}
	if p, ok := Copying(a, "l1"); !ok || p.Status != ListAdding {
		t.Errorf("l1 copying = %+v, %v", p, ok)
	}
	if _, ok := Copying(a, "l2"); ok {
		t.Error("a finished copy is still copying")
	}
	if _, ok := Copying(a, "l3"); ok {
		t.Error("an unknown list is copying")
	}
	added := contacts.BulkResult{Added: 3, Unchanged: 1, Failed: 1}
	s := NextCopy("l1", ListProgress{Status: ListAdding, Cursor: "c2"}, []string{"c3", "c4", "c5", "c6", "c7"}, added, false)
	if s.ListID != "l1" || s.From != "c2" || s.To != "c7" || s.Added != 3 || s.Unchanged != 1 || s.Failed != 1 || s.Last {
		t.Errorf("NextCopy = %+v", s)
	}
	if s := NextCopy("l1", ListProgress{Status: ListAdding}, nil, contacts.BulkResult{}, true); !s.Last || s.From != "" || s.To != "" {
		t.Errorf("last NextCopy = %+v", s)
	}
}
