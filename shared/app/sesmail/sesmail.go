// Package sesmail wires the SES mailer (shared/mail/ses) into the Core:
// the mains of the functions that send email pass app.WithMailer(New), and
// only they link the SES client.
package sesmail

import (
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
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
// is set, else for AWS as a Lambda function sees it (see app.LambdaAWS).
func NewClient(endpoint string) (*sesv2.Client, error) {
	if endpoint == "" {
		cfg, err := app.LambdaAWS()
		if err != nil {
			return nil, err
		}
		return sesv2.NewFromConfig(cfg), nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("SES emulator endpoint %q: want a URL like http://127.0.0.1:8005", endpoint)
	}
	// As for DynamoDB Local, nothing of the AWS environment is read, so
	// local mail can never reach a real account.
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}
	return sesv2.NewFromConfig(cfg, func(o *sesv2.Options) { o.BaseEndpoint = aws.String(endpoint) }), nil
}
