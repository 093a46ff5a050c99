// Package kmssecrets wires the sealer of stored secrets (shared/sealed over
// the KMS key provider of shared/sealed/kmskey) into the Core: the mains of
// the functions that seal or open webhook secrets pass
// app.WithSecrets(New), and only they link the KMS client.
package kmssecrets

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
	"github.com/giftcampaign/service/shared/service"
)

// New returns the sealer of cfg.KMSKeyID, with the default cache limits
// (sealed.DefaultLimits).
func New(cfg app.Config) (service.Secrets, error) {
	client, err := NewClient(cfg.KMSEndpoint)
	if err != nil {
		return nil, err
	}
	return sealed.New(kmskey.New(client, cfg.KMSKeyID), sealed.DefaultLimits), nil
}

// NewCodes returns the sealer of digital gifts' codes: the same key as
// New's, in the codes' own encryption context (kmskey.CodesContext).
func NewCodes(cfg app.Config) (service.Secrets, error) {
	client, err := NewClient(cfg.KMSEndpoint)
	if err != nil {
		return nil, err
	}
	return sealed.New(kmskey.NewCodes(client, cfg.KMSKeyID), sealed.DefaultLimits), nil
}

// NewSuppression returns the sealer of the stack's suppression key: the
// same key as New's, in its own encryption context
// (kmskey.SuppressionContext).
func NewSuppression(cfg app.Config) (dynamo.SuppressionKeySealer, error) {
	client, err := NewClient(cfg.KMSEndpoint)
	if err != nil {
		return nil, err
	}
	return sealed.New(kmskey.NewSuppression(client, cfg.KMSKeyID), sealed.DefaultLimits), nil
}

// NewClient returns a KMS client: for the KMS emulator when endpoint is
// set, else for AWS as a Lambda function sees it (see app.AWSConfig).
func NewClient(endpoint string) (*kms.Client, error) {
	cfg, err := app.AWSConfig("KMS emulator", endpoint)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return kms.NewFromConfig(cfg), nil
	}
	return kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}
