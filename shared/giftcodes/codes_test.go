package giftcodes_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/giftcodes"
)

func TestCheck(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	long := make([]byte, 201)
	for i := range long {
		long[i] = 'A'
	}
	for _, tt := range []struct {
		name  string
		code  giftcodes.Code
		field string
	}{
		{"a plain code", giftcodes.Code{Code: "  ABCD-1234 "}, ""},
		{"code, PIN, https URL, expiry ahead", giftcodes.Code{Code: "X1", PIN: "12", URL: "https://r.example.com/x", ExpiresAt: &future}, ""},
		{"blank", giftcodes.Code{Code: "   "}, "code"},
		{"201 characters", giftcodes.Code{Code: string(long)}, "code"},
		{"a line break", giftcodes.Code{Code: "AB\nCD"}, "code"},
		{"an http URL", giftcodes.Code{Code: "AB", URL: "http://r.example.com"}, "url"},
		{"a URL that is not one", giftcodes.Code{Code: "AB", URL: "https://"}, "url"},
		{"expired", giftcodes.Code{Code: "AB", ExpiresAt: &past}, "expiresAt"},
		{"expiring now", giftcodes.Code{Code: "AB", ExpiresAt: &now}, "expiresAt"},
	} {
		c := tt.code
		p := giftcodes.Check(&c, now)
		if (tt.field == "") != (p == nil) || (tt.field != "" && p[tt.field] == "") {
			t.Errorf("%s: problems %v, want %q named", tt.name, p, tt.field)
		}
	}
	c := giftcodes.Code{Code: "  ABCD-1234 \t"}
	giftcodes.Check(&c, now)
	if c.Code != "ABCD-1234" {
		t.Errorf("checked code %q, want it trimmed", c.Code)
	}
}

func TestIDAndMask(t *testing.T) {
	k1, k2 := []byte("0123456789abcdef0123456789abcdef"), []byte("fedcba9876543210fedcba9876543210")
	a, b := giftcodes.ID(k1, "ABCD-1234"), giftcodes.ID(k1, "ABCD-1235")
	if a == b || len(a) != 32 {
		t.Errorf("ids %q and %q: want two different 32-character ids", a, b)
	}
	if giftcodes.ID(k1, "ABCD-1234") != a {
		t.Error("the same code under the same key gave another id")
	}
	if giftcodes.ID(k2, "ABCD-1234") == a {
		t.Error("the same code under another pool's key gave the same id")
	}
	for code, want := range map[string]string{"ABCD-1234": "••••1234", "1234": "••••", "ab": "••••", "ÉÈÊËÌ": "••••ÈÊËÌ"} {
		if got := giftcodes.Last4(code); got != want {
			t.Errorf("Last4(%q) = %q, want %q", code, got, want)
		}
	}
}
