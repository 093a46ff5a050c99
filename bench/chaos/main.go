// Command chaos is the chaos run (`make chaos`): it starts DynamoDB Local writing to disk, the SES and
// KMS emulators, a webhook receiver that refuses some deliveries and verifies every signature the Standard
// Webhooks way, and two or more `local serve` processes on one table behind a front door that plays
// API Gateway; drives a bounded, seeded mixed load through the front (imports with repeated emails,
// launches, add-recipients with and without Idempotency-Key and their replays, claims through the
// recipient pages, status moves, list reads) while it kill -9s an API process (and now and then DynamoDB
// Local) every 20–40 s and starts it again; then stops the load, lets the ticks settle, and checks every
// invariant. It prints a table of the invariants and the run's figures, and exits 1 when any invariant
// is violated (2 when the run itself could not be made).
//
// Settings come from the environment: SEED (default: from the clock, printed), DURATION (the load, 2m),
// SETTLE (the most the settling may take, 3m), PROCS (API processes, 2), REPORT (a file to write the
// report to as markdown), KEEP=1 (keep the run's directory, its logs and DynamoDB Local's data, even
// when every invariant holds). docs/chaos.md describes the run and how to read its table.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// config is one run's settings.
type config struct {
	seed     int64
	duration time.Duration
	settle   time.Duration
	procs    int
	report   string
	keep     bool
}

func main() {
	cfg, err := readConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, cfg))
}

func readConfig() (config, error) {
	cfg := config{seed: time.Now().UnixNano() % 1_000_000, duration: 2 * time.Minute, settle: 3 * time.Minute, procs: 2,
		report: os.Getenv("REPORT"), keep: os.Getenv("KEEP") == "1"}
	if v := os.Getenv("SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return cfg, fmt.Errorf("SEED=%q is not a whole number", v)
		}
		cfg.seed = n
	}
	for name, d := range map[string]*time.Duration{"DURATION": &cfg.duration, "SETTLE": &cfg.settle} {
		if v := os.Getenv(name); v != "" {
			parsed, err := time.ParseDuration(v)
			if err != nil || parsed <= 0 {
				return cfg, fmt.Errorf("%s=%q is not a positive duration such as 2m", name, v)
			}
			*d = parsed
		}
	}
	if v := os.Getenv("PROCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > 8 {
			return cfg, fmt.Errorf("PROCS=%q: the run needs 2 to 8 API processes", v)
		}
		cfg.procs = n
	}
	return cfg, nil
}

// run makes the whole run and returns the exit code.
func run(ctx context.Context, cfg config) int {
	started := time.Now()
	fmt.Printf("chaos: seed %d, load %v, settle at most %v, %d API processes (reproduce: make chaos SEED=%d DURATION=%v)\n",
		cfg.seed, cfg.duration, cfg.settle, cfg.procs, cfg.seed, cfg.duration)
	c, err := startCluster(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	defer c.close(cfg.keep)
	w, err := setUp(ctx, c, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: set up:", err)
		c.failed = true
		return 2
	}
	fmt.Printf("chaos: %d organizations ready in %v; load for %v\n", len(w.orgs), time.Since(started).Round(time.Millisecond), cfg.duration)
	loadStart := time.Now()
	drive(ctx, c, w, cfg)
	loadTook := time.Since(loadStart)
	if err := c.allUp(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		c.failed = true
		return 2
	}
	fmt.Printf("chaos: load stopped after %v; settling (at most %v)\n", loadTook.Round(time.Second), cfg.settle)
	settled := settle(ctx, c, w, cfg.settle)
	res, err := check(ctx, c, w, settled)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: check:", err)
		c.failed = true
		return 2
	}
	rep := report{cfg: cfg, results: res, w: w, c: c, load: loadTook, settled: settled,
		total: time.Since(started), loadStart: loadStart}
	text := rep.markdown()
	fmt.Print(text)
	if cfg.report != "" {
		if err := os.WriteFile(cfg.report, []byte(text), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
		}
	}
	if rep.violations() > 0 {
		c.failed = true
		return 1
	}
	return 0
}
