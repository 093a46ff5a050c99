package localstack

import (
	"context"
	"fmt"
	"net/url"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClient returns a DynamoDB client for the DynamoDB Local at endpoint (http://127.0.0.1:PORT).
//
// It reads no AWS environment variables or shared config files, so a developer's AWS profile can never
// send local traffic to a real account. DynamoDB Local accepts any alphanumeric access key, and with
// -sharedDb ignores the region. Response checksum validation is off because DynamoDB Local omits the
// CRC32 header on error responses, which the SDK would otherwise report as a checksum failure. ctx is
// unused: the client is built without loading any configuration. The error reports an endpoint that is
// not an http(s) URL.
func NewClient(_ context.Context, endpoint string) (*dynamodb.Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("DynamoDB Local endpoint %q: want a URL like http://127.0.0.1:8000", endpoint)
	}
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true
	}), nil
}
