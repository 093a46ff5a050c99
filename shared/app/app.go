// Package app wires configuration, the DynamoDB client, the store, the use
// cases (shared/service) and the job queue together: the Core. The worker
// function, the local server, the operator CLI and the tests build the
// service through it; shared/app/web adds the HTTP handlers, so the worker
// links no HTTP adapter.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/giftcampaign/service/shared/awsenv"
	"github.com/giftcampaign/service/shared/contactimport"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/webhooks"
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
	// SenderAddress is the From address of every email, an identity
	// verified in SES (SENDER_ADDRESS). Empty means no mail provider: no
	// email goes out (emailSent is false) and invitations stay scheduled.
	SenderAddress string
	// SESConfigurationSet, when set, is the SES configuration set every
	// email names (SES_CONFIGURATION_SET); its event destination publishes
	// bounces and complaints.
	SESConfigurationSet string
	// SESEndpoint, when set, is the SES v2 emulator's endpoint
	// (SES_ENDPOINT); empty means Amazon SES in the function's region.
	SESEndpoint string
	// WebhooksAllowLocal lets webhooks go to http URLs and to loopback and
	// private addresses (WEBHOOKS_ALLOW_LOCAL=true): the local runner's
	// default, false in a deployment.
	WebhooksAllowLocal bool
	// KMSKeyID is the KMS key that seals stored secrets (KMS_KEY_ID): the
	// stack's SecretsKey, or the KMS emulator's key locally. Empty means
	// no key: creating or rotating a webhook secret fails.
	KMSKeyID string
	// KMSEndpoint, when set, is the KMS emulator's endpoint (KMS_ENDPOINT);
	// empty means AWS KMS in the function's region.
	KMSEndpoint string
	// ImportsBucket is the S3 bucket of contact imports' uploaded files
	// (IMPORTS_BUCKET); empty means imports are not configured.
	ImportsBucket string
	// S3Endpoint, when set, is the S3 emulator's endpoint (S3_ENDPOINT);
	// empty means Amazon S3 in the function's region.
	S3Endpoint string
}

// ConfigFromEnv reads the configuration from the environment.
func ConfigFromEnv() (Config, error) {
	c := Config{
		TableName:     os.Getenv("TABLE_NAME"),
		Endpoint:      os.Getenv("DYNAMODB_ENDPOINT"),
		PublicBaseURL: os.Getenv("PUBLIC_BASE_URL"),
		LogLevel:      os.Getenv("LOG_LEVEL"),
		JobsQueueURL:  os.Getenv("JOBS_QUEUE_URL"),
		SenderAddress: os.Getenv("SENDER_ADDRESS"),
		SESEndpoint:   os.Getenv("SES_ENDPOINT"),

		SESConfigurationSet: os.Getenv("SES_CONFIGURATION_SET"),
		WebhooksAllowLocal:  os.Getenv("WEBHOOKS_ALLOW_LOCAL") == "true",
		KMSKeyID:            os.Getenv("KMS_KEY_ID"),
		KMSEndpoint:         os.Getenv("KMS_ENDPOINT"),
		ImportsBucket:       os.Getenv("IMPORTS_BUCKET"),
		S3Endpoint:          os.Getenv("S3_ENDPOINT"),
	}
	if c.TableName == "" {
		return c, fmt.Errorf("TABLE_NAME is not set")
	}
	if c.PublicBaseURL == "" {
		// The local runner serves the pages on the API's own port and sets
		// the base URL from the address it listens on; this default is for
		// a runner on the default port.
		c.PublicBaseURL = "http://127.0.0.1:3000"
	}
	c.PublicBaseURL = strings.TrimRight(c.PublicBaseURL, "/")
	return c, nil
}

// NewDynamoDB returns a DynamoDB client: for DynamoDB Local when endpoint is
// set, else for AWS as a Lambda function sees it (see AWSConfig).
func NewDynamoDB(_ context.Context, endpoint string) (*dynamodb.Client, error) {
	cfg, err := AWSConfig("DynamoDB Local", endpoint)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return dynamodb.NewFromConfig(cfg), nil
	}
	// DynamoDB Local omits the CRC32 header on error responses. Its clients
	// are many and parallel in tests, so the SDK's client-side retry quota
	// is off.
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) { o.RateLimiter = ratelimit.None })
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true
	}), nil
}

// AWSConfig is the AWS configuration of a client of what (e.g. "DynamoDB
// Local", for messages): with endpoint empty, AWS as a Lambda function sees
// it (LambdaAWS); else a local emulator at endpoint, for which no AWS
// environment or profile is read, so local traffic can never reach a real
// account (emulators accept any alphanumeric credentials). The caller sets
// the client's BaseEndpoint to endpoint.
func AWSConfig(what, endpoint string) (aws.Config, error) {
	if endpoint == "" {
		return LambdaAWS()
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return aws.Config{}, fmt.Errorf("%s endpoint %q: want a URL like http://127.0.0.1:8000", what, endpoint)
	}
	return aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
		APIOptions:  slices.Clone(EmulatorAPIOptions),
	}, nil
}

// EmulatorAPIOptions are added to every client of a local emulator that
// AWSConfig configures: the test environment (shared/testenv) adds the
// recorder of the AWS calls the tests make (infra/iamcheck). Nothing sets
// it in a deployed function, whose clients never take it.
var EmulatorAPIOptions []func(*middleware.Stack) error

// LambdaAWS returns the AWS configuration of a Lambda function: the region
// and the execution role's credentials from the environment the Lambda
// runtime sets (shared/awsenv).
func LambdaAWS() (aws.Config, error) {
	return awsenv.Lambda()
}

// NewLogger returns the JSON logger all functions use.
func NewLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(os.Stdout, &slog.HandlerOptions{Level: l}))
}

// NewStore returns the store for cfg, with extra options.
func NewStore(ctx context.Context, cfg Config, extra ...dynamo.Option) (*dynamo.Store, error) {
	db, err := NewDynamoDB(ctx, cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	var opts []dynamo.Option
	if cfg.Endpoint == "" {
		// Real DynamoDB: its indexes trail the table by a moment.
		opts = append(opts, dynamo.WithIndexSettle(dynamo.IndexSettle))
	}
	return dynamo.New(db, cfg.TableName, append(opts, extra...)...), nil
}

// The store implements every use case's storage, and the scheduler's.
var (
	_ service.Store   = (*dynamo.Store)(nil)
	_ scheduler.Store = (*dynamo.Store)(nil)
)

// Core is the service without its HTTP adapter: the store, the use cases
// over it, and the job queue they hand background work to. The worker
// function runs on it alone; the HTTP functions add shared/app/web.
type Core struct {
	Store   *dynamo.Store
	Service *service.Service
	// Queue is SQS when JobsQueueURL is set and WithQueue given, an
	// in-process queue already running the service's jobs when
	// JobsQueueURL is empty and WithLocalJobs given, else nil.
	Queue jobs.Queue
	Log   *slog.Logger
}

// An Option adds an optional adapter to the Core. A Lambda function's main
// names the ones its routes use, so that its binary links only those: an
// AWS service client costs every binary that imports it a few hundred
// kilobytes, used or not.
type Option func(*parts)

// parts are the optional adapters' constructors.
type parts struct {
	queue  func(Config) (jobs.Queue, error)
	run    JobRunner // runs jobs in this process when JobsQueueURL is empty
	mailer func(Config) (mail.Mailer, error)
	// secrets builds the sealer of stored secrets (WithSecrets).
	secrets func(Config) (service.Secrets, error)
	// codes builds the sealer of gift codes (WithCodeSecrets).
	codes func(Config) (service.Secrets, error)
	// files builds the store of imports' uploaded files (WithFiles).
	files func(Config) (contactimport.Files, error)
	// suppression builds the sealer of the suppression key
	// (WithSuppressionKey).
	suppression func(Config) (dynamo.SuppressionKeySealer, error)
}

// JobRunner is a runner of jobs over the service: Service.RunJob (every kind),
// or the narrower runner of the jobs a group's routes start (e.g.
// Service.RunCampaignJobs), as a method expression.
type JobRunner func(*service.Service, context.Context, jobs.Job) (*jobs.Job, error)

// WithQueue has newQueue build the job queue of cfg.JobsQueueURL (e.g.
// shared/app/sqsjobs.New). Without it a Core whose JobsQueueURL is set has
// no queue, and enqueueing fails.
func WithQueue(newQueue func(Config) (jobs.Queue, error)) Option {
	return func(p *parts) { p.queue = newQueue }
}

// WithLocalJobs has run run the service's jobs in this process when
// cfg.JobsQueueURL is empty (the local runner, sam local, tests); with it
// set, the jobs go to WithQueue's queue, or nowhere. A function links the
// code of the jobs run reaches and no other: one whose routes start no job
// names no runner, one whose routes start a group's jobs names that
// group's runner (Service.RunCampaignJobs, …).
func WithLocalJobs(run JobRunner) Option {
	return func(p *parts) { p.run = run }
}

// WithMailer has newMailer build the mailer of cfg.SenderAddress (e.g.
// shared/app/sesmail.New). Without it no email goes out, as when
// SenderAddress is empty.
func WithMailer(newMailer func(Config) (mail.Mailer, error)) Option {
	return func(p *parts) { p.mailer = newMailer }
}

// WithSecrets has newSecrets build the sealer of stored secrets from
// cfg.KMSKeyID (shared/app/kmssecrets.New). Only the functions that seal
// or open webhook secrets (webhooks, worker) name it, and only their roles
// may use the key. Without it, or with KMSKeyID empty, creating or
// rotating a webhook fails, and so does delivering with a sealed secret.
func WithSecrets(newSecrets func(Config) (service.Secrets, error)) Option {
	return func(p *parts) { p.secrets = newSecrets }
}

// WithCodeSecrets has newCodes build the sealer of digital gifts' codes
// from cfg.KMSKeyID (shared/app/kmssecrets.NewCodes: the codes' own
// encryption context). Only the functions that upload codes (catalog) or
// reveal them (pages) name it, and only their roles may use that context.
// Without it an upload is SERVICE_UNAVAILABLE.
func WithCodeSecrets(newCodes func(Config) (service.Secrets, error)) Option {
	return func(p *parts) { p.codes = newCodes }
}

// WithFiles has newFiles build the store of contact imports' uploaded
// files from cfg.ImportsBucket (shared/app/s3files.New). Only the functions
// that start or read an import (contacts, worker) name it. Without it, or
// with ImportsBucket empty, starting an import fails.
func WithFiles(newFiles func(Config) (contactimport.Files, error)) Option {
	return func(p *parts) { p.files = newFiles }
}

// WithSuppressionKey has newKey build the sealer of the stack's
// suppression key from cfg.KMSKeyID (shared/app/kmssecrets.NewSuppression),
// with which the store keys suppressed addresses (docs/security.md). Only
// the functions that look addresses up or suppress them name it
// (contacts, recipients, the worker; the pages through shared/app/site),
// and only their roles may use its encryption context; a store without it
// keys them the legacy way, which none of the others ever writes.
func WithSuppressionKey(newKey func(Config) (dynamo.SuppressionKeySealer, error)) Option {
	return func(p *parts) { p.suppression = newKey }
}

// New builds the Core for cfg with the optional adapters opts name.
func New(ctx context.Context, cfg Config, opts ...Option) (*Core, error) {
	var p parts
	for _, o := range opts {
		o(&p)
	}
	var extra []dynamo.Option
	if cfg.KMSKeyID != "" && p.suppression != nil {
		key, err := p.suppression(cfg)
		if err != nil {
			return nil, err
		}
		extra = append(extra, dynamo.WithSuppressionKey(key))
	}
	store, err := NewStore(ctx, cfg, extra...)
	if err != nil {
		return nil, err
	}
	return newCore(store, cfg, opts...)
}

// Scheduler returns the scheduler whose tick continues due work (launches
// whose job stopped) with the service's job runner.
func (c *Core) Scheduler() *scheduler.Scheduler {
	return scheduler.New(c.Store, c.Service.RunJob, slog.Default())
}

// NewWorker returns what runs background work for cfg with opts: the
// service (whose RunJob runs job slices), its job queue, and the scheduler
// over the same store.
func NewWorker(ctx context.Context, cfg Config, opts ...Option) (*service.Service, jobs.Queue, *scheduler.Scheduler, error) {
	c, err := New(ctx, cfg, opts...)
	if err != nil {
		return nil, nil, nil, err
	}
	return c.Service, c.Queue, c.Scheduler(), nil
}

// newCore is New over store.
func newCore(store *dynamo.Store, cfg Config, opts ...Option) (*Core, error) {
	log := NewLogger(cfg.LogLevel)
	slog.SetDefault(log)
	var p parts
	for _, o := range opts {
		o(&p)
	}
	var (
		queue jobs.Queue
		local *jobs.Local
	)
	switch {
	case cfg.JobsQueueURL == "" && p.run != nil:
		local = jobs.NewLocal(log)
		queue = local
	case cfg.JobsQueueURL != "" && p.queue != nil:
		q, err := p.queue(cfg)
		if err != nil {
			return nil, err
		}
		queue = q
	}
	var mailer mail.Mailer
	if cfg.SenderAddress != "" && p.mailer != nil {
		m, err := p.mailer(cfg)
		if err != nil {
			return nil, err
		}
		mailer = m
	}
	secrets, err := sealer(cfg, p.secrets)
	if err != nil {
		return nil, err
	}
	codes, err := sealer(cfg, p.codes)
	if err != nil {
		return nil, err
	}
	var files contactimport.Files
	if cfg.ImportsBucket != "" && p.files != nil {
		f, err := p.files(cfg)
		if err != nil {
			return nil, err
		}
		files = f
	}
	svc := service.New(store, service.Config{PublicBaseURL: cfg.PublicBaseURL, Logger: log, Jobs: queue, Mailer: mailer,
		Webhooks: webhooks.Policy{AllowLocal: cfg.WebhooksAllowLocal}, Secrets: secrets, Codes: codes, Files: files})
	if local != nil {
		local.Start(func(ctx context.Context, j jobs.Job) (*jobs.Job, error) { return p.run(svc, ctx, j) })
	}
	return &Core{Store: store, Service: svc, Queue: queue, Log: log}, nil
}

// sealer builds a sealer of cfg's key with build, nil without a key or
// without build (the function does not seal that kind of secret).
func sealer(cfg Config, build func(Config) (service.Secrets, error)) (service.Secrets, error) {
	if cfg.KMSKeyID == "" || build == nil {
		return nil, nil
	}
	return build(cfg)
}
