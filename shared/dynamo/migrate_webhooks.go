package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/webhook"
)

// stepWebhookSecrets names the step of `admin migrate` that seals the
// webhook signing secrets stored in clear before secrets were sealed.
const stepWebhookSecrets = "webhook-secrets"

// Sealer seals a secret for its owner (shared/sealed's Box over the
// stack's KMS key).
type Sealer interface {
	Seal(ctx context.Context, plaintext []byte, owner string) (string, error)
}

// WithSealer gives the store the sealer of the webhook-secrets migration
// step. Nothing else in the store seals: the use cases seal before they
// store.
func WithSealer(x Sealer) Option {
	return func(s *Store) { s.sealer = x }
}

// errNoSealer is a clear secret found by a migration run without a key.
var errNoSealer = errors.New("webhook secrets stored in clear need KMS_KEY_ID (the stack's SecretsKey) to be sealed")

// migrateWebhookSecrets seals org's webhook secrets stored in clear (the
// secret and prevSecret attributes of endpoints written before sealing)
// into sealedSecret and sealedPrevSecret, and removes the clear ones, one
// conditional write per endpoint. An organization has at most
// webhook.MaxEndpoints endpoints, one Query page, so the step keeps no cursor: a
// run stopped halfway leaves the rest in clear, still signing, and the
// next run seals them; a run after a complete one changes nothing.
func (s *Store) migrateWebhookSecrets(ctx context.Context, orgID string) (MigrationResult, error) {
	var r MigrationResult
	es, err := s.Endpoints(ctx, orgID)
	if err != nil {
		return r, err
	}
	for _, e := range es {
		if e.ClearSecret == "" && e.ClearPrevSecret == "" {
			continue
		}
		if s.sealer == nil {
			return r, errNoSealer
		}
		changed, err := s.sealWebhookSecrets(ctx, orgID, e)
		if err != nil {
			return r, err
		}
		if changed {
			r.Changed++
		}
	}
	return r, nil
}

// sealWebhookSecrets seals e's clear secrets, on condition that they are
// still the ones stored; when a concurrent write changed them it reads the
// endpoint again. It reports whether it wrote.
func (s *Store) sealWebhookSecrets(ctx context.Context, orgID string, e webhook.Endpoint) (bool, error) {
	owner := webhook.SecretOwner(orgID, e.ID)
	for attempt := 1; ; attempt++ {
		var set, remove, cond []string
		values := item{}
		for _, f := range []struct{ clear, attr, sealedAttr string }{
			{e.ClearSecret, "secret", "sealedSecret"},
			{e.ClearPrevSecret, "prevSecret", "sealedPrevSecret"},
		} {
			if f.clear == "" {
				continue
			}
			v, err := s.sealer.Seal(ctx, []byte(f.clear), owner)
			if err != nil {
				return false, fmt.Errorf("seal the secret of webhook %s: %w", e.ID, err)
			}
			set = append(set, fmt.Sprintf("%s = :%s", f.sealedAttr, f.sealedAttr))
			remove = append(remove, f.attr)
			cond = append(cond, fmt.Sprintf("%s = :%s", f.attr, f.attr))
			values[":"+f.sealedAttr], values[":"+f.attr] = str(v), str(f.clear)
		}
		_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: &s.table, Key: key(orgPK(orgID), webhookSK(e.ID)),
			UpdateExpression:          aws.String("SET " + strings.Join(set, ", ") + " REMOVE " + strings.Join(remove, ", ")),
			ConditionExpression:       aws.String(strings.Join(cond, " AND ")),
			ExpressionAttributeValues: values})
		if err == nil {
			return true, nil
		}
		if !isConditionFailed(err) || attempt == maxAttempts {
			return false, fmt.Errorf("seal the secrets of webhook %s: %w", e.ID, err)
		}
		e, err = s.Endpoint(ctx, orgID, e.ID)
		if errors.Is(err, webhook.ErrNoEndpoint) {
			return false, nil // deleted meanwhile
		}
		if err != nil {
			return false, err
		}
		if e.ClearSecret == "" && e.ClearPrevSecret == "" {
			return false, nil // a rotation sealed them meanwhile
		}
	}
}
