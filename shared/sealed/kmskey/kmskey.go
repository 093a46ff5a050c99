// Package kmskey is the AWS KMS key provider of shared/sealed: data keys
// generated and decrypted under one symmetric KMS key (the stack's
// SecretsKey; the local KMS emulator's key under make run and make test).
package kmskey

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/giftcampaign/service/shared/sealed"
)

// Client is the part of the KMS client the provider calls.
type Client interface {
	GenerateDataKey(ctx context.Context, in *kms.GenerateDataKeyInput, optFns ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error)
	Decrypt(ctx context.Context, in *kms.DecryptInput, optFns ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// EncryptionContext is the KMS encryption context of every data key: KMS
// binds it to the encrypted key (Decrypt must name it again), CloudTrail
// shows it beside each call, and the key policy allows the functions'
// calls only with it.
var EncryptionContext = map[string]string{"purpose": "gift-campaigns-sealed-secrets"}

// CodesContext is the encryption context of the data keys that seal
// digital gifts' codes: apart from EncryptionContext, so the key policy
// lets only the functions that upload or reveal codes use it (the
// functions that open webhook secrets cannot open a code).
var CodesContext = map[string]string{"purpose": "gift-campaigns-gift-codes"}

// SuppressionContext is the encryption context of the data key that seals
// the stack's suppression key (the HMAC key of suppressed addresses,
// shared/dynamo's suppression_key.go): apart from the others, so the
// functions that look addresses up open that key and nothing else.
var SuppressionContext = map[string]string{"purpose": "gift-campaigns-suppression-key"}

// Provider makes data keys under one KMS key, in one encryption context.
type Provider struct {
	client  Client
	keyID   string
	context map[string]string
}

var _ sealed.KeyProvider = (*Provider)(nil)

// New returns the provider of keyID (a key id, key ARN or alias) through
// client.
func New(client Client, keyID string) *Provider {
	return &Provider{client: client, keyID: keyID, context: EncryptionContext}
}

// NewCodes returns the provider of keyID for gift codes (CodesContext).
func NewCodes(client Client, keyID string) *Provider {
	return &Provider{client: client, keyID: keyID, context: CodesContext}
}

// NewSuppression returns the provider of keyID for the suppression key
// (SuppressionContext).
func NewSuppression(client Client, keyID string) *Provider {
	return &Provider{client: client, keyID: keyID, context: SuppressionContext}
}

// GenerateDataKey asks KMS for a new AES-256 data key.
func (p *Provider) GenerateDataKey(ctx context.Context) (plaintext, encrypted []byte, err error) {
	out, err := p.client.GenerateDataKey(ctx, &kms.GenerateDataKeyInput{KeyId: aws.String(p.keyID),
		KeySpec: types.DataKeySpecAes256, EncryptionContext: p.context})
	if err != nil {
		return nil, nil, fmt.Errorf("kms GenerateDataKey: %w", err)
	}
	return out.Plaintext, out.CiphertextBlob, nil
}

// Decrypt asks KMS for the data key that encrypted holds. Naming the key
// makes KMS refuse a data key of any other key, which a tampered item
// could otherwise hold. A ciphertext or context KMS rejects is
// sealed.ErrUnopenable.
func (p *Provider) Decrypt(ctx context.Context, encrypted []byte) ([]byte, error) {
	out, err := p.client.Decrypt(ctx, &kms.DecryptInput{KeyId: aws.String(p.keyID), CiphertextBlob: encrypted,
		EncryptionContext: p.context})
	var invalid *types.InvalidCiphertextException
	var wrongKey *types.IncorrectKeyException
	if errors.As(err, &invalid) || errors.As(err, &wrongKey) {
		return nil, fmt.Errorf("%w: kms Decrypt: %v", sealed.ErrUnopenable, err)
	}
	if err != nil {
		return nil, fmt.Errorf("kms Decrypt: %w", err)
	}
	return out.Plaintext, nil
}
