package gifting

import (
	"testing"
	"time"
)

// TestIDTime: an id holds the millisecond it was made at; FirstIDAt sorts
// before every id of its millisecond and after every id of the one before;
// an id of another form holds no time.
func TestIDTime(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 30, 0, 123_456_789, time.UTC)
	id := NewIDAt(at)
	if got, ok := IDTime(id); !ok || !got.Equal(at.Truncate(time.Millisecond)) {
		t.Errorf("IDTime(%s) = %v, %v; want %v", id, got, ok, at.Truncate(time.Millisecond))
	}
	if first := FirstIDAt(at); !(first <= id && NewIDAt(at.Add(-time.Millisecond)) < first) {
		t.Errorf("FirstIDAt(%v) = %s: not between the ids of the millisecond before (%s) and of its own (%s)",
			at, first, NewIDAt(at.Add(-time.Millisecond)), id)
	}
	for _, other := range []string{"", "c1", "ikpwwnq5efngoxhsizxc7p7pnl", "01m8esw83hmwaj7662sfxf7c9r"} {
		if _, ok := IDTime(other); ok {
			t.Errorf("IDTime(%q) holds a time", other)
		}
	}
}
