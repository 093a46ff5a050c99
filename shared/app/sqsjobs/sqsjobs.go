// Package sqsjobs wires the SQS job queue (shared/jobs/sqsqueue) into the
// Core: the mains of the functions that enqueue jobs pass
// app.WithQueue(New), and only they link the SQS client.
package sqsjobs

import (
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/jobs/sqsqueue"
)

// New returns the SQS queue of cfg.JobsQueueURL, with the Lambda
// function's AWS configuration (app.LambdaAWS).
func New(cfg app.Config) (jobs.Queue, error) {
	awsCfg, err := app.LambdaAWS()
	if err != nil {
		return nil, err
	}
	return sqsqueue.New(sqs.NewFromConfig(awsCfg), cfg.JobsQueueURL), nil
}
