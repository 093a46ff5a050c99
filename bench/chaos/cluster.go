package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
)

// tableName is the run's table, on its own DynamoDB Local.
const tableName = "gift-campaigns-chaos"

// cluster is what the run starts: DynamoDB Local on disk, the SES emulator, the API processes and the
// front door in front of them, and the webhook receiver.
type cluster struct {
	root, dir string
	dbPort    int
	dbDir     string

	mu    sync.Mutex
	db    *localstack.DynamoDB // nil while killed
	ses   *localstack.SES
	kms   *localstack.KMS
	procs []*apiProc

	front *front
	hooks *receiver
	store *dynamo.Store
	// faults is the run's fault log: every kill and restart, with its time.
	faults faultLog
	// failed keeps the run's directory for a look at its logs.
	failed bool
}

// apiProc is one `local serve` process, on a port it keeps across restarts.
type apiProc struct {
	idx, port int
	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan struct{}
	starts    int
}

// startCluster starts everything but the load.
func startCluster(ctx context.Context, cfg config) (*cluster, error) {
	root, err := localstack.RepoRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", fmt.Sprintf("chaos-%d-", cfg.seed))
	if err != nil {
		return nil, err
	}
	c := &cluster{root: root, dir: dir, dbDir: filepath.Join(dir, "dynamodb")}
	if err := os.MkdirAll(c.dbDir, 0o755); err != nil {
		return nil, err
	}
	c.db, err = localstack.StartDynamoDBOnDisk(ctx, root, 0, c.dbDir)
	if err != nil {
		return nil, err
	}
	c.dbPort = c.db.Port()
	if c.ses, err = localstack.StartSES(ctx, root, 0); err != nil {
		c.close(false)
		return nil, err
	}
	if c.kms, err = localstack.StartKMS(ctx, root, 0); err != nil {
		c.close(false)
		return nil, err
	}
	if err := c.makeTable(ctx); err != nil {
		c.close(false)
		return nil, err
	}
	if c.hooks, err = newReceiver(cfg.seed); err != nil {
		c.close(false)
		return nil, err
	}
	c.front, err = newFront(c)
	if err != nil {
		c.close(false)
		return nil, err
	}
	for i := range cfg.procs {
		port, err := freePort()
		if err != nil {
			c.close(false)
			return nil, err
		}
		c.procs = append(c.procs, &apiProc{idx: i, port: port})
	}
	for _, p := range c.procs {
		if err := c.startProc(ctx, p); err != nil {
			c.close(false)
			return nil, err
		}
	}
	return c, nil
}

// makeTable creates the table from template.yaml and seeds the catalog, as `local serve` would, before
// any API process starts.
func (c *cluster) makeTable(ctx context.Context) error {
	client, err := app.NewDynamoDB(ctx, c.db.Endpoint())
	if err != nil {
		return err
	}
	if err := localstack.CreateTable(ctx, client, c.root, tableName); err != nil {
		return err
	}
	c.store = dynamo.New(client, tableName)
	_, err = seed.SeedCatalog(ctx, c.store)
	return err
}

func (c *cluster) dbEndpoint() string { return "http://127.0.0.1:" + strconv.Itoa(c.dbPort) }

// startProc starts p's `local serve` and waits until it answers.
func (c *cluster) startProc(ctx context.Context, p *apiProc) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	log, err := os.OpenFile(filepath.Join(c.dir, fmt.Sprintf("api-%d.log", p.idx)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer log.Close()
	p.starts++
	fmt.Fprintf(log, "\n---- start %d at %s ----\n", p.starts, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(filepath.Join(c.root, ".tools", "bin", "local"), "serve")
	cmd.Dir = c.root
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(p.port), "DYNAMODB_ENDPOINT="+c.dbEndpoint(),
		"SES_ENDPOINT="+c.ses.Endpoint(), "KMS_ENDPOINT="+c.kms.Endpoint(), "KMS_KEY_ID="+c.kms.KeyID(), "TABLE_NAME="+tableName, "PUBLIC_BASE_URL="+c.front.url,
		"SCHEDULER_TICK=2s", "WEBHOOKS_ALLOW_LOCAL=true", "LOG_LEVEL=WARN")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = sysProcAttr()
	exited, started := make(chan struct{}), make(chan error)
	// The parent-death signal follows the thread that started the child, so that thread stays locked
	// for the child's life (as infra/localstack does for the emulators).
	go func() {
		runtime.LockOSThread()
		err := cmd.Start()
		started <- err
		if err != nil {
			runtime.UnlockOSThread()
			return
		}
		_ = cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("start API process %d (build it with `go build -o .tools/bin/local ./infra/local`): %w", p.idx, err)
	}
	p.cmd, p.exited = cmd, exited
	return waitHTTP(ctx, "http://127.0.0.1:"+strconv.Itoa(p.port)+"/api/campaigns/openapi.json", exited, 2*time.Minute)
}

// up reports whether p is running.
func (p *apiProc) up() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exited == nil {
		return false
	}
	select {
	case <-p.exited:
		return false
	default:
		return true
	}
}

// kill ends p with SIGKILL and waits for it to exit.
func (p *apiProc) kill() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	<-exited
}

// killDB ends DynamoDB Local with SIGKILL; restartDB starts it again on the same port and directory.
func (c *cluster) killDB() {
	c.mu.Lock()
	db := c.db
	c.db = nil
	c.mu.Unlock()
	if db != nil {
		_ = db.Kill()
	}
}

func (c *cluster) restartDB(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var db *localstack.DynamoDB
		db, err = localstack.StartDynamoDBOnDisk(ctx, c.root, c.dbPort, c.dbDir)
		if err == nil {
			c.mu.Lock()
			c.db = db
			c.mu.Unlock()
			return nil
		}
		// The port may linger a moment after the kill.
		fmt.Printf("chaos: start DynamoDB Local again (attempt %d): %v\n", attempt+1, err)
		time.Sleep(time.Second)
	}
	return fmt.Errorf("restart DynamoDB Local: %w", err)
}

// allUp restarts whatever is down at the end of the load, so the ticks can settle.
func (c *cluster) allUp(ctx context.Context) error {
	c.mu.Lock()
	dbDown := c.db == nil
	c.mu.Unlock()
	if dbDown {
		if err := c.restartDB(ctx); err != nil {
			return err
		}
		c.faults.add("DynamoDB Local", "restarted")
	}
	for _, p := range c.procs {
		if !p.up() {
			if err := c.startProc(ctx, p); err != nil {
				return err
			}
			c.faults.add(fmt.Sprintf("api-%d", p.idx), "restarted")
		}
	}
	return nil
}

// close stops everything and removes the run's directory unless it is to be kept.
func (c *cluster) close(keep bool) {
	for _, p := range c.procs {
		if p.up() {
			p.mu.Lock()
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			p.mu.Unlock()
			select {
			case <-p.exited:
			case <-time.After(5 * time.Second):
				p.kill()
			}
		}
	}
	if c.front != nil {
		c.front.close()
	}
	if c.hooks != nil {
		c.hooks.close()
	}
	if c.ses != nil {
		_ = c.ses.Stop()
	}
	if c.kms != nil {
		_ = c.kms.Stop()
	}
	c.mu.Lock()
	if c.db != nil {
		_ = c.db.Stop()
	}
	c.mu.Unlock()
	if keep || c.failed {
		fmt.Printf("chaos: the run's logs and data are in %s\n", c.dir)
		return
	}
	_ = os.RemoveAll(c.dir)
}

// waitHTTP polls url until it answers 200, the process exits or the limit passes.
func waitHTTP(ctx context.Context, url string, exited <-chan struct{}, limit time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("the API process exited while starting (see its log in the run's directory)")
		case <-ctx.Done():
			return fmt.Errorf("%s does not answer: %w", url, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// faultLog is the run's kills and restarts.
type faultLog struct {
	mu     sync.Mutex
	events []fault
}

type fault struct {
	at           time.Time
	target, what string
}

func (l *faultLog) add(target, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fault{at: time.Now(), target: target, what: what})
}

func (l *faultLog) all() []fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]fault(nil), l.events...)
}
