package dynamo

import (
	"cmp"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNameKeysOrderAsNamesThenCreation (pure): for names holding ASCII,
// letters beyond it, control characters and prefixes of each other, the
// Sort index's byte order of two keys is the order the Slim partition's
// sort gave: the lower-cased last names, then the creation keys. A name
// longer than any the API accepts still gives a key that fits.
func TestNameKeysOrderAsNamesThenCreation(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "b", "z", "A", " ", "-", "'", "é", "ß", "Ö", "ø", "日", "\t", "\x01", "\x1e", "\x00", "~", "\u00a0", "😀"}
	rng := rand.New(rand.NewPCG(30, 11))
	word := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	const camp = "c1"
	created := []string{"RCPT#c1#01AAAA", "RCPT#c1#01AAAB", "RCPT#c1#01ZZZZ"}
	for range 20_000 {
		a, b := word(), word()
		if rng.IntN(4) == 0 {
			b = a + word() // one a prefix of the other
		}
		la, lb := created[rng.IntN(3)], created[rng.IntN(3)]
		srtA := strings.ToLower(strings.Join([]string{"first", a, "e@x", "co"}, sortSep))
		srtB := strings.ToLower(strings.Join([]string{"first", b, "e@x", "co"}, sortSep))
		want := cmp.Or(cmp.Compare(strings.ToLower(a), strings.ToLower(b)), cmp.Compare(la, lb))
		if strings.ContainsRune(a+b, 0x1f) {
			continue // the separator of srt itself
		}
		got := cmp.Compare(recipientNameSSK(camp, srtA, la), recipientNameSSK(camp, srtB, lb))
		if got != want {
			t.Fatalf("keys of %q (%s) and %q (%s) compare %d; the names and creation %d", a, la, b, lb, got, want)
		}
	}
	long := strings.Repeat("日", 400)
	if k := recipientNameSSK(camp, "x"+sortSep+long, "RCPT#c1#01ARZ3NDEKTSV4RRFFQ69G5FAV"); len(k) > 1024 {
		t.Errorf("a key of %d bytes for a name of %d bytes: over the index's 1,024", len(k), len(long))
	}
}
