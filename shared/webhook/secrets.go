package webhook

import (
	"context"
	"errors"
	"time"

	"github.com/giftcampaign/service/shared/sealed"
)

// errNoSecretsKey is a secret to seal or open in a process given no key
// (KMS_KEY_ID unset, or a function not wired with app.WithSecrets): a
// deployment error, never a reason to store a secret in clear.
var errNoSecretsKey = errors.New("no key to seal or open webhook secrets: KMS_KEY_ID is not set or this function has no sealer")

// seal seals a signing secret for endpoint webhookID of orgID.
func (a *App) seal(ctx context.Context, orgID, webhookID, secret string) (string, error) {
	if a.cfg.Sealer == nil {
		return "", errNoSecretsKey
	}
	return a.cfg.Sealer.Seal(ctx, []byte(secret), SecretOwner(orgID, webhookID))
}

// signingSecrets opens the secrets that sign a message to e sent at now
// (StoredSecrets). A secret stored in clear (written before sealing) is
// used as it is. A previous secret that never opens is left out, so that
// rotating an endpoint whose secret cannot be read mends it at once.
//
// Errors: sealed.ErrUnopenable (wrapped) for a current secret that never
// opens for this endpoint, else KMS's.
func (a *App) signingSecrets(ctx context.Context, e Endpoint, now time.Time) ([]string, error) {
	stored := e.StoredSecrets(now)
	out := make([]string, 0, len(stored))
	for i, v := range stored {
		if !sealed.IsSealed(v) {
			out = append(out, v)
			continue
		}
		if a.cfg.Sealer == nil {
			return nil, errNoSecretsKey
		}
		plain, err := a.cfg.Sealer.Open(ctx, v, SecretOwner(e.OrgID, e.ID))
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
