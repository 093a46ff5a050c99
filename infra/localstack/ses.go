package localstack

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// SES is a running SES v2 emulator (the npm package aws-ses-v2-local): the SES v2 SendEmail API on
// Endpoint, which keeps every email it receives in memory, and a web page on the same address where a
// developer reads them. Stop it when done.
type SES struct {
	*process
	port int
}

// Endpoint returns the URL that SES clients (SES_ENDPOINT) and a browser reach it at,
// http://127.0.0.1:PORT.
func (s *SES) Endpoint() string {
	return "http://127.0.0.1:" + strconv.Itoa(s.port)
}

// sesCLI returns the emulator's entry point as `make tools` installs it under root/.tools.
func sesCLI(root string) (string, error) {
	cli := filepath.Join(root, ".tools", "node_modules", "aws-ses-v2-local", "dist", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		return "", fmt.Errorf("the SES emulator (no %s): %w", cli, ErrNotInstalled)
	}
	return cli, nil
}

// StartSES starts the SES v2 emulator under root/.tools with node, on 127.0.0.1:port (0 picks a free
// port), and returns once it answers its health check, within about 30 seconds. ctx bounds the start
// only; the process runs until Stop. Like DynamoDB Local it lives in its own process group and, on
// Linux, dies with its caller.
func StartSES(ctx context.Context, root string, port int) (*SES, error) {
	cli, err := sesCLI(root)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("node"); err != nil {
		return nil, fmt.Errorf("node not found on PATH: the SES emulator needs Node.js 18+")
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return startOnPort(port, func(port int) (*SES, error) { return startSES(ctx, cli, port) })
}

// startSES starts the emulator on port and waits until it answers.
func startSES(ctx context.Context, cli string, port int) (*SES, error) {
	cmd := exec.Command("node", cli, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	// The emulator forwards mail to an SMTP server when SMTP_TRANSPORT is set; locally nothing leaves.
	cmd.Env = append(os.Environ(), "SMTP_TRANSPORT=")
	p, err := startProcess("SES emulator", cmd)
	if err != nil {
		return nil, err
	}
	s := &SES{process: p, port: port}
	if err := s.waitReady(ctx); err != nil {
		tail := s.logTail()
		_ = s.Stop()
		return nil, fmt.Errorf("start the SES emulator on port %d: %w%s", port, err, tail)
	}
	return s, nil
}

// waitReady polls the emulator's health check until it answers, the process exits, or ctx ends.
func (s *SES) waitReady(ctx context.Context) error {
	return s.process.waitReady(ctx, "the health check", func(ctx context.Context) error { return sesHealthy(ctx, s.Endpoint()) })
}

func sesHealthy(ctx context.Context, endpoint string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/health-check", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("health check: %s", resp.Status)
	}
	return nil
}

// Email is one email as the SES emulator received it.
type Email struct {
	MessageID   string   `json:"messageId"`
	From        string   `json:"from"`
	ReplyTo     []string `json:"replyTo"`
	Destination struct {
		To  []string `json:"to"`
		Cc  []string `json:"cc"`
		Bcc []string `json:"bcc"`
	} `json:"destination"`
	Subject string `json:"subject"`
	Body    struct {
		HTML string `json:"html"`
		Text string `json:"text"`
	} `json:"body"`
	Headers []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"headers"`
	// At is when it arrived, in Unix seconds.
	At int64 `json:"at"`
}

// Header returns the value of the header name, or "" when the email has none.
func (e Email) Header(name string) string {
	for _, h := range e.Headers {
		if http.CanonicalHeaderKey(h.Name) == http.CanonicalHeaderKey(name) {
			return h.Value
		}
	}
	return ""
}

// SESEndpoint returns the SES emulator of this test run (SES_ENDPOINT, which `make test` sets), failing
// the test when there is none.
func SESEndpoint(t testing.TB) string {
	t.Helper()
	return NeedEnv(t, "SES_ENDPOINT", "the SES emulator")
}

// ReadEmails returns every email the SES emulator at endpoint has received (GET /store), oldest first.
// The emulator is shared by the whole test run, so a test picks its own emails out by recipient or
// message id.
func ReadEmails(t testing.TB, endpoint string) []Email {
	t.Helper()
	emails, err := FetchEmails(context.Background(), endpoint, 0)
	if err != nil {
		t.Fatal(err)
	}
	return emails
}

// FetchEmails returns the emails the SES emulator at endpoint received at or after since (Unix seconds;
// 0 for all of them), oldest first.
func FetchEmails(ctx context.Context, endpoint string, since int64) ([]Email, error) {
	u := endpoint + "/store"
	if since > 0 {
		u += "?since=" + strconv.FormatInt(since, 10)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("read the SES emulator's emails: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("read the SES emulator's emails: %s", resp.Status)
	}
	var store struct {
		Emails []Email `json:"emails"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&store); err != nil {
		return nil, fmt.Errorf("decode the SES emulator's emails: %w", err)
	}
	return store.Emails, nil
}
