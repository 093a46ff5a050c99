// Package calls records the AWS calls the tests make, each attributed to the
// Lambda function that makes it in AWS (shared/lambdafn), so that
// infra/iamcheck can hold every function's IAM policy against what its code
// really asks of AWS. Every test process that the test runner starts with
// AWS_CALLS_DIR set appends the calls it has not seen yet to a JSON-lines
// file of its own in that directory; Load reads them all back.
//
// It is test-only wiring, kept out of the Lambda binaries (a test says so):
// the test environment (shared/testenv) adds Recorder.Middleware to every
// SDK client of an emulator and wraps its in-process job queue.
package calls

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/giftcampaign/service/shared/lambdafn"
)

// DirEnv names the environment variable that holds the directory the calls
// are recorded in; the test runner (infra/local exec) sets it.
const DirEnv = "AWS_CALLS_DIR"

// A Call is one permission an AWS call needs: an IAM action on one
// resource. An SDK call may need several (a transaction needs each item's
// action on each item's table).
type Call struct {
	// Function is the Lambda function that makes the call in AWS: a
	// resource group's name, "pages" or "worker".
	Function string `json:"function"`
	// Operation is the API operation called, e.g. "TransactWriteItems".
	Operation string `json:"operation"`
	// Action is the IAM action the operation needs on Resource, e.g.
	// "dynamodb:PutItem".
	Action   string   `json:"action"`
	Resource Resource `json:"resource"`
	// Seen names the test binary that first made the call (e.g.
	// "httpapi.test"), for the check's messages; it is not part of the
	// call's identity.
	Seen string `json:"seen,omitempty"`
}

// The kinds of resource a call names. Tests use tables, addresses and
// queues of their own; infra/iamcheck maps each kind to the stack's
// resource through the function's environment (TABLE_NAME,
// JOBS_QUEUE_URL, SENDER_ADDRESS, SES_CONFIGURATION_SET, KMS_KEY_ID,
// IMPORTS_BUCKET).
const (
	KindTable            = "table"             // the service's table
	KindIndex            = "index"             // one of its indexes, Name
	KindQueue            = "queue"             // the jobs queue
	KindIdentity         = "identity"          // the SES identity of the sender address
	KindConfigurationSet = "configuration-set" // the SES configuration set an email names
	KindKey              = "key"               // the KMS key of KMS_KEY_ID
	// KindObject is an object of the bucket IMPORTS_BUCKET names, Name
	// its key's first segment (imports): the rest names a test's own
	// organization and job.
	KindObject = "object"
	// KindUnknown is a call whose resources the recorder does not know
	// (needs.go): the check fails on it until they are taught.
	KindUnknown = "unknown"
)

// Resource is the resource of a call, by kind.
type Resource struct {
	Kind string `json:"kind"`
	// Name is the index's name for KindIndex, else empty: the tests'
	// names of tables, queues and addresses are their own.
	Name string `json:"name,omitempty"`
}

func (c Call) key() string {
	return strings.Join([]string{c.Function, c.Operation, c.Action, c.Resource.Kind, c.Resource.Name}, "\x00")
}

// Recorder appends the calls of this process, each once, to its file in
// a directory.
type Recorder struct {
	dir  string
	seen string

	mu   sync.Mutex
	done map[string]bool
	file *os.File
	err  error
}

var (
	fromEnvOnce sync.Once
	fromEnv     *Recorder
)

// FromEnv returns the recorder of the directory DirEnv names, or nil when
// it is unset (every method of a nil Recorder records nothing).
func FromEnv() *Recorder {
	fromEnvOnce.Do(func() {
		if dir := os.Getenv(DirEnv); dir != "" {
			fromEnv = New(dir)
		}
	})
	return fromEnv
}

// New returns a recorder writing to dir.
func New(dir string) *Recorder {
	return &Recorder{dir: dir, seen: filepath.Base(os.Args[0]), done: map[string]bool{}}
}

// Record records calls as ctx's function's (none when ctx names no
// function: a test calling a use case or the store directly, or setting
// up its data).
func (r *Recorder) Record(ctx context.Context, calls ...Call) {
	fn := lambdafn.Of(ctx)
	if r == nil || fn == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range calls {
		c.Function, c.Seen = fn, r.seen
		k := c.key()
		if r.done[k] {
			continue
		}
		r.done[k] = true
		r.write(c)
	}
}

// write appends c to the process's file; r.mu is held. A failure is kept
// and reported on stderr once: a test must not fail for it, and the check
// then misses the call and says what it lacks.
func (r *Recorder) write(c Call) {
	if r.err != nil {
		return
	}
	if r.file == nil {
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			r.fail(err)
			return
		}
		name := fmt.Sprintf("%s-%d.jsonl", r.seen, os.Getpid())
		f, err := os.OpenFile(filepath.Join(r.dir, name), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			r.fail(err)
			return
		}
		r.file = f
	}
	line, err := json.Marshal(c)
	if err != nil {
		r.fail(err)
		return
	}
	// One write per line, unbuffered: a test binary may exit at any
	// moment, and nothing is left to flush.
	if _, err := r.file.Write(append(line, '\n')); err != nil {
		r.fail(err)
	}
}

func (r *Recorder) fail(err error) {
	r.err = err
	fmt.Fprintf(os.Stderr, "record AWS calls in %s: %v\n", r.dir, err)
}

// Load reads every call recorded in dir, each once, ordered by function,
// action and resource.
func Load(dir string) ([]Call, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Call
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			var c Call
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				_ = f.Close()
				return nil, fmt.Errorf("%s:%d: %w", name, n, err)
			}
			if k := c.key(); !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
		err = sc.Err()
		_ = f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key() < out[j].key() })
	return out, nil
}
