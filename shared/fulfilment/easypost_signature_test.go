package fulfilment_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
)

// easyPostSign signs body as EasyPost documents it, computed here on its
// own: HMAC-SHA256 of the raw body keyed with the secret's UTF-8 bytes
// (the caller passes the secret already in NFKD form), hex, after
// "hmac-sha256-hex=".
func easyPostSign(body []byte, nfkdSecret string) string {
	mac := hmac.New(sha256.New, []byte(nfkdSecret))
	mac.Write(body)
	return "hmac-sha256-hex=" + hex.EncodeToString(mac.Sum(nil))
}

func signed(sig ...string) http.Header {
	h := http.Header{}
	for _, s := range sig {
		h.Add("X-Hmac-Signature", s)
	}
	return h
}

// TestVerifySignature: an event signed as EasyPost signs it passes; a
// wrong signature, a changed body, a missing or doubled header, an
// organization with no secret are UNAUTHORIZED, naming no secret.
func TestVerifySignature(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"evt_1","object":"Event","description":"tracker.updated","result":{"object":"Tracker"}}`)
	const secret = "whsec-A1B2C3"
	good := easyPostSign(body, secret)
	if err := fulfilment.VerifySignature(body, signed(good), secret); err != nil {
		t.Fatalf("EasyPost's signature refused: %v", err)
	}
	// The header's name is case-insensitive in HTTP; net/http
	// canonicalizes it when it reads a request.
	h := http.Header{}
	h.Set("x-hmac-signature", good)
	if err := fulfilment.VerifySignature(body, h, secret); err != nil {
		t.Errorf("a lower-case header name refused: %v", err)
	}
	for name, tt := range map[string]struct {
		body   []byte
		h      http.Header
		secret string
	}{
		"a wrong signature":                {body, signed(easyPostSign(body, "another secret")), secret},
		"the bare hex, without its prefix": {body, signed(good[len("hmac-sha256-hex="):]), secret},
		"upper-case hex":                   {body, signed("hmac-sha256-hex=" + strings.ToUpper(good[len("hmac-sha256-hex="):])), secret},
		"a changed body":                   {append([]byte(" "), body...), signed(good), secret},
		"no header":                        {body, http.Header{}, secret},
		"an empty header":                  {body, signed(""), secret},
		"two headers":                      {body, signed(good, good), secret},
		"no secret set":                    {body, signed(easyPostSign(body, "")), ""},
	} {
		err := fulfilment.VerifySignature(tt.body, tt.h, tt.secret)
		wantError(t, err, gifting.CodeUnauthorized, "")
		if msg := gifting.ErrorMessage(err); strings.Contains(msg, secret) || strings.Contains(msg, good[20:]) {
			t.Errorf("%s: the message %q holds the secret or the signature", name, msg)
		}
	}
}

// TestVerifySignatureNormalizesTheSecret: a secret typed with composed or
// compatibility characters signs as its NFKD form, as EasyPost's
// libraries key the HMAC; keying with the secret's bytes as typed is
// refused.
func TestVerifySignatureNormalizesTheSecret(t *testing.T) {
	t.Parallel()
	body := []byte(`{"description":"tracker.created"}`)
	for _, tt := range []struct{ typed, nfkd string }{
		{"s\u00e9cret", "se\u0301cret"},                // é decomposes to e + combining acute
		{"\ufb01le\u2460", "file1"},                    // the ﬁ ligature and ① are compatibility forms
		{"\u00c5ngstr\u00f6m", "A\u030angstro\u0308m"}, // Å and ö
	} {
		if tt.typed == tt.nfkd {
			t.Fatalf("%q is its own NFKD form: the case proves nothing", tt.typed)
		}
		if err := fulfilment.VerifySignature(body, signed(easyPostSign(body, tt.nfkd)), tt.typed); err != nil {
			t.Errorf("secret %q: EasyPost's signature (keyed with %q) refused: %v", tt.typed, tt.nfkd, err)
		}
		err := fulfilment.VerifySignature(body, signed(easyPostSign(body, tt.typed)), tt.typed)
		wantError(t, err, gifting.CodeUnauthorized, "")
	}
}
