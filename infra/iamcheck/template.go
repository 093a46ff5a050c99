package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// Template is a CloudFormation template: the SAM template as `sam deploy`
// has it converted (.aws-sam/converted.json).
type Template struct {
	Parameters map[string]struct {
		Default any `json:"Default"`
	} `json:"Parameters"`
	Conditions map[string]any      `json:"Conditions"`
	Resources  map[string]Resource `json:"Resources"`
}

// Resource is one resource of a template.
type Resource struct {
	Type       string         `json:"Type"`
	Condition  string         `json:"Condition"`
	Properties map[string]any `json:"Properties"`
}

// LoadTemplate reads a converted template.
func LoadTemplate(path string) (*Template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Template
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &t, nil
}

// Scenario is the stack as one deployment has it: its parameter values
// (the others keep their defaults) and where it runs.
type Scenario struct {
	Name   string
	Params map[string]string
	// Identity is the SES identity that verifies SENDER_ADDRESS, whose
	// ARN sending authorization checks: SesIdentity, or else the address
	// itself.
	Identity string
}

// The account the ARNs are resolved in: any account and region give the
// same verdicts, since every policy names the stack's own resources.
const (
	region    = "us-east-1"
	account   = "123456789012"
	partition = "aws"
	stackName = "gift-campaigns"
)

var errNoPhysicalName = errors.New("no physical name")

// nameProperty is the property that names a resource of each type.
var nameProperty = map[string]string{
	"AWS::DynamoDB::Table":       "TableName",
	"AWS::SQS::Queue":            "QueueName",
	"AWS::SNS::Topic":            "TopicName",
	"AWS::SES::ConfigurationSet": "Name",
	"AWS::Lambda::Function":      "FunctionName",
	"AWS::S3::Bucket":            "BucketName",
}

// name is a resource's physical name: its name property, which every
// resource a policy names has (a generated name would be unknown until
// deployed).
func (r *resolver) name(logical string, res Resource) (string, error) {
	if res.Type == "AWS::KMS::Key" {
		// A key's id is made by KMS; the logical id stands in for it.
		return logical, nil
	}
	if _, named := res.Properties["BucketName"]; res.Type == "AWS::S3::Bucket" && !named {
		// CloudFormation names such a bucket <stack>-<logical id>-<random>,
		// in lower case; the stand-in leaves the random part out.
		return strings.ToLower(stackName + "-" + logical), nil
	}
	prop, ok := res.Properties[nameProperty[res.Type]]
	if !ok {
		return "", fmt.Errorf("%s (%s): %w", logical, res.Type, errNoPhysicalName)
	}
	return r.str(prop)
}

// arnFormat is the ARN of a resource of each type, %s its name.
var arnFormat = map[string]string{
	"AWS::DynamoDB::Table":       "arn:aws:dynamodb:" + region + ":" + account + ":table/%s",
	"AWS::SQS::Queue":            "arn:aws:sqs:" + region + ":" + account + ":%s",
	"AWS::SNS::Topic":            "arn:aws:sns:" + region + ":" + account + ":%s",
	"AWS::SES::ConfigurationSet": "arn:aws:ses:" + region + ":" + account + ":configuration-set/%s",
	"AWS::Lambda::Function":      "arn:aws:lambda:" + region + ":" + account + ":function:%s",
	"AWS::KMS::Key":              "arn:aws:kms:" + region + ":" + account + ":key/%s",
	"AWS::S3::Bucket":            "arn:aws:s3:::%s",
}

func (r *resolver) arn(logical string, res Resource) (string, error) {
	format, ok := arnFormat[res.Type]
	if !ok {
		return "", fmt.Errorf("the ARN of %s (%s) is not resolved", logical, res.Type)
	}
	n, err := r.name(logical, res)
	return fmt.Sprintf(format, n), err
}
