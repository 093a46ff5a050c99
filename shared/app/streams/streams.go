// Package streams reads the table's stream of change records outside AWS:
// the local runner and the tests use it where, in AWS, the worker's event
// source mapping reads the stream. It is apart from shared/app so that no
// Lambda function links the DynamoDB Streams client.
package streams

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/giftcampaign/service/shared/app"
)

// NewClient returns a DynamoDB Streams client for the DynamoDB Local at
// endpoint, with the settings of app.NewDynamoDB.
func NewClient(endpoint string) *dynamodbstreams.Client {
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		BaseEndpoint: aws.String(endpoint),
		Retryer:      retry.NewStandard(func(o *retry.StandardOptions) { o.RateLimiter = ratelimit.None }),
	})
}

// NewReader returns the local runner's reader of the table's stream into
// c's webhook deliveries. cfg.Endpoint must be a DynamoDB Local.
func NewReader(ctx context.Context, c *app.Core, cfg app.Config) (*Reader, error) {
	db, err := app.NewDynamoDB(ctx, cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	return &Reader{DB: db, Streams: NewClient(cfg.Endpoint), Table: cfg.TableName,
		Handle: app.DeliverChange(c.Service), Log: c.Log, Every: 100 * time.Millisecond}, nil
}
