package app

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
)

// NewKMSClient returns a KMS client: for the KMS emulator when endpoint is
// set, else for AWS as a Lambda function sees it (see AWSConfig).
func NewKMSClient(endpoint string) (*kms.Client, error) {
	cfg, err := AWSConfig("KMS emulator", endpoint)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return kms.NewFromConfig(cfg), nil
	}
	return kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}

// SuppressionKeyOption gives a store of cfg the sealer of the stack's
// suppression key (cfg.KMSKeyID, in kmskey.SuppressionContext), nil without
// a key. Every function's store has it, not only those whose routes
// suppress or look addresses up: a store without it keys suppressions the
// legacy way (a plain hash), which must never be written beside keyed ones
// in a deployment. Only the functions that look addresses up call KMS, and
// only their roles may (docs/security.md).
func SuppressionKeyOption(cfg Config) (dynamo.Option, error) {
	if cfg.KMSKeyID == "" {
		return nil, nil
	}
	client, err := NewKMSClient(cfg.KMSEndpoint)
	if err != nil {
		return nil, err
	}
	return dynamo.WithSuppressionKey(sealed.New(kmskey.NewSuppression(client, cfg.KMSKeyID), sealed.DefaultLimits)), nil
}
