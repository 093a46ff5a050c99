// Package rie runs the service's real Lambda artifacts, each function's bootstrap, under AWS's Lambda
// Runtime Interface Emulator (the aws-lambda-rie command, which `make tools` installs under .tools/bin),
// with the environment template.yaml gives the function, and invokes them with the events under events/.
// The RIE test (make test) and the init durations of `make bench` both start functions through Start.
package rie

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Binary returns the path of the emulator under root's .tools/bin, or an error that says how to install
// it, or why it cannot run here.
func Binary(root string) (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("the Lambda Runtime Interface Emulator runs on Linux only (this is %s)", runtime.GOOS)
	}
	path := filepath.Join(root, ".tools", "bin", "aws-lambda-rie")
	if _, err := os.Stat(path); err != nil {
		return "", fmt.Errorf("the Lambda Runtime Interface Emulator is not installed (no %s): `make tools` installs it", path)
	}
	return path, nil
}

// Process is one bootstrap running under its own emulator process, as one Lambda execution
// environment: the emulator starts the bootstrap at the first invocation (the init phase) and hands it
// one event at a time.
type Process struct {
	cmd  *exec.Cmd
	addr string
	out  *logBuffer
	// exited is closed when the emulator process has ended; waitErr is its exit status then.
	exited  chan struct{}
	waitErr error
	client  *http.Client
}

// Spec is what Start runs: the emulator, the bootstrap, and the function's whole environment. The
// emulator hands its own environment to the bootstrap, so Env is all the function sees: nothing of the
// caller's environment leaks in.
type Spec struct {
	Emulator  string
	Bootstrap string
	Env       map[string]string
}

// startAttempts bounds the retries when a free port chosen for the emulator is taken before it binds.
const startAttempts = 5

// Start starts the emulator for spec on free loopback ports and returns once it accepts invocations.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	var last error
	for range startAttempts {
		f, err := start(ctx, spec)
		if err == nil {
			return f, nil
		}
		last = err
		if !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, last
}

func start(ctx context.Context, spec Spec) (*Process, error) {
	invokePort, err := freePort()
	if err != nil {
		return nil, err
	}
	apiPort, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(invokePort)
	// Both of the emulator's listeners on loopback: by default it serves invocations on 0.0.0.0:8080.
	cmd := exec.Command(spec.Emulator,
		"--runtime-interface-emulator-address", addr,
		"--runtime-api-address", "127.0.0.1:"+strconv.Itoa(apiPort),
		spec.Bootstrap)
	cmd.Dir = filepath.Dir(spec.Bootstrap)
	cmd.Env = make([]string, 0, len(spec.Env))
	for k, v := range spec.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out := &logBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so Close stops the bootstrap the emulator started along with it.
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Emulator, err)
	}
	f := &Process{cmd: cmd, addr: addr, out: out, exited: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{}}}
	go func() {
		f.waitErr = cmd.Wait()
		close(f.exited)
	}()
	if err := f.waitListening(ctx); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w; emulator output:\n%s", err, f.Logs())
	}
	return f, nil
}

// waitListening waits until the emulator accepts connections on its invocation address.
func (f *Process) waitListening(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", f.addr)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-f.exited:
			return fmt.Errorf("the emulator exited before it listened (%v)", f.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("the emulator does not listen on %s: %w", f.addr, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Answer is the emulator's answer to one invocation: its HTTP status (200 for every answer the function
// gave, errors included) and the function's response payload, or its error document
// ({"errorMessage":…,"errorType":…}) when the handler returned an error or the process died.
type Answer struct {
	Status  int
	Payload []byte
}

// FunctionError is the error document's type when the function failed, else "".
func (a Answer) FunctionError() string {
	var doc struct {
		ErrorType    string `json:"errorType"`
		ErrorMessage string `json:"errorMessage"`
	}
	if err := json.Unmarshal(a.Payload, &doc); err != nil || (doc.ErrorType == "" && doc.ErrorMessage == "") {
		return ""
	}
	return strings.TrimSpace(doc.ErrorType + ": " + doc.ErrorMessage)
}

// Invoke sends event to the function, as Lambda's Invoke API does (RequestResponse), and returns the
// answer.
func (f *Process) Invoke(ctx context.Context, event []byte) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+f.addr+"/2015-03-31/functions/function/invocations", bytes.NewReader(event))
	if err != nil {
		return Answer{}, err
	}
	res, err := f.client.Do(req)
	if err != nil {
		return Answer{}, fmt.Errorf("invoke: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return Answer{}, fmt.Errorf("invoke: read the answer: %w", err)
	}
	return Answer{Status: res.StatusCode, Payload: body}, nil
}

// initReport is the line the emulator's runtime core logs when the init phase ends: from starting the
// bootstrap to its first request for an event. (The REPORT line's "Init Duration" of this emulator
// times only the hand-off of the init request, a fraction of a millisecond, so it is not used.)
var initReport = regexp.MustCompile(`INIT REPORT\(durationMs: ([0-9.]+)\)`)

// InitDuration is the init phase's duration from the emulator's INIT REPORT line, which it prints once
// the first invocation has started the bootstrap and the bootstrap asked for its first event. It waits
// for the line (the emulator's output arrives through a pipe) until ctx ends or the emulator exits.
func (p *Process) InitDuration(ctx context.Context) (time.Duration, error) {
	for {
		if m := initReport.FindStringSubmatch(p.out.String()); m != nil {
			ms, err := strconv.ParseFloat(m[1], 64)
			return time.Duration(ms * float64(time.Millisecond)), err
		}
		select {
		case <-p.exited:
			return 0, fmt.Errorf("the emulator exited (%v) without an INIT REPORT line", p.waitErr)
		case <-ctx.Done():
			return 0, fmt.Errorf("no INIT REPORT line from the emulator: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Logs is everything the emulator and the function wrote so far.
func (f *Process) Logs() string { return f.out.String() }

// Close stops the emulator and the bootstrap and waits for the emulator to exit.
func (f *Process) Close() {
	select {
	case <-f.exited:
		return
	default:
	}
	killGroup(f.cmd)
	select {
	case <-f.exited:
	case <-time.After(5 * time.Second):
	}
}

// freePort returns a TCP port on loopback that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// logBuffer is an io.Writer the emulator's stdout and stderr share, safe for reading while it writes.
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
