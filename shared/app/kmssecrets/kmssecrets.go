// Package kmssecrets wires the sealer of stored secrets (shared/sealed over
// the KMS key provider of shared/sealed/kmskey) into the Core: the mains of
// the functions that seal or open webhook secrets pass
// app.WithSecrets(New), and only they link the KMS client.
package kmssecrets

import (
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/giftcampaign/service/shared/app"
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

// NewClient returns a KMS client: for the KMS emulator when endpoint is
// set, else for AWS as a Lambda function sees it (app.NewKMSClient).
func NewClient(endpoint string) (*kms.Client, error) {
	return app.NewKMSClient(endpoint)
}
