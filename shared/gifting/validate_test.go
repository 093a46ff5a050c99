package gifting

import "testing"

// TestValidURL holds ValidURL to the API document's HttpURL: what the
// document refuses is refused here too (a fuzzed event was once stored
// with a comma in its URL's host).
func TestValidURL(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]bool{
		"https://www.example.com":                  true,
		"http://example.com:8080/path?q=1#top":     true,
		"https://example.com/caf%C3%A9/ümlaut":     true,
		"https://www.saastran,ual.com":             false,
		"https://user@example.com/":                false,
		"https://example.com/a b":                  false,
		"https://example.com/100%":                 false,
		"https://example.com:123456/":              false,
		"ftp://example.com/":                       false,
		"https://":                                 false,
		"example.com":                              false,
		"https://[::1]/":                           false,
		"https://example.com/\x7f":                 false,
		"https://example.com/path?next=%2Fhome%2F": true,
	} {
		if got := ValidURL(url); got != want {
			t.Errorf("ValidURL(%q) = %v, want %v", url, got, want)
		}
	}
}
