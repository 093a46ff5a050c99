// Package metrics writes business metrics as CloudWatch Embedded Metric
// Format (EMF) log lines: one JSON object a line on stdout, which Lambda
// ships to CloudWatch Logs and CloudWatch turns into metrics. No SDK call,
// no dependency, nothing on the request's critical path but one write.
//
// Each line publishes its metrics twice: without dimensions (the service's
// totals) and per organization (organizationId), so the dashboard can show
// both. Every organization adds one custom metric per metric name it emits.
package metrics

import (
	"encoding/json"
	"io"
	"os"
	"sync"
	"time"
)

// The business metric names; the dashboard and docs/operations.md use them.
const (
	RecipientsAdded  = "RecipientsAdded"
	CreditsSpent     = "CreditsSpent"
	CreditsRefunded  = "CreditsRefunded"
	LaunchesAccepted = "LaunchesAccepted"
	EmailsSent       = "EmailsSent"
	// EmailsStopped counts recipients whose emails stopped for a bounce,
	// a complaint or an unsubscribe.
	EmailsStopped = "EmailsStopped"
	// RecipientsExpired counts recipients that expired unclaimed.
	RecipientsExpired   = "RecipientsExpired"
	InsufficientCredits = "InsufficientCredits"
	RateLimited         = "RateLimited"
)

// Recorder writes EMF lines to a writer under one namespace.
type Recorder struct {
	mu        sync.Mutex
	w         io.Writer
	namespace string
	now       func() time.Time
}

// New returns a Recorder writing to w under namespace. A nil w or an empty
// namespace gives a Recorder that writes nothing.
func New(w io.Writer, namespace string) *Recorder {
	return &Recorder{w: w, namespace: namespace, now: time.Now}
}

// std writes to stdout under METRICS_NAMESPACE, which template.yaml sets
// for every function; unset (the local server, tests), nothing is written.
var std = New(os.Stdout, os.Getenv("METRICS_NAMESPACE"))

// Count records counts of the named metrics for orgID on stdout; see
// Recorder.Count.
func Count(orgID string, counts map[string]int64) { std.Count(orgID, counts) }

// Count writes one EMF line with counts (metric name → value, unit Count)
// for orgID. Zero counts are left out; a line with none is not written.
func (r *Recorder) Count(orgID string, counts map[string]int64) {
	if r.w == nil || r.namespace == "" {
		return
	}
	line := map[string]any{"organizationId": orgID}
	var defs []map[string]string
	for name, v := range counts {
		if v == 0 {
			continue
		}
		line[name] = v
		defs = append(defs, map[string]string{"Name": name, "Unit": "Count"})
	}
	if len(defs) == 0 {
		return
	}
	line["_aws"] = map[string]any{
		"Timestamp": r.now().UnixMilli(),
		"CloudWatchMetrics": []map[string]any{{
			"Namespace":  r.namespace,
			"Dimensions": [][]string{{}, {"organizationId"}},
			"Metrics":    defs,
		}},
	}
	b, err := json.Marshal(line)
	if err != nil {
		return // maps of strings and integers always marshal
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// A metric line that cannot be written (stdout gone) has nobody to
	// report to; the request it describes has already succeeded.
	_, _ = r.w.Write(append(b, '\n'))
}
