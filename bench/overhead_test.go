//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/giftcampaign/service/bench/meter"
)

// BenchmarkOverhead takes apart, in this process, what a one-read endpoint
// costs beyond its DynamoDB call. Each iteration makes the same call three
// ways, one after the other so load from elsewhere weighs on all three
// alike: the handler called directly (no HTTP connection), the request
// through the loopback server as the endpoint figures of the report make
// it, and the recorded DynamoDB calls replayed ("bare"). For each way it
// reports the median wall time and the median CPU time this process spent
// (every goroutine: the client, the server and the SDK), so a gap in wall
// time that is not in CPU time is waiting: wake-ups and scheduling, not
// work. Run it with DynamoDB Local:
//
//	.tools/bin/local exec -- go test ./bench -run '^$' -bench Overhead -benchtime 500x
func BenchmarkOverhead(b *testing.B) {
	if os.Getenv("DYNAMODB_ENDPOINT") == "" {
		b.Skip("DYNAMODB_ENDPOINT is not set: run under .tools/bin/local exec")
	}
	ctx := context.Background()
	e, err := newEnv(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer e.close()
	for i, c := range cases() {
		if c.target.label != getByID.label || !strings.HasPrefix(c.route, "GET ") {
			continue
		}
		t, err := e.newTenant(ctx, fmt.Sprintf("ov%02d", i), 1_000_000)
		if err != nil {
			b.Fatal(err)
		}
		gen, err := c.prepare(ctx, e, t, 1)
		if err != nil {
			b.Fatal(err)
		}
		rq := gen(0)
		as := t
		if rq.as != nil {
			as = *rq.as
		}
		if _, err := e.expect(ctx, as, c.status, rq.method, rq.path, nil); err != nil {
			b.Fatal(err)
		}
		recorded := e.last.Load().Calls()
		ways := []struct {
			name string
			call func() error
		}{
			{"handler", func() error {
				req := httptest.NewRequestWithContext(ctx, rq.method, rq.path, nil)
				req.Header.Set("x-api-key", as.key)
				w := httptest.NewRecorder()
				e.srv.Handler.ServeHTTP(w, req)
				if w.Code != c.status {
					return fmt.Errorf("status %d: %s", w.Code, w.Body)
				}
				return nil
			}},
			{"loopback", func() error {
				_, err := e.expect(ctx, as, c.status, rq.method, rq.path, nil)
				return err
			}},
			{"bare", func() error { return meter.Replay(ctx, e.client, recorded) }},
			{"empty", func() error {
				_, err := e.expect(ctx, tenant{}, http.StatusNoContent, "GET", emptyPath, nil)
				return err
			}},
		}
		b.Run(strings.ReplaceAll(strings.TrimPrefix(c.route, "GET /api/campaigns/"), "/", "_"), func(b *testing.B) {
			wall := make([][]time.Duration, len(ways))
			cpu := make([][]time.Duration, len(ways))
			for b.Loop() {
				for k, w := range ways {
					c0, t0 := cpuTime(), time.Now()
					if err := w.call(); err != nil {
						b.Fatal(err)
					}
					wall[k] = append(wall[k], time.Since(t0))
					cpu[k] = append(cpu[k], cpuTime()-c0)
				}
			}
			for k, w := range ways {
				b.ReportMetric(float64(median(wall[k]).Microseconds()), w.name+"-µs")
				b.ReportMetric(float64(meanDuration(cpu[k]).Microseconds()), w.name+"-cpu-µs")
			}
		})
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

func meanDuration(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(max(len(ds), 1))
}
