// Package sqsqueue is the deployed job queue (jobs.Queue) on Amazon SQS:
// jobs become messages for the worker function. Only the functions that
// enqueue import it: the SQS client costs every binary that imports it.
package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/giftcampaign/service/shared/jobs"
)

// API is the part of the SQS client the queue uses.
type API interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, opts ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Queue sends jobs to an SQS queue.
type Queue struct {
	client API
	url    string
}

var _ jobs.Queue = (*Queue)(nil)

// New returns a queue sending to the queue at url.
func New(client API, url string) *Queue { return &Queue{client: client, url: url} }

// Enqueue sends j as a message.
func (q *Queue) Enqueue(ctx context.Context, j jobs.Job) error {
	body, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("encode job: %w", err)
	}
	_, err = q.client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &q.url, MessageBody: aws.String(string(body))})
	if err != nil {
		return fmt.Errorf("enqueue %s: %w", j, err)
	}
	return nil
}
