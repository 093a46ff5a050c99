package service

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/sealed"
)

// Secrets seals the secrets the service stores and opens them again
// (shared/sealed's Box over the stack's KMS key). owner binds a sealed
// value to what it belongs to: it opens only for the same owner.
type Secrets interface {
	Seal(ctx context.Context, plaintext []byte, owner string) (string, error)
	Open(ctx context.Context, sealed, owner string) ([]byte, error)
}

// errNoSecretsKey is a webhook secret to seal or open in a process given
// no key (KMS_KEY_ID unset, or a function not wired with app.WithSecrets):
// a deployment error, never a reason to store a secret in clear.
var errNoSecretsKey = errors.New("no key to seal or open webhook secrets: KMS_KEY_ID is not set or this function has no sealer")

// sealSecret seals a webhook's signing secret for that webhook.
func (s *Service) sealSecret(ctx context.Context, orgID, webhookID, secret string) (string, error) {
	if s.cfg.Secrets == nil {
		return "", errNoSecretsKey
	}
	return s.cfg.Secrets.Seal(ctx, []byte(secret), gifting.WebhookSecretOwner(orgID, webhookID))
}

// signingSecrets opens the secrets that sign a message to e sent at now.
// A secret stored in clear (written before sealing) is used as it is. A
// previous secret that never opens is left out, so that rotating an
// endpoint whose secret cannot be read mends it at once.
//
// Errors: sealed.ErrUnopenable (wrapped) for a current secret that never
// opens for this endpoint, else KMS's.
func (s *Service) signingSecrets(ctx context.Context, orgID string, e gifting.WebhookEndpoint, now time.Time) ([]string, error) {
	stored := e.StoredSecrets(now)
	out := make([]string, 0, len(stored))
	for i, v := range stored {
		if !sealed.IsSealed(v) {
			out = append(out, v)
			continue
		}
		if s.cfg.Secrets == nil {
			return nil, errNoSecretsKey
		}
		plain, err := s.cfg.Secrets.Open(ctx, v, gifting.WebhookSecretOwner(orgID, e.WebhookID))
		if i > 0 && errors.Is(err, sealed.ErrUnopenable) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, string(plain))
	}
	return out, nil
}
