// Package awsenv is the AWS configuration of a Lambda function, read from
// the environment the Lambda runtime sets. It imports nothing of the
// service, so a function that needs AWS clients but no storage (the deploy
// hook) links only it; shared/app's LambdaAWS is the same configuration.
package awsenv

import (
	"fmt"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Lambda returns the AWS configuration of a Lambda function: the region and
// the execution role's credentials, which the Lambda runtime puts in the
// environment. The functions do not load the SDK's full default chain
// (config.LoadDefaultConfig: profiles, SSO, IMDS), which they never need and
// which adds 1.6 MB to every binary; the operator CLI does load it.
func Lambda() (aws.Config, error) {
	region := os.Getenv("AWS_REGION")
	id, secret := os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY")
	if region == "" || id == "" || secret == "" {
		return aws.Config{}, fmt.Errorf("AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set (the Lambda runtime sets them); set DYNAMODB_ENDPOINT for DynamoDB Local")
	}
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(id, secret, os.Getenv("AWS_SESSION_TOKEN")),
	}, nil
}
