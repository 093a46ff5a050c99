// Package testenv gives tests a real DynamoDB Local table of their own, and
// organizations and API keys in it. `make test` starts DynamoDB Local and
// sets DYNAMODB_ENDPOINT; every test gets a fresh table, so tests run in
// parallel without seeing each other's data.
package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/streams"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/webhooks"
)

var (
	clientOnce sync.Once
	client     *dynamodb.Client
	clientErr  error
)

// Client returns a client for the DynamoDB Local of this test run.
func Client(t testing.TB) *dynamodb.Client {
	t.Helper()
	endpoint := localstack.NeedEnv(t, "DYNAMODB_ENDPOINT", "DynamoDB Local")
	clientOnce.Do(func() { client, clientErr = app.NewDynamoDB(context.Background(), endpoint) })
	if clientErr != nil {
		t.Fatal(clientErr)
	}
	return client
}

// Table creates a fresh table from template.yaml and returns its name. It
// is deleted when the test ends.
func Table(t testing.TB) string {
	t.Helper()
	c := Client(t)
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	name := "t-" + strings.ToLower(gifting.NewID())
	if err := localstack.CreateTable(context.Background(), c, root, name, localstack.WithoutStream()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: &name})
	})
	return name
}

// Store returns a store over a fresh table, with the service catalog
// seeded, keying suppressions as the functions' stores do (SuppressionKey;
// opts may replace it).
func Store(t testing.TB, opts ...dynamo.Option) *dynamo.Store {
	t.Helper()
	s := dynamo.New(Client(t), Table(t), append([]dynamo.Option{SuppressionKey(t)}, opts...)...)
	if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s
}

// Org creates an organization with credits and returns its id and an API
// key for it. When the test ends, the organization's ledger must sum to its
// balance (AssertLedgerBalanced), so every test that moves credits ends
// with that check.
func Org(t testing.TB, s *dynamo.Store, id string, credits int64) (orgID, apiKey string) {
	t.Helper()
	ctx := context.Background()
	org, _, err := access.NewApp(s).CreateOrg(ctx, access.NewOrg{OrgID: id, Name: "Org " + id, Domain: id + ".example.com", Credits: credits})
	if err != nil {
		t.Fatal(err)
	}
	// A store of its own: the test's may wrap a client that fails or counts.
	t.Cleanup(func() { AssertLedgerBalanced(t, dynamo.New(Client(t), s.Table()), org.OrgID) })
	key, _, err := s.CreateAPIKey(ctx, org.OrgID, "user-"+id, "test")
	if err != nil {
		t.Fatal(err)
	}
	return org.OrgID, key
}

// Quiet is a logger that drops everything, for handlers under test.
var Quiet = slog.New(slog.DiscardHandler)

// API is a test client for the service's handler.
type API struct {
	t       testing.TB
	Handler http.Handler
	Key     string
	// Jobs is the in-process queue of background work (launches, audience
	// builds); Jobs.Wait() blocks until it is all done.
	Jobs *jobs.Local
	// Mail holds the emails the service sent (invitations).
	Mail *mail.Memory
	// Scheduler runs ticks over the same store and job handler, as the
	// worker's schedule does; tests call its Tick.
	Scheduler *scheduler.Scheduler
	// Service is the use cases behind Handler (webhook deliveries read
	// the table's stream into it: StreamChanges).
	Service *service.Service
}

// StreamChanges reads s's table stream into svc's webhook deliveries, as
// the local runner does, until the test ends.
func StreamChanges(t testing.TB, s *dynamo.Store, svc *service.Service) {
	t.Helper()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if err := localstack.EnableStream(context.Background(), Client(t), root, s.Table()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	r := &streams.Reader{DB: Client(t), Streams: streams.NewClient(os.Getenv("DYNAMODB_ENDPOINT")), Table: s.Table(),
		Every: 20 * time.Millisecond, Log: Quiet,
		Handle: app.DeliverChange(svc)}
	go func() {
		defer close(done)
		if err := r.Run(ctx); err != nil {
			t.Errorf("stream reader: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// NewAPI serves every group over s and calls it with key.
func NewAPI(t testing.TB, s *dynamo.Store, key string) *API {
	api, start := HeldAPI(t, s, key)
	start()
	return api
}

// HeldAPI is NewAPI with its background jobs held until start is called, so
// a test can look at work while it is pending (a launch preparing, an
// audience list-building) and change things under it.
func HeldAPI(t testing.TB, s *dynamo.Store, key string) (api *API, start func()) {
	queue := jobs.NewLocal(Quiet)
	mailer := &mail.Memory{}
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: Quiet, Jobs: Calls.Queue(queue), Mailer: mailer,
		Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: Secrets(t), Codes: CodeSecrets(t), Files: Files(t)})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: Quiet, Docs: apidocs.New(httpapi.OpenAPIJSON())})
	api = HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	api.Jobs, api.Mail, api.Scheduler, api.Service = queue, mailer, scheduler.New(s, svc.RunJob, Quiet), svc
	return api, func() { queue.Start(Calls.Runner(svc.RunJob)) }
}

// SetCampaignStatus forces a campaign's state in the table, bypassing the
// state machine (a draft completed, a campaign live without a launch).
func SetCampaignStatus(t testing.TB, s *dynamo.Store, orgID, campaignID string, st campaign.Status) {
	t.Helper()
	_, err := Client(t).UpdateItem(context.Background(), &dynamodb.UpdateItemInput{
		TableName: aws.String(s.Table()),
		Key: map[string]types.AttributeValue{
			"PK": &types.AttributeValueMemberS{Value: "ORG#" + orgID},
			"SK": &types.AttributeValueMemberS{Value: "CAMPAIGN#" + campaignID},
		},
		UpdateExpression:          aws.String("SET #st = :st"),
		ExpressionAttributeNames:  map[string]string{"#st": "status"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":st": &types.AttributeValueMemberS{Value: string(st)}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// HandlerAPI calls h with key.
func HandlerAPI(t testing.TB, h http.Handler, key string) *API {
	return &API{t: t, Handler: h, Key: key}
}

// WithKey returns a client of the same handler with another key.
func (a *API) WithKey(key string) *API {
	return &API{t: a.t, Handler: a.Handler, Key: key, Jobs: a.Jobs, Mail: a.Mail, Scheduler: a.Scheduler, Service: a.Service}
}

// Response is a recorded response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map decodes the body as a JSON object.
func (r Response) Map(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	r.JSON(t, &m)
	return m
}

// Do sends a request; body is encoded as JSON unless it is a string or nil.
func (a *API) Do(method, path string, body any, headers ...string) Response {
	a.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		raw = buf
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.Key != "" {
		req.Header.Set("x-api-key", a.Key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	a.Handler.ServeHTTP(rec, req.Clone(req.Context()))
	if Validate != nil {
		// The handler read the body; the validator reads it again.
		req.Body = io.NopCloser(bytes.NewReader(raw))
		Validate(a.t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	}
	return Response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// Validate checks every exchange the tests make through API.Do. It is
// ValidateContract, so every response any test receives is checked against
// the API document; a test of something the document cannot describe may
// replace it.
var Validate func(t testing.TB, req *http.Request, status int, header http.Header, body []byte) = ValidateContract

// CountItems counts the items of orgID's partition whose sort key starts
// with prefix (a strongly consistent read of the table).
func CountItems(t testing.TB, s *dynamo.Store, orgID, prefix string) int {
	t.Helper()
	out, err := Client(t).Query(context.Background(), &dynamodb.QueryInput{
		TableName:              aws.String(s.Table()),
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, ":p": &types.AttributeValueMemberS{Value: prefix},
		},
		Select: types.SelectCount, ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(out.Count)
}
