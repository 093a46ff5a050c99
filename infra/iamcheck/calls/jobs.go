package calls

import (
	"context"

	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/lambdafn"
)

// The tests run jobs in this process (jobs.Local) where AWS sends them
// through the SQS jobs queue; these wrappers record the SendMessage each
// enqueue is there.

// sendMessage is the permission an enqueue needs in AWS (sqsqueue.Queue).
var sendMessage = Call{Operation: "SendMessage", Action: "sqs:SendMessage", Resource: Resource{Kind: KindQueue}}

// Queue returns q, recording each enqueue as an SQS SendMessage of the
// calling function. Whether that function can send at all is its
// binary's business: one that links no SQS client (its main names no
// queue) makes no call, and infra/iamcheck leaves its enqueues out.
func (r *Recorder) Queue(q jobs.Queue) jobs.Queue {
	if r == nil {
		return q
	}
	return recordedQueue{r, q}
}

type recordedQueue struct {
	r *Recorder
	q jobs.Queue
}

func (q recordedQueue) Enqueue(ctx context.Context, j jobs.Job) error {
	q.r.Record(ctx, sendMessage)
	return q.q.Enqueue(ctx, j)
}

// Runner returns h, recording each continuation it returns as the
// worker's SendMessage: in AWS the worker enqueues the next slice of a
// job (jobs.SQSHandler), where jobs.Local runs it in the same goroutine.
func (r *Recorder) Runner(h jobs.Handler) jobs.Handler {
	if r == nil {
		return h
	}
	return func(ctx context.Context, j jobs.Job) (*jobs.Job, error) {
		next, err := h(ctx, j)
		if err == nil && next != nil {
			r.Record(lambdafn.With(ctx, lambdafn.Worker), sendMessage)
		}
		return next, err
	}
}
