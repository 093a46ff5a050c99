package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// logBuffer collects what a server logs, for tests that look at the logs.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loggedAPI serves every group over s with a logger writing JSON to the
// returned buffer, at debug level so nothing is filtered out.
func loggedAPI(t *testing.T, s *dynamo.Store, key string) (*testenv.API, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := httpapi.NewServer(s, service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: log}),
		httpapi.Config{Logger: log, Docs: apidocs.New(httpapi.OpenAPIJSON())})
	return testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key), logs
}

// assertDetail checks a 400 VALIDATION_FAILED whose details name field.
func assertDetail(t *testing.T, res testenv.Response, field string) {
	t.Helper()
	assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
	var body struct {
		Details map[string]string `json:"details"`
	}
	res.JSON(t, &body)
	if body.Details[field] == "" {
		t.Errorf("details = %v, want one for %s", body.Details, field)
	}
}

// meterUsage is the meter's recording of calls (the tests below name
// their meter "meter").
type meterUsage = meter.Usage

// Defect 5: an id of 1,016 bytes or more made DynamoDB refuse the key, so
// every route answered 500 and logged the whole id.
func TestDefectLongIDsGive500(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	meter := meter.New(testenv.Client(t))
	s := dynamo.New(meter, testenv.Table(t))
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	_, key := testenv.Org(t, s, "acme", 1000)
	api, logs := loggedAPI(t, s, key)
	long := strings.Repeat("a", 1016)
	listID := createList(t, api, "Friends")
	campaignID := createCampaign(t, api, 10)

	paths := []struct{ name, method, path string }{
		{"campaign", "GET", "/api/campaigns/" + long},
		{"gift", "GET", "/api/campaigns/gifts/" + long},
		{"template", "GET", "/api/campaigns/templates/" + long},
		{"contact", "GET", "/api/campaigns/contacts/" + long},
		{"recipient", "GET", "/api/campaigns/campaigns/" + campaignID + "/recipients/" + long},
		{"event", "GET", "/api/campaigns/events/" + long},
		{"icp persona", "GET", "/api/campaigns/icp-personas/" + long},
		{"launch", "POST", "/api/campaigns/" + long + "/launch"},
		{"key separator", "GET", "/api/campaigns/contacts/a%23b"},
	}
	for _, tt := range paths {
		t.Run("path "+tt.name, func(t *testing.T) {
			api.Do("GET", "/api/campaigns/wallet", nil) // the key is cached from here on
			u := &meterUsage{Record: true}
			stop := meter.Observe(u)
			assertError(t, api.Do(tt.method, tt.path, nil), http.StatusNotFound, "NOT_FOUND")
			stop()
			// The call is counted in its organization's usage (one
			// UpdateItem of the USAGE# item, issue 34); nothing is read.
			for _, c := range u.Calls() {
				if in, ok := c.Input.(*dynamodb.UpdateItemInput); ok {
					if sk, ok := in.Key["SK"].(*types.AttributeValueMemberS); ok && strings.HasPrefix(sk.Value, "USAGE#") {
						continue
					}
				}
				t.Errorf("a %s for an id that cannot exist, want no request but the usage count", c.Op)
			}
		})
	}

	bodies := []struct {
		name, method, path string
		body               map[string]any
		field              string
	}{
		{"contactListIds", "POST", "/api/campaigns", map[string]any{"name": "x", "contactListIds": []string{listID, long}}, "contactListIds[1]"},
		{"giftIds", "POST", "/api/campaigns", map[string]any{"name": "x", "campaignData": map[string]any{"giftIds": []string{"gift-artisan-coffee", "gift-olive-oil", "gift-notebook-set", long}}}, "campaignData.giftIds[3]"},
		{"templateId", "POST", "/api/campaigns", map[string]any{"name": "x", "templateId": long}, "templateId"},
		{"emailTemplateId", "PATCH", "/api/campaigns/" + campaignID, map[string]any{"campaignData": map[string]any{"emailTemplateId": long}}, "campaignData.emailTemplateId"},
		{"contactIds", "POST", "/api/campaigns/contact-lists/" + listID + "/contacts", map[string]any{"contactIds": []string{long}}, "contactIds[0]"},
		{"campaignIds", "POST", "/api/campaigns/events/01JH8Z4Q1V6W3K2M9T5R7Y0EVT/campaigns", map[string]any{"campaignIds": []string{long}}, "campaignIds[0]"},
		{"icpId", "POST", "/api/campaigns/audience-lists", map[string]any{"name": "x", "icpId": long}, "icpId"},
		{"key separator", "POST", "/api/campaigns", map[string]any{"name": "x", "templateId": "TEMPLATE#x"}, "templateId"},
	}
	for _, tt := range bodies {
		t.Run("body "+tt.name, func(t *testing.T) {
			assertDetail(t, api.Do(tt.method, tt.path, tt.body), tt.field)
		})
	}

	t.Run("issued and seeded ids still work", func(t *testing.T) {
		for _, path := range []string{"/api/campaigns/gifts/gift-artisan-coffee", "/api/campaigns/templates/tmpl-meeting-booker", "/api/campaigns/" + campaignID} {
			if res := api.Do("GET", path, nil); res.Status != http.StatusOK {
				t.Errorf("GET %s: %d %s", path, res.Status, res.Body)
			}
		}
	})
	t.Run("no log line holds the id", func(t *testing.T) {
		if strings.Contains(logs.String(), strings.Repeat("a", 100)) {
			t.Errorf("the logs hold the attacker's id: %.300s…", logs.String())
		}
	})
}

// Defect 5, the log side: a long path reaches the request log clipped.
func TestDefectLongPathLogged(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	api, logs := loggedAPI(t, s, key)
	long := strings.Repeat("b", 100_000)
	assertError(t, api.Do("GET", "/api/campaigns/nothing-here/"+long, nil), http.StatusNotFound, "NOT_FOUND")
	out := logs.String()
	if !strings.Contains(out, `"path":"/api/campaigns/nothing-here/bbb`) || !strings.Contains(out, "(100000 bytes)") {
		t.Errorf("the request log should hold the clipped path: %.400s", out)
	}
	if len(out) > 2000 {
		t.Errorf("the logs of one request are %d bytes", len(out))
	}
}

// failingDB passes everything to DynamoDB Local until armed, then fails
// every call with err.
type failingDB struct {
	dynamo.DB
	mu  sync.Mutex
	err error
}

func (f *failingDB) arm(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *failingDB) fault() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func (f *failingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.DB.GetItem(ctx, in, opts...)
}

func (f *failingDB) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.DB.Query(ctx, in, opts...)
}

func (f *failingDB) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.DB.BatchGetItem(ctx, in, opts...)
}

func (f *failingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.DB.TransactWriteItems(ctx, in, opts...)
}

// assertUnavailable checks a 503 SERVICE_UNAVAILABLE with Retry-After.
func assertUnavailable(t *testing.T, res testenv.Response) {
	t.Helper()
	assertError(t, res, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	if res.Header.Get("Retry-After") == "" {
		t.Error("no Retry-After header")
	}
}

// Defect 6: DynamoDB unavailable or throttling gave 500 INTERNAL.
func TestDefectStoreUnavailableGives500(t *testing.T) {
	t.Parallel()
	t.Run("faults", func(t *testing.T) {
		t.Parallel()
		fake := &failingDB{DB: testenv.Client(t)}
		s := dynamo.New(fake, testenv.Table(t))
		if _, err := seed.SeedCatalog(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		_, key := testenv.Org(t, s, "acme", 100)
		api := testenv.NewAPI(t, s, key)
		campaignID := createCampaign(t, api, 10)
		faults := []struct {
			name string
			err  error
		}{
			{"throttling", &types.ThrottlingException{Message: aws.String("Rate of requests exceeds the allowed throughput.")}},
			{"provisioned throughput", &types.ProvisionedThroughputExceededException{Message: aws.String("exceeded")}},
			{"request limit", &types.RequestLimitExceeded{Message: aws.String("limit")}},
			{"internal server error", &types.InternalServerError{Message: aws.String("Internal server error")}},
			{"5xx", &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: http.StatusServiceUnavailable}}, Err: errors.New("ServiceUnavailable")}},
			{"connection refused", &smithyhttp.RequestSendError{Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connect: connection refused")}}},
		}
		for _, tt := range faults {
			t.Run(tt.name, func(t *testing.T) {
				fake.arm(tt.err)
				defer fake.arm(nil)
				assertUnavailable(t, api.Do("GET", "/api/campaigns/"+campaignID, nil))
				assertUnavailable(t, api.Do("GET", "/api/campaigns/campaigns", nil))
				assertUnavailable(t, api.Do("POST", "/api/campaigns/campaigns/"+campaignID+"/add-recipient", recipientBody("ada@example.com", "Ada")))
			})
		}
		t.Run("other errors stay internal", func(t *testing.T) {
			fake.arm(errors.New("something else"))
			defer fake.arm(nil)
			assertError(t, api.Do("GET", "/api/campaigns/"+campaignID, nil), http.StatusInternalServerError, "INTERNAL")
		})
	})

	t.Run("unreachable endpoint", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String()
		ln.Close()
		client, err := app.NewDynamoDB(context.Background(), closed)
		if err != nil {
			t.Fatal(err)
		}
		s := dynamo.New(client, "gift-campaigns")
		// A well-formed key: authenticating it is the first read.
		api := testenv.NewAPI(t, s, "gcs_"+strings.Repeat("A", 43))
		start := time.Now()
		assertUnavailable(t, api.Do("GET", "/api/campaigns/gifts", nil))
		took := time.Since(start)
		t.Logf("503 after %v (the SDK's retries)", took)
		if took > 15*time.Second {
			t.Errorf("the answer took %v", took)
		}
	})
}

// Defect 7: invalid UTF-8, lone surrogates and control characters were
// replaced or kept and stored.
func TestDefectInvalidUTF8Stored(t *testing.T) {
	t.Parallel()
	api, _ := newContactsAPI(t)
	listID := createList(t, api, "Friends")
	bad := []struct {
		name, path, body, field string
	}{
		{"invalid UTF-8", "/api/campaigns/contact-lists", "{\"name\":\"a\xffb\"}", "name"},
		{"lone high surrogate", "/api/campaigns/contact-lists", `{"name":"a\ud800b"}`, "name"},
		{"lone low surrogate", "/api/campaigns/contact-lists", `{"name":"a\udc00"}`, "name"},
		{"high surrogate at the end", "/api/campaigns/contact-lists", `{"name":"a","description":"x\ud83d"}`, "description"},
		{"NUL", "/api/campaigns/contact-lists", `{"name":"a\u0000b"}`, "name"},
		{"backspace escape", "/api/campaigns/contact-lists", `{"name":"a\bb"}`, "name"},
		{"unit separator", "/api/campaigns/contact-lists", `{"name":"x","description":"a\u001fb"}`, "description"},
		{"nested field", "/api/campaigns/contact-lists/" + listID + "/contacts", `{"contacts":[{"mailId":"a@example.com"},{"mailId":"b@example.com","firstName":"B\u0001"}]}`, "contacts[1].firstName"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			assertDetail(t, api.Do("POST", tt.path, tt.body), tt.field)
		})
	}
	res := api.Do("GET", "/api/campaigns/contact-lists", nil)
	var lists struct {
		Data struct {
			Items []map[string]any `json:"items"`
		} `json:"data"`
	}
	res.JSON(t, &lists)
	if len(lists.Data.Items) != 1 {
		t.Errorf("%d lists stored, want only the first one", len(lists.Data.Items))
	}

	good := []struct{ name, body string }{
		{"surrogate pair", `{"name":"smile \ud83d\ude00","description":"x"}`},
		{"tab, line feed, carriage return", `{"name":"a\tb","description":"line 1\r\nline 2"}`},
		{"escaped backslash before u", `{"name":"C:\\u0000 is a path","description":"x"}`},
		{"non-ASCII", `{"name":"Ελληνικά 日本語","description":"x"}`},
	}
	for _, tt := range good {
		t.Run(tt.name, func(t *testing.T) {
			if res := api.Do("POST", "/api/campaigns/contact-lists", tt.body); res.Status != http.StatusCreated {
				t.Errorf("status %d: %s", res.Status, res.Body)
			}
		})
	}
}

// Defect 7: a body sent as text/plain, or with no Content-Type, was parsed
// as JSON.
func TestDefectTextPlainParsedAsJSON(t *testing.T) {
	t.Parallel()
	api, s := newContactsAPI(t)
	body := `{"name":"Friends","description":"x"}`
	for _, tt := range []struct{ name, contentType string }{
		{"text/plain", "text/plain"},
		{"none", ""},
		{"form", "application/x-www-form-urlencoded"},
		{"another charset", "application/json; charset=latin1"},
	} {
		t.Run("refused "+tt.name, func(t *testing.T) {
			assertError(t, api.Do("POST", "/api/campaigns/contact-lists", body, "Content-Type", tt.contentType), http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
		})
	}
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8"} {
		t.Run("accepted "+ct, func(t *testing.T) {
			if res := api.Do("POST", "/api/campaigns/contact-lists", body, "Content-Type", ct); res.Status != http.StatusCreated {
				t.Errorf("status %d: %s", res.Status, res.Body)
			}
		})
	}
	t.Run("bodiless actions", func(t *testing.T) {
		orgID := "acme"
		id := draftCampaign(t, s, orgID)
		// No body and no Content-Type: the action runs (a draft cannot be
		// paused, so 409), it is not a 415.
		assertError(t, api.Do("POST", "/api/campaigns/"+id+"/pause", nil), http.StatusConflict, "CONFLICT")
		if res := api.Do("POST", "/api/campaigns/"+id+"/launch", nil); res.Status == http.StatusUnsupportedMediaType {
			t.Errorf("launch without a body: %d %s", res.Status, res.Body)
		}
	})
}

// Defect 9: an unknown key was looked up in DynamoDB on every request.
func TestDefectUnknownKeyReadEveryTime(t *testing.T) {
	t.Parallel()
	meter := meter.New(testenv.Client(t))
	s := dynamo.New(meter, testenv.Table(t))
	api := testenv.NewAPI(t, s, "")
	reads := func(key string, n int) int {
		t.Helper()
		before := meter.Total().Requests
		for range n {
			if res := api.WithKey(key).Do("GET", "/api/campaigns/wallet", nil); res.Status != http.StatusUnauthorized {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
		}
		return meter.Total().Requests - before
	}
	t.Run("well-formed unknown key is read once", func(t *testing.T) {
		if n := reads("gcs_"+strings.Repeat("A", 43), 20); n != 1 {
			t.Errorf("%d DynamoDB requests for 20 tries of one unknown key, want 1", n)
		}
	})
	t.Run("malformed key is never read", func(t *testing.T) {
		for _, key := range []string{"garbage", "gcs_short", strings.Repeat("k", 47), "gcs_" + strings.Repeat("!", 43), "gcs_" + strings.Repeat("x", 43)} {
			if n := reads(key, 3); n != 0 {
				t.Errorf("key %q: %d DynamoDB requests, want 0", key, n)
			}
		}
	})
}
