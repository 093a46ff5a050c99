package gifting

import (
	"testing"
	"time"
)

// TestContactListPatch: a patch applies what it sends and moves updatedAt,
// and a refused patch leaves the list as it was. (The gift and template
// patches are the catalog slice's: shared/catalog/patch_test.go.)
func TestContactListPatch(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	then := now.Add(-time.Hour)
	str := func(s string) *string { return &s }
	for _, tt := range []struct {
		name  string
		patch ContactListPatch
		field string
	}{
		{"description changes", ContactListPatch{Description: str("new")}, ""},
		{"blank name", ContactListPatch{Name: str(" ")}, "name"},
	} {
		t.Run("list/"+tt.name, func(t *testing.T) {
			l := ContactList{Name: "L", Description: "old", UpdatedAt: then}
			checkPatch(t, tt.patch.Apply(&l, now), tt.field)
			if tt.field == "" && (l.Name != "L" || l.Description != "new" || !l.UpdatedAt.Equal(now)) {
				t.Errorf("after patch = %+v", l)
			}
			if tt.field != "" && (l.Name != "L" || !l.UpdatedAt.Equal(then)) {
				t.Errorf("a refused patch changed the list: %+v", l)
			}
		})
	}
}

// checkPatch checks that err names field, or is nil when field is "".
func checkPatch(t *testing.T, err error, field string) {
	t.Helper()
	if field == "" {
		if err != nil {
			t.Fatalf("Apply = %v, want nil", err)
		}
		return
	}
	e, ok := err.(*Error)
	if !ok || e.Code != CodeValidation || e.Details[field] == "" {
		t.Fatalf("Apply = %v; want VALIDATION_FAILED naming %s", err, field)
	}
}
