// Package jobs runs work that does not fit in one request: launching a
// campaign over a large contact list, building an audience. A job does a
// bounded slice of the work and returns the job that continues it, so no
// single invocation runs long and a failed slice is retried alone.
//
// Deployed, jobs travel through an SQS queue to the worker function; the
// local server and the tests run them in-process with Local.
package jobs

import (
	"context"
	"fmt"
)

// Job is one slice of background work.
type Job struct {
	// Kind selects the handler, e.g. "campaign.launch".
	Kind string `json:"kind"`
	// OrgID is the organization the work belongs to; handlers act only
	// inside it.
	OrgID string `json:"orgId"`
	// Ref names the resource worked on, e.g. a campaign id.
	Ref string `json:"ref"`
	// Cursor is where the previous slice stopped; empty for the first.
	Cursor string `json:"cursor,omitempty"`
}

// String identifies a job in logs (no personal data: ids only).
func (j Job) String() string {
	return fmt.Sprintf("%s org=%s ref=%s cursor=%q", j.Kind, j.OrgID, j.Ref, j.Cursor)
}

// Handler does one slice of a job and returns the job that continues it, or
// nil when the work is done. Handlers must be idempotent: a slice may run
// again after a failure or a duplicate delivery.
type Handler func(ctx context.Context, j Job) (next *Job, err error)

// Queue accepts jobs to run later.
type Queue interface {
	Enqueue(ctx context.Context, j Job) error
}
