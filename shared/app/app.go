// Package app wires configuration, the DynamoDB client, the store and the
// HTTP handlers together. The Lambda functions, the local server, the
// operator CLI and the tests all build the service through it.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
)

// Config is the service's configuration, read from the environment.
type Config struct {
	// TableName is the DynamoDB table (TABLE_NAME).
	TableName string
	// Endpoint, when set, is a DynamoDB Local endpoint (DYNAMODB_ENDPOINT);
	// empty means real AWS through the default credential chain.
	Endpoint string
	// PublicBaseURL is the base of recipients' landing and claim pages
	// (PUBLIC_BASE_URL).
	PublicBaseURL string
	// LogLevel is DEBUG, INFO, WARN or ERROR (LOG_LEVEL).
	LogLevel string
	// JobsQueueURL is the SQS queue of background jobs (JOBS_QUEUE_URL);
	// empty means jobs run in this process (local server).
	JobsQueueURL string
	// MailOutbox is the file the local outbox appends sent emails to, one
	// JSON object a line (MAIL_OUTBOX). Empty means no mail provider: no
	// email goes out (emailSent is false) and invitations stay scheduled.
	// No real provider (SES) is wired yet.
	MailOutbox string
}

// ConfigFromEnv reads the configuration from the environment.
func ConfigFromEnv() (Config, error) {
	c := Config{
		TableName:     os.Getenv("TABLE_NAME"),
		Endpoint:      os.Getenv("DYNAMODB_ENDPOINT"),
		PublicBaseURL: os.Getenv("PUBLIC_BASE_URL"),
		LogLevel:      os.Getenv("LOG_LEVEL"),
		JobsQueueURL:  os.Getenv("JOBS_QUEUE_URL"),
		MailOutbox:    os.Getenv("MAIL_OUTBOX"),
	}
	if c.TableName == "" {
		return c, fmt.Errorf("TABLE_NAME is not set")
	}
	if c.PublicBaseURL == "" {
		c.PublicBaseURL = "http://127.0.0.1:3000"
	}
	c.PublicBaseURL = strings.TrimRight(c.PublicBaseURL, "/")
	return c, nil
}

// NewDynamoDB returns a DynamoDB client: for DynamoDB Local when endpoint is
// set, else for AWS with the default credential chain.
func NewDynamoDB(ctx context.Context, endpoint string) (*dynamodb.Client, error) {
	if endpoint == "" {
		cfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, fmt.Errorf("load AWS config: %w", err)
		}
		return dynamodb.NewFromConfig(cfg), nil
	}
	// DynamoDB Local accepts any alphanumeric credentials, and omits the
	// CRC32 header on error responses.
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")),
	)
	if err != nil {
		return nil, fmt.Errorf("load local config: %w", err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true
	}), nil
}

// NewLogger returns the JSON logger all functions use.
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: l}))
}

// NewStore returns the store for cfg.
func NewStore(ctx context.Context, cfg Config) (*dynamo.Store, error) {
	db, err := NewDynamoDB(ctx, cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	return dynamo.New(db, cfg.TableName), nil
}

// NewServer returns the HTTP server for cfg, with its job queue: SQS when
// JobsQueueURL is set, else an in-process queue already running.
func NewServer(ctx context.Context, cfg Config) (*httpapi.Server, jobs.Queue, error) {
	store, err := NewStore(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	log := NewLogger(cfg.LogLevel)
	slog.SetDefault(log)
	var (
		queue jobs.Queue
		local *jobs.Local
	)
	if cfg.JobsQueueURL != "" {
		awsCfg, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return nil, nil, fmt.Errorf("load AWS config: %w", err)
		}
		queue = jobs.NewSQS(sqs.NewFromConfig(awsCfg), cfg.JobsQueueURL)
	} else {
		local = jobs.NewLocal(log)
		queue = local
	}
	var mailer mail.Mailer
	if cfg.MailOutbox != "" {
		outbox, err := mail.NewOutbox(cfg.MailOutbox)
		if err != nil {
			return nil, nil, err
		}
		mailer = outbox
	}
	srv := httpapi.NewServer(store, httpapi.Config{PublicBaseURL: cfg.PublicBaseURL, Logger: log, Jobs: queue, Mailer: mailer})
	if local != nil {
		local.Start(srv.RunJob)
	}
	return srv, queue, nil
}

// Handler builds the handler of one group from the environment; a Lambda
// function's main calls it.
func Handler(ctx context.Context, g httpapi.Group) (http.Handler, error) {
	cfg, err := ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	srv, _, err := NewServer(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return srv.Handler(g), nil
}
