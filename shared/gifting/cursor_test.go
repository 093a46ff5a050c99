package gifting

import (
	"encoding/base64"
	"strings"
	"testing"
)

// TestCursorReadsBackOnlyUnderItsBinding: a cursor gives its position back
// under the binding it was made for, and nothing under another binding,
// altered, cut, or not base64url at all.
func TestCursorReadsBackOnlyUnderItsBinding(t *testing.T) {
	b := Binding("acme", "contacts", "")
	pos := "01LIST#0001\nCONTACT#01ABC"
	c := CursorAt(pos, b)
	if strings.ContainsAny(c, "+/=") {
		t.Errorf("cursor %q is not URL-safe base64 without padding", c)
	}
	if got, ok := ResumeAt(c, b); !ok || got != pos {
		t.Fatalf("ResumeAt = %q, %v; want the position back", got, ok)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)-1] ^= 1
	for name, bad := range map[string][2]string{
		"another organization": {c, Binding("globex", "contacts", "")},
		"another list":         {c, Binding("acme", "contacts", "01LIST")},
		"a position altered":   {base64.RawURLEncoding.EncodeToString(flipped), b},
		"cut":                  {c[:len(c)-3], b},
		"not base64url":        {"not a cursor!", b},
		"empty":                {"", b},
		"too long":             {strings.Repeat("A", maxCursor+1), b},
	} {
		if got, ok := ResumeAt(bad[0], bad[1]); ok {
			t.Errorf("%s: ResumeAt = %q, true; want false", name, got)
		}
	}
	if CursorAt("", b) != "" {
		t.Error("the last page's cursor is not empty")
	}
}

// TestBindingKeepsPartsApart: parts that join to the same text are still
// different bindings.
func TestBindingKeepsPartsApart(t *testing.T) {
	pairs := [][2][]string{
		{{"ab", "c"}, {"a", "bc"}},
		{{"a\x00", "b"}, {"a", "\x00b"}},
		{{"a", ""}, {"a"}},
	}
	for _, p := range pairs {
		if Binding(p[0]...) == Binding(p[1]...) {
			t.Errorf("Binding(%q) = Binding(%q)", p[0], p[1])
		}
	}
}
