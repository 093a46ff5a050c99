package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/giftcampaign/service/infra/rie"
	"github.com/giftcampaign/service/shared/httpapi"
)

// functionGroups are the functions under functions/ that serve HTTP.
func functionGroups() []string {
	var out []string
	for _, g := range httpapi.Groups {
		out = append(out, g.String())
	}
	return out
}

// binarySize is the size of one function's Lambda bootstrap.
type binarySize struct {
	function string
	bytes    int64
	err      error
}

// binarySizes reads bin/<function>/bootstrap for every function under
// functions/, as `make bin` builds them (linux/arm64, -s -w, lambda.norpc).
func binarySizes(root string) []binarySize {
	dirs, _ := filepath.Glob(filepath.Join(root, "functions", "*"))
	var out []binarySize
	for _, d := range dirs {
		name := filepath.Base(d)
		fi, err := os.Stat(filepath.Join(root, "bin", name, "bootstrap"))
		if err != nil {
			out = append(out, binarySize{function: name, err: errors.New("not built: run `make bin`")})
			continue
		}
		out = append(out, binarySize{function: name, bytes: fi.Size()})
	}
	return out
}

// coldStart is a function's measured cold start.
type coldStart struct {
	function string
	route    string
	// median and runs are process start → first answer; initMedian is the
	// part before the function first asked for an event (Go's start, its
	// configuration and clients).
	median, initMedian time.Duration
	runs               []time.Duration
	err                error
}

// buildHostFunction builds a function for this machine with the Lambda build's flags (the Makefile's,
// as the RIE test builds it), into dir.
func buildHostFunction(ctx context.Context, root, dir, function string) (string, error) {
	built, err := rie.Build(ctx, root, dir, []rie.Function{{Name: function}})
	if err != nil {
		return "", err
	}
	return built[function], nil
}

// coldStartOnce starts the function binary once against a Lambda Runtime
// API of our own, which hands it one API Gateway request for rq sent with
// key, and returns the time from starting the process to receiving the
// function's answer, and the part of it before the function asked for its
// first event. The function reaches the benchmark's table in DynamoDB
// Local, whose key item and data exist.
func coldStartOnce(ctx context.Context, e *env, binary, key string, rq call) (took, init time.Duration, err error) {
	event, err := apiGatewayEvent(key, rq)
	if err != nil {
		return 0, 0, err
	}
	rt, err := startRuntimeAPI(event)
	if err != nil {
		return 0, 0, err
	}
	defer rt.close()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary)
	cmd.Env = append(os.Environ(),
		"AWS_LAMBDA_RUNTIME_API="+rt.addr,
		"TABLE_NAME="+e.table,
		"DYNAMODB_ENDPOINT="+e.endpoint,
		"PUBLIC_BASE_URL=https://gifts.example.com",
		"LOG_LEVEL=INFO",
		"JOBS_QUEUE_URL=",
	)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Kill()
		<-exited
	}()
	select {
	case err := <-exited:
		exited <- err
		return 0, 0, fmt.Errorf("function exited before answering (%v): %.500s", err, stderr.String())
	case a := <-rt.answers:
		took := time.Since(start)
		if a.err != nil {
			return 0, 0, a.err
		}
		if a.status != http.StatusOK {
			return 0, 0, fmt.Errorf("first answer: status %d", a.status)
		}
		return took, rt.firstPoll.Sub(start), nil
	case <-ctx.Done():
		return 0, 0, fmt.Errorf("no answer within 30 s: %w", ctx.Err())
	}
}

// apiGatewayEvent is the HTTP API (payload 2.0) event of rq.
func apiGatewayEvent(key string, rq call) ([]byte, error) {
	u, err := url.Parse(rq.path)
	if err != nil {
		return nil, err
	}
	query := map[string]string{}
	for k, v := range u.Query() {
		query[k] = strings.Join(v, ",")
	}
	ev := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "$default", RawPath: u.Path, RawQueryString: u.RawQuery,
		Headers:               map[string]string{"x-api-key": key, "accept": "application/json"},
		QueryStringParameters: query,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey: "$default", AccountID: "000000000000", Stage: "$default", RequestID: "bench-cold-start",
			APIID: "bench", DomainName: "bench.local", TimeEpoch: time.Now().UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: rq.method, Path: u.Path, Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: "bench",
			},
		},
	}
	if rq.body != nil {
		b, err := json.Marshal(rq.body)
		if err != nil {
			return nil, err
		}
		ev.Body = string(b)
		ev.Headers["content-type"] = "application/json"
	}
	return json.Marshal(ev)
}

// runtimeAPI is the part of the Lambda Runtime API a Go function uses:
// it hands out one event and reports the function's answer.
type runtimeAPI struct {
	addr    string
	srv     *http.Server
	answers chan answer
	once    sync.Once
	// firstPoll is when the function first asked for an event; it is
	// written before the answer is sent on answers.
	firstPoll time.Time
}

type answer struct {
	status int
	err    error
}

func startRuntimeAPI(event []byte) (*runtimeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rt := &runtimeAPI{addr: ln.Addr().String(), answers: make(chan answer, 4)}
	const prefix = "/2018-06-01/runtime/"
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prefix+"invocation/next", func(w http.ResponseWriter, r *http.Request) {
		first := false
		rt.once.Do(func() { first, rt.firstPoll = true, time.Now() })
		if !first {
			// One event per start: later polls wait until the process is
			// stopped.
			<-r.Context().Done()
			return
		}
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", "bench-invocation")
		w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(29*time.Second).UnixMilli(), 10))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:000000000000:function:bench")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(event)
	})
	mux.HandleFunc("POST "+prefix+"invocation/{id}/response", func(w http.ResponseWriter, r *http.Request) {
		var res events.APIGatewayV2HTTPResponse
		body, _ := io.ReadAll(r.Body)
		err := json.Unmarshal(body, &res)
		w.WriteHeader(http.StatusAccepted)
		rt.answers <- answer{status: res.StatusCode, err: err}
	})
	mux.HandleFunc("POST "+prefix+"invocation/{id}/error", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		rt.answers <- answer{err: fmt.Errorf("function error: %.300s", body)}
	})
	mux.HandleFunc("POST "+prefix+"init/error", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.WriteHeader(http.StatusAccepted)
		rt.answers <- answer{err: fmt.Errorf("init error: %.300s", body)}
	})
	rt.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = rt.srv.Serve(ln) }()
	return rt, nil
}

func (rt *runtimeAPI) close() { _ = rt.srv.Close() }
