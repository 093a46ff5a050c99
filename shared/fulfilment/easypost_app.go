package fulfilment

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/giftcampaign/service/shared/gifting"
)

// Sealer seals the secrets the slice stores and opens them again
// (shared/sealed's Box over the stack's KMS key); owner binds a sealed
// value to what it belongs to, so it opens only for the same owner.
type Sealer interface {
	Seal(ctx context.Context, plaintext []byte, owner string) (string, error)
	Open(ctx context.Context, sealed, owner string) ([]byte, error)
}

// MaxSecretLength bounds an EasyPost webhook secret. EasyPost lets the
// user choose it; 256 characters is far more than a generated one.
const MaxSecretLength = 256

// EasyPost is the use cases of the EasyPost integration: keeping the
// organization's webhook secret, and reading a signed tracker event.
type EasyPost struct {
	secrets Secrets
	sealer  Sealer
	now     func() time.Time
}

// NewEasyPost returns the EasyPost use cases over secrets, sealing with
// sealer (nil: no key, so no secret can be set and every event is
// refused).
func NewEasyPost(secrets Secrets, sealer Sealer, now func() time.Time) *EasyPost {
	return &EasyPost{secrets: secrets, sealer: sealer, now: now}
}

// secretOwner binds a sealed EasyPost secret to its organization.
func secretOwner(orgID string) string { return orgID + "/integrations/easypost" }

// CheckSecret refuses a secret that cannot be EasyPost's: empty, longer
// than MaxSecretLength, not UTF-8, or with control characters (which a
// copy and paste adds by mistake, and which would then never verify).
func CheckSecret(secret string) error {
	var p gifting.Problems
	switch {
	case secret == "":
		p.Add("webhookSecret", "is required: the secret you gave EasyPost for this webhook")
	case !utf8.ValidString(secret):
		p.Add("webhookSecret", "must be UTF-8 text")
	case utf8.RuneCountInString(secret) > MaxSecretLength:
		p.Add("webhookSecret", fmt.Sprintf("must be at most %d characters", MaxSecretLength))
	default:
		for _, r := range secret {
			if unicode.IsControl(r) {
				p.Add("webhookSecret", "must not contain control characters or line breaks")
				break
			}
		}
	}
	return p.Err()
}

// SetSecret seals secret (CheckSecret) for orgID and stores it,
// replacing the one before: events signed with the old secret are
// refused from then on.
func (e *EasyPost) SetSecret(ctx context.Context, orgID, secret string) error {
	if err := CheckSecret(secret); err != nil {
		return err
	}
	if e.sealer == nil {
		return gifting.Unavailable(errors.New("no key to seal secrets with (KMS_KEY_ID is not set)"))
	}
	sealed, err := e.sealer.Seal(ctx, []byte(secret), secretOwner(orgID))
	if err != nil {
		return fmt.Errorf("seal the EasyPost secret: %w", err)
	}
	return e.secrets.SetEasyPostSecret(ctx, orgID, sealed, e.now())
}

// Integration says whether orgID has an EasyPost webhook secret and when
// it was set (the zero time when not): never the secret itself.
func (e *EasyPost) Integration(ctx context.Context, orgID string) (set bool, updatedAt time.Time, err error) {
	st, err := e.secrets.EasyPostSecret(ctx, orgID)
	if err != nil || st.Sealed == "" {
		return false, time.Time{}, err
	}
	return true, st.UpdatedAt, nil
}

// Verified reads a tracker event sent to orgID's events URL: the body
// must be signed with orgID's secret (VerifySignature: UNAUTHORIZED
// otherwise, and alike for an organization with no secret or none at
// all), then decoded (DecodeEvent). An unsigned request is refused before
// anything is read.
func (e *EasyPost) Verified(ctx context.Context, orgID string, body []byte, h Headers) (TrackerUpdate, error) {
	if _, err := signatureOf(h); err != nil {
		return TrackerUpdate{}, err
	}
	secret, err := e.secret(ctx, orgID)
	if err != nil {
		return TrackerUpdate{}, err
	}
	if err := VerifySignature(body, h, secret); err != nil {
		return TrackerUpdate{}, err
	}
	return DecodeEvent(body)
}

// secret opens orgID's secret; "" when none is set or there is no key to
// open it with.
func (e *EasyPost) secret(ctx context.Context, orgID string) (string, error) {
	st, err := e.secrets.EasyPostSecret(ctx, orgID)
	if err != nil || st.Sealed == "" || e.sealer == nil {
		return "", err
	}
	clear, err := e.sealer.Open(ctx, st.Sealed, secretOwner(orgID))
	if err != nil {
		return "", fmt.Errorf("open the EasyPost secret: %w", err)
	}
	return string(clear), nil
}
