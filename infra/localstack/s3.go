package localstack

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// S3 is a running S3-compatible emulator (github.com/johannesboyne/gofakes3): the S3 API on Endpoint,
// path-style, with one bucket, Bucket, made at start. Its objects live in memory and go with it, as
// DynamoDB Local's tables do. The emulator does not check signatures, so presigned URLs made for it with
// any credentials work. Stop it when done.
type S3 struct {
	*process
	port int
}

// LocalBucket is the bucket of contact imports' uploads under make run and make test (IMPORTS_BUCKET).
const LocalBucket = "gift-campaigns-local-imports"

// Endpoint returns the URL S3 clients reach it at (S3_ENDPOINT), http://127.0.0.1:PORT.
func (s *S3) Endpoint() string { return "http://127.0.0.1:" + strconv.Itoa(s.port) }

// Bucket returns the bucket made at start (IMPORTS_BUCKET).
func (s *S3) Bucket() string { return LocalBucket }

// s3Binary returns the emulator as `make tools` installs it under root/.tools/bin.
func s3Binary(root string) (string, error) {
	bin := filepath.Join(root, ".tools", "bin", "gofakes3")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("the S3 emulator (no %s): %w", bin, ErrNotInstalled)
	}
	return bin, nil
}

// StartS3 starts the S3 emulator under root/.tools on port (0 picks a free one) with the imports bucket,
// and returns once the bucket answers, within about 30 seconds. ctx bounds the start only. Like the other
// emulators it lives in its own process group and, on Linux, dies with its caller.
func StartS3(ctx context.Context, root string, port int) (*S3, error) {
	bin, err := s3Binary(root)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return startOnPort(port, func(port int) (*S3, error) { return startS3(ctx, bin, port) })
}

func startS3(ctx context.Context, bin string, port int) (*S3, error) {
	cmd := exec.Command(bin, "-host", "127.0.0.1:"+strconv.Itoa(port), "-backend", "memory",
		"-initialbucket", LocalBucket, "-quiet")
	p, err := startProcess("S3 emulator", cmd)
	if err != nil {
		return nil, err
	}
	s := &S3{process: p, port: port}
	if err := s.waitReady(ctx); err != nil {
		tail := s.logTail()
		_ = s.Stop()
		return nil, fmt.Errorf("start the S3 emulator on port %d: %w%s", port, err, tail)
	}
	return s, nil
}

// waitReady polls HeadBucket (an unsigned HEAD, which the emulator accepts) until the bucket answers,
// the process exits, or ctx ends.
func (s *S3) waitReady(ctx context.Context) error {
	return s.process.waitReady(ctx, "HeadBucket", s.headBucket)
}

func (s *S3) headBucket(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, s.Endpoint()+"/"+LocalBucket, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HeadBucket: %s", resp.Status)
	}
	return nil
}
