package fulfilment

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"golang.org/x/text/unicode/norm"

	"github.com/giftcampaign/service/shared/gifting"
)

// SignatureHeader is the header in which EasyPost signs a webhook event.
const SignatureHeader = "X-Hmac-Signature"

// signaturePrefix starts the header's value; the hex digest follows.
const signaturePrefix = "hmac-sha256-hex="

// Headers is what VerifySignature reads of a request's headers
// (net/http's Header has it).
type Headers interface {
	Values(key string) []string
}

// sign is the X-Hmac-Signature value EasyPost sends with body under
// secret: "hmac-sha256-hex=" and the lower-case hex HMAC-SHA256 of the
// raw body, keyed with the UTF-8 bytes of the secret normalized to NFKD
// (as EasyPost's client libraries compute it: a secret typed with
// composed or compatibility characters signs as its decomposed form).
func sign(body []byte, secret string) string {
	mac := hmac.New(sha256.New, []byte(norm.NFKD.String(secret)))
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// VerifySignature checks that body was signed by EasyPost with the
// organization's webhook secret: the one X-Hmac-Signature header must
// equal sign(body, secret), compared in constant time, byte for byte,
// exactly as EasyPost's libraries compare it. No header, more than one,
// a wrong signature, or no secret stored (empty) is UNAUTHORIZED: the
// event must change nothing. A wrong signature and no secret read the
// same, so the events URL tells no one which organizations exist or use
// EasyPost. The messages name no secret and no signature.
func VerifySignature(body []byte, h Headers, secret string) error {
	got, err := signatureOf(h)
	if err != nil {
		return err
	}
	if secret == "" || !hmac.Equal([]byte(sign(body, secret)), []byte(got)) {
		return gifting.Errorf(gifting.CodeUnauthorized,
			"the event's %s does not match this organization's EasyPost webhook secret (PUT /api/campaigns/integrations/easypost sets it)", SignatureHeader)
	}
	return nil
}

// signatureOf is the one X-Hmac-Signature value of h; UNAUTHORIZED when
// there is none, or more than one.
func signatureOf(h Headers) (string, error) {
	values := h.Values(SignatureHeader)
	switch {
	case len(values) == 0 || values[0] == "":
		return "", gifting.Errorf(gifting.CodeUnauthorized, "the event is not signed: EasyPost signs events in the %s header when the webhook has a secret", SignatureHeader)
	case len(values) > 1:
		return "", gifting.Errorf(gifting.CodeUnauthorized, "the event carries %d %s headers; EasyPost sends one", len(values), SignatureHeader)
	}
	return values[0], nil
}
