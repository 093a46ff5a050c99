package refcheck_test

import (
	"testing"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/refcheck"
)

// TestUnreferenced: what a sent campaign's recipients see, or a
// launch in progress reads, cannot be deleted; a delete checks the live
// drafts that refer to it, and no more than its transaction holds.
func TestUnreferenced(t *testing.T) {
	t.Parallel()
	ref := gifting.Ref{Kind: gifting.RefGift, ID: "g1"}
	draft := func(id string, deleted bool) refcheck.Referrer {
		return refcheck.Referrer{CampaignID: id, Name: "Q" + id, Status: "draft", Draft: true, Deleted: deleted}
	}
	live := refcheck.Referrer{CampaignID: "c9", Name: "Spring", Status: "live"}
	for _, tt := range []struct {
		name       string
		refs       []refcheck.Referrer
		wantDrafts int
		wantMsg    string
	}{
		{"nothing refers to it", nil, 0, ""},
		{"live drafts are checked, deleted ones not", []refcheck.Referrer{draft("1", false), draft("2", true)}, 1, ""},
		{"a campaign past draft refuses", []refcheck.Referrer{draft("1", false), live},
			0, `gift "g1" is used by campaign "c9" (Spring, live); it cannot be deleted`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			drafts, err := refcheck.Unreferenced(ref, tt.refs)
			if tt.wantMsg != "" {
				if gifting.ErrorCode(err) != gifting.CodeConflict || gifting.ErrorMessage(err) != tt.wantMsg {
					t.Errorf("err = %v, want CONFLICT %q", err, tt.wantMsg)
				}
				return
			}
			if err != nil || len(drafts) != tt.wantDrafts {
				t.Errorf("drafts %d, %v; want %d", len(drafts), err, tt.wantDrafts)
			}
		})
	}
	t.Run("at most MaxDraftChecks drafts", func(t *testing.T) {
		drafts := make([]refcheck.Referrer, refcheck.MaxDraftChecks)
		if err := refcheck.CheckDraftChecks(ref, drafts); err != nil {
			t.Errorf("%d drafts: %v", len(drafts), err)
		}
		err := refcheck.CheckDraftChecks(ref, append(drafts, draft("x", false)))
		if want := `91 draft campaigns refer to gift "g1"; remove it from some of them first (at most 90)`; gifting.ErrorMessage(err) != want {
			t.Errorf("91 drafts: %v, want CONFLICT %q", err, want)
		}
	})
	t.Run("a draft changed while deleting", func(t *testing.T) {
		err := refcheck.DraftChangedWhileDeleting(ref, "c1", "Q1")
		if want := `campaign "c1" (Q1) changed while gift "g1" was being deleted; try again`; gifting.ErrorCode(err) != gifting.CodeConflict || gifting.ErrorMessage(err) != want {
			t.Errorf("err = %v, want CONFLICT %q", err, want)
		}
	})
}
