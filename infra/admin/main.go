// Command admin is the operator CLI of the Gift Campaign Service. It prints
// JSON and reaches the table named by TABLE_NAME, at DYNAMODB_ENDPOINT when
// that is set (DynamoDB Local), else in AWS through the default credential
// chain.
//
//	go run ./infra/admin create-org -name "Acme" -domain acme.com -credits 5000
//	go run ./infra/admin create-key -org acme -user alice
//	go run ./infra/admin revoke-key -org acme -key-id 01J...
//	go run ./infra/admin top-up -org acme -credits 1000 -reason "invoice 42" -request-id inv-42
//	go run ./infra/admin show-org -org acme
//	go run ./infra/admin verify-ledger -org acme
//	go run ./infra/admin seed-catalog
//	go run ./infra/admin orders export [-out orders.csv]
//	go run ./infra/admin orders import-shipments shipments.csv
//	go run ./infra/admin suspend-org -org acme
//	go run ./infra/admin list-orgs -month 2026-11
//	go run ./infra/admin migrate [-org acme] [-steps contacts-slots,webhook-secrets,contacts-search,audience-members,ledger-index,recipient-status,recipient-names,service-orders,org-registry]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/sealed"
	"github.com/giftcampaign/service/shared/sealed/kmskey"
	"github.com/giftcampaign/service/shared/wallet"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: admin <command> [flags]

commands:
  create-org    -name N [-id ID] [-domain D] [-credits C] [-currency USD] [-budget AMOUNT]
  create-key    -org ORG [-user USER] [-name LABEL]     prints the key once
  revoke-key    -org ORG -key-id ID
  top-up        -org ORG -credits C [-reason TEXT] [-request-id ID]
                C from 1 to 1000000000; a re-run with the same -request-id adds nothing
                and prints the first run's entry (default: a new id, printed)
  show-org      -org ORG
  verify-ledger -org ORG     sums the ledger; exit 1 when it differs from the balance
  seed-catalog
  orders        export [-out FILE] | import-shipments FILE   the operator's fulfilment of the
                service catalog's gifts, every organization (admin orders -h)
  migrate       [-org ORG] [-steps S1,S2]   upgrades data written by older models; idempotent,
                resumable; every organization when -org is not given
  suspend-org   -org ORG   its keys answer 403 ORGANIZATION_SUSPENDED, its emails wait
  resume-org    -org ORG
  first-key     -org ORG [-user USER] [-name LABEL]   its first admin key, shown once
  set-rate-limits -org ORG -limits launch=10,bulk-add=5
  usage         -org ORG [-month YYYY-MM]
  list-orgs     [-month YYYY-MM] [-limit N] [-after ORG]   with their usage of the month

environment: TABLE_NAME (required), DYNAMODB_ENDPOINT (DynamoDB Local; unset = AWS),
             KMS_KEY_ID (the stack's SecretsKey: migrate's webhook-secrets step seals with it),
             KMS_ENDPOINT (the KMS emulator; unset = AWS)
`

// run executes one command and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" || args[0] == "--help" {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, args := args[0], args[1:]
	if cmd == "orders" {
		return runOrders(ctx, args, stdout, stderr)
	}
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		orgID    = fs.String("org", "", "organization id")
		id       = fs.String("id", "", "id of the new organization (default: generated)")
		name     = fs.String("name", "", "name of the organization or the key")
		domain   = fs.String("domain", "", "organization's web domain")
		credits  = fs.Int64("credits", 0, "credits")
		currency = fs.String("currency", "USD", "budget currency")
		budget   = fs.Float64("budget", 0, "budget amount")
		user     = fs.String("user", "admin", "user the key acts as")
		keyID    = fs.String("key-id", "", "id of the API key")
		reason   = fs.String("reason", "", "reason recorded in the ledger")
		steps    = fs.String("steps", "", "migration steps to run, comma-separated (default: all)")
		request  = fs.String("request-id", "", "id of the top-up: a re-run with it adds nothing (default: a new id)")
		month    = fs.String("month", "", "usage month, YYYY-MM (default: the current one)")
		limits   = fs.String("limits", "", "rate limits, class=n pairs: launch=10,bulk-add=5")
		limit    = fs.Int("limit", access.MaxOrgPage, "organizations a page lists (1 to 100)")
		after    = fs.String("after", "", "list the organizations after this id")
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := checkFlags(fs, cmd); err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 2
	}
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 2
	}
	store, db, where, err := newStore(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 1
	}
	// Said on every run: a DYNAMODB_ENDPOINT left exported from local work
	// would otherwise send a production command to DynamoDB Local unnoticed.
	fmt.Fprintf(stderr, "admin: table %s %s\n", cfg.TableName, where)
	out, err := execute(ctx, store, cmd, options{
		orgID: *orgID, id: *id, name: *name, domain: *domain, credits: *credits,
		currency: *currency, budget: *budget, user: *user, keyID: *keyID, reason: *reason,
		steps: *steps, requestID: *request, month: *month, limits: *limits, limit: *limit, after: *after, orgs: func(ctx context.Context) ([]string, error) { return orgIDs(ctx, db, cfg.TableName) },
	})
	if err != nil {
		fmt.Fprintln(stderr, "admin:", describe(err))
		if gifting.ErrorCode(err) == gifting.CodeValidation {
			return 2
		}
		return 1
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(stderr, "admin:", err)
		return 1
	}
	if check, ok := out.(ledgerCheckJSON); ok && !check.OK {
		fmt.Fprintf(stderr, "admin: the ledger of %s does not add up to its balance\n", check.OrgID)
		return 1
	}
	return 0
}

// commandFlags are the flags each command reads. Any other flag, or an
// argument left after the flags, is refused: flag parsing stops at the
// first non-flag argument, so an unquoted "-reason invoice 42 -request-id X"
// would otherwise drop -request-id without a word.
var commandFlags = map[string][]string{
	"create-org":    {"name", "id", "domain", "credits", "currency", "budget"},
	"create-key":    {"org", "user", "name"},
	"revoke-key":    {"org", "key-id"},
	"top-up":        {"org", "credits", "reason", "request-id"},
	"show-org":      {"org"},
	"verify-ledger": {"org"},
	"seed-catalog":  {},
	"migrate":       {"org", "steps"},
	// The operator API's commands (operator.go).
	"suspend-org":     {"org"},
	"resume-org":      {"org"},
	"first-key":       {"org", "user", "name"},
	"set-rate-limits": {"org", "limits"},
	"usage":           {"org", "month"},
	"list-orgs":       {"month", "limit", "after"},
}

// checkFlags refuses arguments fs did not parse and flags cmd does not read.
func checkFlags(fs *flag.FlagSet, cmd string) error {
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: quote values that contain spaces", fs.Arg(0))
	}
	allowed, known := commandFlags[cmd]
	if !known {
		return nil // execute reports the unknown command
	}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && !slices.Contains(allowed, f.Name) {
			err = fmt.Errorf("%s does not take -%s", cmd, f.Name)
		}
	})
	return err
}

type options struct {
	orgID, id, name, domain, currency, user, keyID, reason, steps string
	requestID, month, limits, after                               string
	limit                                                         int
	credits                                                       int64
	budget                                                        float64
	// orgs lists every organization (for migrate without -org).
	orgs func(context.Context) ([]string, error)
}

func execute(ctx context.Context, s *dynamo.Store, cmd string, o options) (any, error) {
	need := func(flagName, v string) error {
		if v == "" {
			return &gifting.Error{Code: gifting.CodeValidation, Message: "-" + flagName + " is required",
				Details: map[string]string{flagName: "is required"}}
		}
		return nil
	}
	switch cmd {
	case "create-org":
		org, w, err := access.NewApp(s).CreateOrg(ctx, access.NewOrg{OrgID: o.id, Name: o.name, Domain: o.domain,
			Credits: o.credits, Budget: gifting.Budget{Currency: o.currency, Amount: o.budget}})
		return map[string]any{"organization": org, "wallet": walletJSONOf(w)}, err
	case "create-key":
		if err := need("org", o.orgID); err != nil {
			return nil, err
		}
		secret, key, err := access.NewApp(s).CreateAPIKey(ctx, o.orgID, o.user, o.name)
		return map[string]any{"apiKey": secret, "key": key,
			"note": "The key is shown only now; only its SHA-256 hash is stored."}, err
	case "revoke-key":
		if err := need("org", o.orgID); err != nil {
			return nil, err
		}
		if err := need("key-id", o.keyID); err != nil {
			return nil, err
		}
		key, err := access.NewApp(s).RevokeAPIKey(ctx, o.orgID, o.keyID)
		return map[string]any{"key": key}, err
	case "top-up":
		if err := need("org", o.orgID); err != nil {
			return nil, err
		}
		requestID := o.requestID
		if requestID == "" {
			requestID = s.NewID()
		}
		res, err := wallet.NewApp(s).TopUpOnce(ctx, wallet.TopUpRequest{OrgID: o.orgID, RequestID: requestID, Credits: o.credits, Reason: o.reason})
		if code := gifting.ErrorCode(err); err != nil && code != gifting.CodeValidation && code != gifting.CodeNotFound && code != gifting.CodeIdempotencyMismatch {
			// The outcome is unknown (a timeout, a lost answer): the same
			// request id finishes the job without adding twice.
			return nil, fmt.Errorf("the top-up may or may not have been applied; run it again with -request-id %s "+
				"(the same credits and reason) to finish it without adding twice: %w", requestID, err)
		}
		return topUpJSONOf(res), err
	case "show-org":
		if err := need("org", o.orgID); err != nil {
			return nil, err
		}
		org, err := access.NewApp(s).Org(ctx, o.orgID)
		if err != nil {
			return nil, err
		}
		w, err := wallet.NewApp(s).Wallet(ctx, o.orgID)
		return map[string]any{"organization": org, "wallet": walletJSONOf(w)}, err
	case "verify-ledger":
		if err := need("org", o.orgID); err != nil {
			return nil, err
		}
		check, err := wallet.NewApp(s).VerifyLedger(ctx, o.orgID)
		return ledgerCheckJSON(check), err
	case "seed-catalog":
		c, err := seed.SeedCatalog(ctx, s)
		return map[string]any{"gifts": len(c.Gifts), "templates": len(c.Templates)}, err
	case "migrate":
		return migrate(ctx, s, o)
	}
	if out, ok, err := operatorCommand(ctx, s, cmd, o); ok {
		return out, err
	}
	return nil, &gifting.Error{Code: gifting.CodeValidation, Message: fmt.Sprintf("unknown command %q\n%s", cmd, usage)}
}

// newStore reaches DynamoDB Local when DYNAMODB_ENDPOINT is set, else AWS
// through the SDK's default credential chain (environment, profiles, SSO):
// an operator's machine is not a Lambda. where says which, for the
// operator.
func newStore(ctx context.Context, cfg app.Config) (s *dynamo.Store, db *dynamodb.Client, where string, err error) {
	if cfg.Endpoint != "" {
		db, err := app.NewDynamoDB(ctx, cfg.Endpoint)
		if err != nil {
			return nil, nil, "", err
		}
		opts, err := sealerOption(cfg, nil)
		if err != nil {
			return nil, nil, "", err
		}
		return dynamo.New(db, cfg.TableName, opts...), db, "at " + cfg.Endpoint + " (DYNAMODB_ENDPOINT)", nil
	}
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, nil, "", fmt.Errorf("load AWS config: %w", err)
	}
	if awsCfg.Region == "" {
		return nil, nil, "", errors.New("no AWS region: set AWS_REGION to the stack's region (samconfig.toml's region, us-east-1 by default)")
	}
	db = dynamodb.NewFromConfig(awsCfg)
	opts, err := sealerOption(cfg, &awsCfg)
	if err != nil {
		return nil, nil, "", err
	}
	return dynamo.New(db, cfg.TableName, opts...), db, "in AWS region " + awsCfg.Region, nil
}

// sealerOption gives the store the sealers of KMS_KEY_ID, which the
// webhook-secrets and suppression-keys migration steps use: at KMS_ENDPOINT (the KMS emulator)
// when that is set, else in AWS through awsCfg (nil: a local table, whose
// key can only be the emulator's). Without KMS_KEY_ID there is none.
func sealerOption(cfg app.Config, awsCfg *aws.Config) ([]dynamo.Option, error) {
	if cfg.KMSKeyID == "" {
		return nil, nil
	}
	var client *kms.Client
	switch {
	case cfg.KMSEndpoint != "":
		c, err := kmssecrets.NewClient(cfg.KMSEndpoint)
		if err != nil {
			return nil, err
		}
		client = c
	case awsCfg != nil:
		client = kms.NewFromConfig(*awsCfg)
	default:
		return nil, errors.New("KMS_KEY_ID with DYNAMODB_ENDPOINT needs KMS_ENDPOINT: a local table's secrets are sealed by the KMS emulator")
	}
	// The suppression-keys step rekeys with the stack's suppression key,
	// and whatever the CLI suppresses is keyed as the functions key it.
	return []dynamo.Option{dynamo.WithSealer(sealed.New(kmskey.New(client, cfg.KMSKeyID), sealed.DefaultLimits)),
		dynamo.WithSuppressionKey(sealed.New(kmskey.NewSuppression(client, cfg.KMSKeyID), sealed.DefaultLimits))}, nil
}

// describe renders an error with its field details.
func describe(err error) string {
	var e *gifting.Error
	msg := err.Error()
	if ok := asError(err, &e); ok && len(e.Details) > 0 {
		var parts []string
		for k, v := range e.Details {
			parts = append(parts, k+" "+v)
		}
		msg += " (" + strings.Join(parts, "; ") + ")"
	}
	return msg
}
