package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/app"
)

// tableWait bounds how long `serve` waits for DynamoDB Local to answer at start: a process restarted
// while DynamoDB Local itself restarts (the chaos run does both) waits for it rather than failing.
const tableWait = 90 * time.Second

// runAttached is `serve`: what `run` serves (the API, the recipient pages, the scheduler's ticks and the
// stream reader's webhook deliveries), against a DynamoDB Local, an SES emulator and a KMS emulator that
// are already running. Several such processes can serve one table side by side, as Lambda instances do; the chaos
// run (make chaos) starts two and kills them at random.
func runAttached(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "serve takes no arguments; configure it with DYNAMODB_ENDPOINT, SES_ENDPOINT, KMS_ENDPOINT, KMS_KEY_ID, PORT, TABLE_NAME, PUBLIC_BASE_URL, SENDER_ADDRESS, SCHEDULER_TICK and WEBHOOKS_ALLOW_LOCAL")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serveAttached(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		return 1
	}
	return 0
}

func serveAttached(ctx context.Context) error {
	cfg := localConfig()
	cfg.Endpoint, cfg.SESEndpoint = os.Getenv("DYNAMODB_ENDPOINT"), os.Getenv("SES_ENDPOINT")
	cfg.KMSEndpoint, cfg.KMSKeyID = os.Getenv("KMS_ENDPOINT"), os.Getenv("KMS_KEY_ID")
	if cfg.Endpoint == "" || cfg.SESEndpoint == "" || cfg.KMSEndpoint == "" || cfg.KMSKeyID == "" {
		return errors.New("DYNAMODB_ENDPOINT, SES_ENDPOINT, KMS_ENDPOINT and KMS_KEY_ID must name a running DynamoDB Local, SES emulator and KMS emulator with its key")
	}
	port, err := envPort("PORT", 3000)
	if err != nil {
		return err
	}
	tick, err := envDuration("SCHEDULER_TICK", 5*time.Second)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("port %d: %w (set PORT to use another)", port, err)
	}
	defer ln.Close()
	// Processes serving one table behind one front share its address, which the emails' links name.
	cfg.PublicBaseURL = envOr("PUBLIC_BASE_URL", "http://"+ln.Addr().String())
	if err := ensureTable(ctx, cfg); err != nil {
		return err
	}
	// OPERATOR_TOKEN turns the operator API on behind that token.
	return runService(ctx, cfg, ln, tick, os.Getenv("OPERATOR_TOKEN"), func() {
		fmt.Printf("serving %s/api/campaigns (table %s at %s, emails to %s, secrets sealed at %s)\n", "http://"+ln.Addr().String(),
			cfg.TableName, cfg.Endpoint, cfg.SESEndpoint, cfg.KMSEndpoint)
	})
}

// ensureTable waits until DynamoDB Local answers, then creates the table from template.yaml and seeds
// the service catalog when the table does not exist yet. Of processes starting together, the one
// whose CreateTable succeeds seeds; the others find the table in use.
func ensureTable(ctx context.Context, cfg app.Config) error {
	root, err := localstack.RepoRoot()
	if err != nil {
		return err
	}
	client, err := app.NewDynamoDB(ctx, cfg.Endpoint)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, tableWait)
	defer cancel()
	for {
		_, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(cfg.TableName)})
		var missing *types.ResourceNotFoundException
		switch {
		case err == nil:
			return nil
		case errors.As(err, &missing):
			return createAndSeed(ctx, cfg, client, root)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("DynamoDB Local at %s does not answer: %w", cfg.Endpoint, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// createAndSeed creates the table and seeds the catalog, unless another process created the table first.
func createAndSeed(ctx context.Context, cfg app.Config, client *dynamodb.Client, root string) error {
	err := localstack.CreateTable(ctx, client, root, cfg.TableName)
	var inUse *types.ResourceInUseException
	if errors.As(err, &inUse) {
		return nil
	} else if err != nil {
		return err
	}
	store, err := app.NewStore(ctx, cfg)
	if err != nil {
		return err
	}
	_, err = seed.SeedCatalog(ctx, store)
	return err
}
