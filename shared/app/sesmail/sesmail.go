// Package sesmail wires the SES mailer (shared/mail/ses) into the Core:
// the mains of the functions that send email pass app.WithMailer(New), and
// only they link the SES client.
package sesmail

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/mail/ses"
)

// New returns the SES mailer of cfg, sending from cfg.SenderAddress.
func New(cfg app.Config) (mail.Mailer, error) {
	client, err := NewClient(cfg.SESEndpoint)
	if err != nil {
		return nil, err
	}
	return ses.New(client, ses.Config{
		From:             cfg.SenderAddress,
		ConfigurationSet: cfg.SESConfigurationSet,
		PublicBaseURL:    cfg.PublicBaseURL,
	}), nil
}

// NewClient returns an SES v2 client: for the SES v2 emulator when endpoint
// is set, else for AWS as a Lambda function sees it (see app.AWSConfig).
func NewClient(endpoint string) (*sesv2.Client, error) {
	cfg, err := app.AWSConfig("SES emulator", endpoint)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return sesv2.NewFromConfig(cfg), nil
	}
	return sesv2.NewFromConfig(cfg, func(o *sesv2.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}
