package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/app/s3files"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/app/sqsjobs"
	"github.com/giftcampaign/service/shared/app/streams"
	"github.com/giftcampaign/service/shared/app/web"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/service"
)

// runServer is `make run`: DynamoDB Local, the table from template.yaml, the
// demo organization and catalog, and every group's routes on one local
// port, until Ctrl-C or SIGTERM stops them all.
func runServer(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "run takes no arguments; configure it with PORT, DYNAMODB_PORT, SES_PORT, KMS_PORT, S3_PORT, TABLE_NAME, SENDER_ADDRESS, SCHEDULER_TICK and WEBHOOKS_ALLOW_LOCAL")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, started time.Time) error {
	ps, err := envPorts()
	if err != nil {
		return err
	}
	port, dbPort, sesPort, kmsPort := ps.api, ps.db, ps.ses, ps.kms
	root, err := localstack.RepoRoot()
	if err != nil {
		return err
	}
	cfg := localConfig()
	// Take the API port first, so a busy port fails before anything starts.
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d: %w (set PORT to use another)", port, err)
	}
	defer ln.Close()
	cfg.PublicBaseURL = "http://" + ln.Addr().String()

	ddb, err := localstack.StartDynamoDB(ctx, root, dbPort)
	if err != nil {
		return err
	}
	defer ddb.Stop()
	cfg.Endpoint = ddb.Endpoint()

	ses, err := localstack.StartSES(ctx, root, sesPort)
	if err != nil {
		return fmt.Errorf("%w (set SES_PORT to use another port)", err)
	}
	defer ses.Stop()
	cfg.SESEndpoint = ses.Endpoint()

	kms, err := localstack.StartKMS(ctx, root, kmsPort)
	if err != nil {
		return fmt.Errorf("%w (set KMS_PORT to use another port)", err)
	}
	defer kms.Stop()
	cfg.KMSEndpoint, cfg.KMSKeyID = kms.Endpoint(), kms.KeyID()

	s3, err := localstack.StartS3(ctx, root, ps.s3)
	if err != nil {
		return fmt.Errorf("%w (set S3_PORT to use another port)", err)
	}
	defer s3.Stop()
	cfg.S3Endpoint, cfg.ImportsBucket = s3.Endpoint(), s3.Bucket()

	store, err := app.NewStore(ctx, cfg)
	if err != nil {
		return err
	}
	client, err := app.NewDynamoDB(ctx, cfg.Endpoint)
	if err != nil {
		return err
	}
	if err := localstack.CreateTable(ctx, client, root, cfg.TableName); err != nil {
		return err
	}
	if _, err := seed.SeedCatalog(ctx, store); err != nil {
		return err
	}
	demo, err := seed.SeedDemo(ctx, store)
	if err != nil {
		return err
	}
	tick, err := envDuration("SCHEDULER_TICK", 5*time.Second)
	if err != nil {
		return err
	}
	// The operator API is on locally, behind a token made for this run
	// (in AWS it is off unless turned on, and signed with SigV4: docs/operator.md).
	token := rand.Text()
	return runService(ctx, cfg, ln, tick, token, func() { printBanner(cfg, demo.APIKey, token, started) })
}

// printBanner tells the person who ran `make run` where everything is.
func printBanner(cfg app.Config, apiKey, operatorToken string, started time.Time) {
	fmt.Printf(`
Gift Campaign Service is running (ready in %d ms).

  API            %s/api/campaigns   (docs: %s/api/campaigns/docs)
  DynamoDB Local %s  table %s
  Demo API key   %s
  Emails         %s/   (every email sent, from %s)
  KMS emulator   %s  key %s (seals webhook secrets)
  S3 emulator    %s  bucket %s (contact imports' files)

  curl -H "x-api-key: %s" %s/api/campaigns/gifts

  Operator API   %s/api/operator   token %s
  curl -H "x-operator-token: %s" %s/api/operator/organizations

Press Ctrl-C to stop everything.

`, time.Since(started).Milliseconds(), cfg.PublicBaseURL, cfg.PublicBaseURL, cfg.Endpoint, cfg.TableName,
		apiKey, cfg.SESEndpoint, cfg.SenderAddress, cfg.KMSEndpoint, cfg.KMSKeyID, cfg.S3Endpoint, cfg.ImportsBucket, apiKey, cfg.PublicBaseURL,
		cfg.PublicBaseURL, operatorToken, operatorToken, cfg.PublicBaseURL)
}

// localPorts are the ports `run` listens on and starts the emulators on.
type localPorts struct{ api, db, ses, kms, s3 int }

// envPorts reads the ports from the environment: PORT (3000),
// DYNAMODB_PORT (8000), SES_PORT (8005), and KMS_PORT, a free port unless
// it names one (make run names 8006, which make sam-local's containers
// reach), and S3_PORT, the S3 emulator's, a free port unless it names one.
func envPorts() (localPorts, error) {
	var ps localPorts
	for _, p := range []struct {
		name string
		def  int
		to   *int
	}{{"PORT", 3000, &ps.api}, {"DYNAMODB_PORT", 8000, &ps.db}, {"SES_PORT", 8005, &ps.ses}, {"KMS_PORT", 0, &ps.kms}, {"S3_PORT", 0, &ps.s3}} {
		v, err := envPort(p.name, p.def)
		if err != nil {
			return ps, err
		}
		*p.to = v
	}
	return ps, nil
}

// localConfig is the configuration both `run` and `serve` read from the environment.
func localConfig() app.Config {
	return app.Config{
		TableName:     envOr("TABLE_NAME", "gift-campaigns"),
		LogLevel:      os.Getenv("LOG_LEVEL"),
		SenderAddress: envOr("SENDER_ADDRESS", "gifts@example.com"),
		// Local development delivers webhooks to http and loopback
		// receivers unless WEBHOOKS_ALLOW_LOCAL=false.
		WebhooksAllowLocal: envOr("WEBHOOKS_ALLOW_LOCAL", "true") == "true",
	}
}

// runService serves cfg's API on ln, with the same wiring as a Lambda function's: jobs in this process,
// the scheduler's tick on a ticker (every tick) instead of an EventBridge schedule, webhook secrets
// sealed by the KMS emulator, and webhooks from the table's stream, read here as the worker's event
// source mapping reads it in AWS. ready runs once everything is started. It returns when ctx ends
// (after a graceful shutdown) or the server fails.
func runService(ctx context.Context, cfg app.Config, ln net.Listener, tick time.Duration, operatorToken string, ready func()) error {
	core, err := app.New(ctx, cfg, app.WithQueue(sqsjobs.New), app.WithLocalJobs((*service.Service).RunJob), app.WithMailer(sesmail.New),
		app.WithSecrets(kmssecrets.New), app.WithCodeSecrets(kmssecrets.NewCodes), app.WithFiles(s3files.New),
		app.WithSuppressionKey(kmssecrets.NewSuppression))
	if err != nil {
		return err
	}
	var codes recipient.CodeOpener // the pages reveal digital gifts' codes, as the pages function does
	if cfg.KMSKeyID != "" {
		if codes, err = kmssecrets.NewCodes(cfg); err != nil {
			return err
		}
	}
	go core.Scheduler().Run(ctx, tick)
	changes, err := streams.NewReader(ctx, core, cfg)
	if err != nil {
		return err
	}
	go func() {
		// The reader gives up only when it cannot find the table's stream (DynamoDB Local down or
		// restarting); in AWS the event source mapping never stops, so it is started again.
		for {
			err := changes.Run(ctx)
			if err == nil || ctx.Err() != nil {
				return
			}
			core.Log.ErrorContext(ctx, "webhook deliveries stopped; starting again in a second", slog.String("error", err.Error()))
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
	srv := web.NewServer(core, apidocs.New(httpapi.OpenAPIJSON()))
	groups := httpapi.Groups
	if operatorToken != "" {
		srv.AllowOperator(operatorToken)
		groups = slices.Concat(groups, []httpapi.Group{httpapi.Operator})
	}
	api := srv.Handler(groups...)
	hs := newHTTPServer(site.With(api, site.NewWithCodes(core.Store, core.Log, codes)))
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	ready()

	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	fmt.Fprintln(os.Stderr, "stopping")
	return hs.Shutdown(shutdown)
}

// envPort reads a port number from the environment.
func envPort(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("%s=%q is not a port number", name, v)
	}
	return p, nil
}

// envDuration reads a positive duration (e.g. "5s") from the environment.
func envDuration(name string, def time.Duration) (time.Duration, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q is not a positive duration such as 5s", name, v)
	}
	return d, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
