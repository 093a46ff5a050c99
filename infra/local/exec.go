package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/giftcampaign/service/infra/iamcheck/calls"
	"github.com/giftcampaign/service/infra/localstack"
)

// runExec implements `exec -- CMD [ARGS]`: CMD runs with DYNAMODB_ENDPOINT set to a DynamoDB Local,
// SES_ENDPOINT to an SES v2 emulator, KMS_ENDPOINT to a KMS emulator whose key KMS_KEY_ID names and
// S3_ENDPOINT to an S3 emulator with the bucket IMPORTS_BUCKET names, all
// started for it alone on free ports and stopped when CMD ends, and AWS_CALLS_DIR to where the tests
// record their AWS calls. It returns CMD's exit code, or 128+N when a signal N ended CMD, as a shell does.
func runExec(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, "usage: go run ./infra/local exec -- CMD [ARGS]\n")
		return 2
	}
	// Signals are caught from here to the end, so that none ends this process with DynamoDB Local
	// still running.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)

	db, err := startDynamoDB()
	if err != nil {
		fmt.Fprintln(os.Stderr, "local exec:", err)
		return 1
	}
	defer func() {
		if err := db.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local exec:", err)
		}
	}()
	ses, err := startSES()
	if err != nil {
		fmt.Fprintln(os.Stderr, "local exec:", err)
		return 1
	}
	defer func() {
		if err := ses.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local exec:", err)
		}
	}()
	kms, err := startKMS()
	if err != nil {
		fmt.Fprintln(os.Stderr, "local exec:", err)
		return 1
	}
	defer func() {
		if err := kms.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local exec:", err)
		}
	}()
	s3, err := startS3()
	if err != nil {
		fmt.Fprintln(os.Stderr, "local exec:", err)
		return 1
	}
	defer func() {
		if err := s3.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "local exec:", err)
		}
	}()
	env := []string{localstack.RequireEnv + "=1", "DYNAMODB_ENDPOINT=" + db.Endpoint(), "SES_ENDPOINT=" + ses.Endpoint(),
		"KMS_ENDPOINT=" + kms.Endpoint(), "KMS_KEY_ID=" + kms.KeyID(), "S3_ENDPOINT=" + s3.Endpoint(), "IMPORTS_BUCKET=" + s3.Bucket()}
	// The tests record the AWS calls they make (infra/iamcheck/calls) in
	// the directory AWS_CALLS_DIR names: the caller's, which make test
	// keeps for the IAM check, or one of this run's own, removed after it.
	if os.Getenv(calls.DirEnv) == "" {
		dir, err := os.MkdirTemp("", "aws-calls-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "local exec:", err)
			return 1
		}
		defer func() { _ = os.RemoveAll(dir) }()
		env = append(env, calls.DirEnv+"="+dir)
	}
	return execWith(env, args, signals)
}

// startKMS starts the KMS emulator with a new key on a free port, giving up on SIGINT or SIGTERM.
func startKMS() (*localstack.KMS, error) {
	root, err := localstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return localstack.StartKMS(ctx, root, 0)
}

// startS3 starts the S3 emulator with the imports bucket on a free port, giving up on SIGINT or SIGTERM.
func startS3() (*localstack.S3, error) {
	root, err := localstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return localstack.StartS3(ctx, root, 0)
}

// startDynamoDB starts DynamoDB Local on a free port, giving up on SIGINT or SIGTERM.
func startDynamoDB() (*localstack.DynamoDB, error) {
	root, err := localstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return localstack.StartDynamoDB(ctx, root, 0)
}

// startSES starts the SES v2 emulator on a free port, giving up on SIGINT or SIGTERM.
func startSES() (*localstack.SES, error) {
	root, err := localstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return localstack.StartSES(ctx, root, 0)
}

// execWith runs args with stdio passed through and env added to the environment, and returns its exit
// code. A signal that reaches this process is passed on to the command; a second one kills it.
// A terminal's Ctrl-C reaches the command directly as well, since it stays in this process group to
// keep its access to the terminal.
func execWith(env, args []string, signals <-chan os.Signal) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "local exec:", err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for received := 0; ; {
		select {
		case err := <-done:
			return exitCode(err)
		case sig := <-signals:
			received++
			if received > 1 {
				sig = os.Kill
			}
			_ = cmd.Process.Signal(sig)
		}
	}
}

// exitCode returns the exit code that a shell reports for a command that ended with err.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		fmt.Fprintln(os.Stderr, "local exec:", err)
		return 1
	}
	if status, ok := exitErr.Sys().(syscall.WaitStatus); ok && status.Signaled() {
		return 128 + int(status.Signal())
	}
	return exitErr.ExitCode()
}
