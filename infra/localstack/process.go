package localstack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// stopTimeout is how long Stop lets an emulator shut down after SIGTERM before it sends SIGKILL.
const stopTimeout = 5 * time.Second

// process is a running emulator (DynamoDB Local, the SES emulator): a child in a process group of its
// own whose output goes to a temporary file, quoted in errors when it fails.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	// exited is closed once the process has exited; waitErr, its exit status, is set before that.
	exited  chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// startProcess starts cmd as the emulator called name.
func startProcess(name string, cmd *exec.Cmd) (*process, error) {
	// The output goes to a file rather than a pipe, which would stall the child whenever nobody reads it;
	// Stop removes the file, after quoting its end in any error.
	log, err := os.CreateTemp("", "emulator-*.log")
	if err != nil {
		return nil, fmt.Errorf("create %s log: %w", name, err)
	}
	defer log.Close() // The child holds its own descriptor.
	cmd.Dir = os.TempDir()
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.SysProcAttr = sysProcAttr()
	p := &process{name: name, cmd: cmd, logPath: log.Name(), exited: make(chan struct{})}
	started := make(chan error)
	go p.run(started)
	if err := <-started; err != nil {
		_ = os.Remove(log.Name())
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return p, nil
}

// run starts the process, reports the start's error on started, and waits for the process to exit.
//
// It keeps its OS thread for the process's lifetime because Linux's parent-death signal follows the
// thread that started the child, not the Go process: were the runtime to end that thread while the child
// runs, the child would be killed.
func (p *process) run(started chan<- error) {
	runtime.LockOSThread()
	err := p.cmd.Start()
	started <- err
	if err != nil {
		runtime.UnlockOSThread()
		return
	}
	// The thread stays locked: when this goroutine returns, the runtime ends the thread, by then the
	// parent of nothing.
	p.waitErr = p.cmd.Wait()
	close(p.exited)
}

// Stop ends the process group with SIGTERM, then SIGKILL if it has not exited within a few seconds, and
// waits for it to exit. Only the first call acts; later ones return its result. The error reports a
// process that had already died on its own, with the end of its output.
func (p *process) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

// Kill ends the process group with SIGKILL at once, as a crash would (nothing flushed, no shutdown
// hook run), and waits for it to exit. Stop after Kill does nothing more. The chaos run's fault.
func (p *process) Kill() error {
	p.stopOnce.Do(func() {
		defer os.Remove(p.logPath)
		if err := syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			p.stopErr = fmt.Errorf("kill %s: %w", p.name, err)
			return
		}
		<-p.exited
	})
	return p.stopErr
}

func (p *process) stop() error {
	defer os.Remove(p.logPath)
	select {
	case <-p.exited:
		return fmt.Errorf("%s had already exited: %v%s", p.name, p.waitErr, p.logTail())
	default:
	}
	pgid := p.cmd.Process.Pid // Setpgid made the child the leader of a group with its own pid.
	if err := syscall.Kill(-pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("stop %s: %w", p.name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(stopTimeout):
		if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("kill %s: %w", p.name, err)
		}
		<-p.exited
	}
	return nil
}

// logTail returns the last lines of the process's output, to explain a failed start or a crash, or ""
// when there is none.
func (p *process) logTail() string {
	f, err := os.Open(p.logPath)
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
	return "\n" + p.name + " output:\n" + text
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

// startOnPort calls start on port, or, when port is 0, on a free port: a free port can be taken between
// picking it and the emulator binding it, and then the emulator exits at once (errExited), so another
// free port is tried, up to freePortAttempts in all.
func startOnPort[T any](port int, start func(port int) (T, error)) (T, error) {
	for attempt := 1; ; attempt++ {
		p := port
		if p == 0 {
			var err error
			if p, err = freePort(); err != nil {
				var none T
				return none, err
			}
		}
		v, err := start(p)
		if err == nil || port != 0 || attempt == freePortAttempts || !errors.Is(err, errExited) {
			return v, err
		}
	}
}

// waitReady calls ready every 50 ms until it answers, the process exits (errExited), or ctx ends; what
// names the probe in the error ("ListTables", "the health check").
func (p *process) waitReady(ctx context.Context, what string, ready func(context.Context) error) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := ready(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%w: %v", errExited, p.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("no answer to %s: %w (last error: %v)", what, ctx.Err(), err)
		case <-tick.C:
		}
	}
}
