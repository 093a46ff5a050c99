package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/service"
)

// env is one benchmark run's service: a fresh table in DynamoDB Local, the
// store over a metered client, and every group's handler behind a real HTTP
// server on a loopback port, as the local server serves them.
type env struct {
	root     string
	endpoint string
	table    string
	// client reaches DynamoDB directly: setup, and the bare replays.
	client *dynamodb.Client
	meter  *meter.Meter
	bill   *billing
	store  *dynamo.Store
	svc    *service.Service
	queue  *jobs.Local
	base   string
	http   *http.Client
	srv    *http.Server
	// last is the usage of the request the server received last; calls
	// measured one at a time read their own counts from it.
	last atomic.Pointer[meter.Usage]
	// inflight counts requests the server is handling.
	inflight atomic.Int64
}

// newEnv creates the table, seeds the service catalog and starts the
// server.
func newEnv(ctx context.Context) (*env, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return nil, fmt.Errorf("DYNAMODB_ENDPOINT is not set: run `make bench`, which starts DynamoDB Local")
	}
	root, err := localstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	client, err := app.NewDynamoDB(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	// The stack's secrets key, when make bench started the KMS emulator:
	// the endpoints that seal or open a secret (an EasyPost tracking
	// event, a digital gift's codes) are measured with it.
	var cfg envConfig
	if os.Getenv("KMS_ENDPOINT") != "" {
		secrets, err := benchSecrets()
		if err != nil {
			return nil, err
		}
		cfg.service.Secrets = secrets
		if cfg.service.Codes, err = benchCodeSecrets(); err != nil {
			return nil, err
		}
	}
	return newTableEnv(ctx, root, endpoint, client, cfg)
}

// envConfig is what a scenario's env adds to the default one: store
// options (a clock), the service's optional adapters (a mailer, the
// webhook policy) and the table's stream.
type envConfig struct {
	store   []dynamo.Option
	service service.Config
	// stream gives the table its stream, as template.yaml declares it.
	stream bool
}

// sibling returns an env of its own, with cfg, over a fresh table of the
// same DynamoDB Local: for a scenario that must not see what others left
// in the shared table (due items, change records). Close it when done.
func (e *env) sibling(ctx context.Context, cfg envConfig) (*env, error) {
	return newTableEnv(ctx, e.root, e.endpoint, e.client, cfg)
}

// newTableEnv creates a table, seeds the service catalog and starts the
// server over it.
func newTableEnv(ctx context.Context, root, endpoint string, client *dynamodb.Client, cfg envConfig) (*env, error) {
	table := "bench-" + strings.ToLower(gifting.NewID())
	var opts []localstack.TableOption
	if !cfg.stream {
		// DynamoDB Local keeps a stream of every change of a table that
		// has one: after the 10,000-contact chain, every later scenario
		// ran several times slower. In AWS a stream costs the writes
		// nothing, so only the scenario that reads it has one.
		opts = append(opts, localstack.WithoutStream())
	}
	if err := localstack.CreateTable(ctx, client, root, table, opts...); err != nil {
		return nil, err
	}
	e := &env{root: root, endpoint: endpoint, table: table, client: client, meter: meter.New(client)}
	e.store = dynamo.New(e.meter, table, cfg.store...)
	var err error
	if e.bill, err = newBilling(e); err != nil {
		return nil, err
	}
	if _, err := seed.SeedCatalog(ctx, e.store); err != nil {
		return nil, err
	}
	// The request log is formatted as deployed, then dropped: its cost is
	// part of every request, its output would drown the report.
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	e.queue = jobs.NewLocal(log)
	sc := cfg.service
	sc.PublicBaseURL, sc.Logger, sc.Jobs = "https://gifts.example.com", log, e.queue
	e.svc = service.New(e.store, sc)
	// The endpoint figures are "API key cache warm" (the request targets of
	// docs/performance.md assume a cache hit): the cache outlives the run, so a
	// key read again when its 30 s expire does not land in a measured call.
	srv := httpapi.NewServer(e.store, e.svc, httpapi.Config{Logger: log, KeyCacheTTL: time.Hour})
	e.queue.Start(e.svc.RunJob)
	h := srv.Handler(httpapi.Groups...)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	e.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == emptyPath {
			// The floor of every API figure: the same client, server and
			// loopback, and no service.
			w.WriteHeader(http.StatusNoContent)
			return
		}
		// The usage is published before the handler runs: every DynamoDB
		// call of a request ends before its response is complete.
		e.inflight.Add(1)
		defer e.inflight.Add(-1)
		u := &meter.Usage{Record: true}
		e.last.Store(u)
		h.ServeHTTP(w, r.WithContext(meter.WithUsage(r.Context(), u)))
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	e.base = "http://" + ln.Addr().String()
	e.http = &http.Client{
		Transport: &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 512, DisableCompression: true},
	}
	return e, nil
}

// emptyPath is answered by the benchmark's server itself, without the
// service.
const emptyPath = "/bench/empty"

// idle waits until the server handles no request, at most wait; it
// reports whether it got there.
func (e *env) idle(wait time.Duration) bool {
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if e.inflight.Load() == 0 {
			return true
		}
	}
	return false
}

// close stops the server and drops the table.
func (e *env) close() {
	if e.srv != nil {
		_ = e.srv.Close()
	}
	if e.queue != nil {
		e.queue.Wait()
	}
	_, _ = e.client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &e.table})
}

// tenant is an organization of the benchmark with its API key.
type tenant struct {
	orgID, key string
}

// newTenant creates an organization with credits and a key for it.
func (e *env) newTenant(ctx context.Context, id string, credits int64) (tenant, error) {
	org, _, err := access.NewApp(e.store).CreateOrg(ctx, access.NewOrg{OrgID: id, Name: "Bench " + id, Domain: id + ".example.com", Credits: credits})
	if err != nil {
		return tenant{}, fmt.Errorf("create org %s: %w", id, err)
	}
	// The benchmark calls the expensive endpoints far faster than any
	// tenant's budget allows: every class gets a budget it cannot reach,
	// so calls still pay for their counter but are never refused.
	limits := map[gifting.RateClass]int{}
	for class := range gifting.DefaultRateLimits {
		limits[class] = 1_000_000
	}
	if err := e.store.SetRateLimits(ctx, org.OrgID, limits); err != nil {
		return tenant{}, fmt.Errorf("rate limits of %s: %w", id, err)
	}
	key, _, err := e.store.CreateAPIKey(ctx, org.OrgID, "bench-user", "bench")
	if err != nil {
		return tenant{}, fmt.Errorf("create key for %s: %w", id, err)
	}
	return tenant{orgID: org.OrgID, key: key}, nil
}

// response is a received response.
type response struct {
	status int
	body   []byte
}

// decode reads the body as JSON into v.
func (r response) decode(v any) error {
	if err := json.Unmarshal(r.body, v); err != nil {
		return fmt.Errorf("decode %.200s: %w", r.body, err)
	}
	return nil
}

// do sends one request as t; body is encoded as JSON unless nil.
func (e *env) do(ctx context.Context, t tenant, method, path string, body any) (response, error) {
	var rd io.Reader
	var signature string
	switch b := body.(type) {
	case nil:
	case easyPostEvent:
		// Sent as its exact bytes, as EasyPost signed them.
		rd, signature = strings.NewReader(b.body), b.signature
	default:
		buf, err := json.Marshal(body)
		if err != nil {
			return response{}, err
		}
		rd = strings.NewReader(string(buf))
	}
	if _, ok := ctx.Deadline(); !ok {
		// No request of the benchmark should take this long; one that does
		// is reported, not waited for.
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, method, e.base+path, rd)
	if err != nil {
		return response{}, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("x-api-key", t.key)
	if signature != "" {
		req.Header.Set("X-Hmac-Signature", signature)
	}
	res, err := e.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return response{}, err
	}
	return response{status: res.StatusCode, body: b}, nil
}

// expect sends a request and fails unless the status is want.
func (e *env) expect(ctx context.Context, t tenant, want int, method, path string, body any) (response, error) {
	res, err := e.do(ctx, t, method, path, body)
	if err != nil {
		return res, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if res.status != want {
		return res, fmt.Errorf("%s %s: status %d, want %d: %.300s", method, path, res.status, want, res.body)
	}
	return res, nil
}
