package localstack

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"gopkg.in/yaml.v3"
)

const (
	// templateFile is the SAM template, relative to the repository root.
	templateFile = "template.yaml"
	// tableLogicalID is the logical ID of the table resource in the template.
	tableLogicalID = "Table"
	// tableResourceType is the CloudFormation type that resource must have.
	tableResourceType = "AWS::DynamoDB::Table"
)

// tableProperties is the part of an AWS::DynamoDB::Table resource's Properties that shapes the table's
// keys, indexes and expiry, in CloudFormation's own names. Properties that only matter in AWS
// (point-in-time recovery, encryption, tags) are ignored.
type tableProperties struct {
	BillingMode             string                 `yaml:"BillingMode"`
	AttributeDefinitions    []attributeDefinition  `yaml:"AttributeDefinitions"`
	KeySchema               []keyElement           `yaml:"KeySchema"`
	ProvisionedThroughput   *provisionedThroughput `yaml:"ProvisionedThroughput"`
	GlobalSecondaryIndexes  []secondaryIndex       `yaml:"GlobalSecondaryIndexes"`
	LocalSecondaryIndexes   []secondaryIndex       `yaml:"LocalSecondaryIndexes"`
	StreamSpecification     *streamSpecification   `yaml:"StreamSpecification"`
	TimeToLiveSpecification *timeToLive            `yaml:"TimeToLiveSpecification"`
}

type attributeDefinition struct {
	AttributeName string `yaml:"AttributeName"`
	AttributeType string `yaml:"AttributeType"`
}

type keyElement struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

type provisionedThroughput struct {
	ReadCapacityUnits  int64 `yaml:"ReadCapacityUnits"`
	WriteCapacityUnits int64 `yaml:"WriteCapacityUnits"`
}

type secondaryIndex struct {
	IndexName             string                 `yaml:"IndexName"`
	KeySchema             []keyElement           `yaml:"KeySchema"`
	Projection            projection             `yaml:"Projection"`
	ProvisionedThroughput *provisionedThroughput `yaml:"ProvisionedThroughput"`
}

type projection struct {
	ProjectionType   string   `yaml:"ProjectionType"`
	NonKeyAttributes []string `yaml:"NonKeyAttributes"`
}

type streamSpecification struct {
	StreamViewType string `yaml:"StreamViewType"`
}

type timeToLive struct {
	AttributeName string `yaml:"AttributeName"`
	Enabled       bool   `yaml:"Enabled"`
}

// TableInput returns the CreateTable request for a table named tableName with the key schema, billing
// mode, indexes and stream of the table resource (logical ID "Table") in the SAM template at
// templatePath.
func TableInput(templatePath, tableName string) (*dynamodb.CreateTableInput, error) {
	props, err := readTableProperties(templatePath)
	if err != nil {
		return nil, err
	}
	return props.createTableInput(tableName), nil
}

// CreateTable creates the table name from the template in the repository root, waits until it is
// ACTIVE, and enables the template's time-to-live attribute on it.
func CreateTable(ctx context.Context, client *dynamodb.Client, root, name string, opts ...TableOption) error {
	props, err := readTableProperties(filepath.Join(root, templateFile))
	if err != nil {
		return err
	}
	in := props.createTableInput(name)
	for _, o := range opts {
		o(in)
	}
	out, err := client.CreateTable(ctx, in)
	if err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	// DynamoDB Local answers CreateTable with an ACTIVE table; waiting only when it does not keeps a
	// table per test cheap.
	if out.TableDescription == nil || out.TableDescription.TableStatus != types.TableStatusActive {
		if err := waitActive(ctx, client, name); err != nil {
			return err
		}
	}
	ttl := props.TimeToLiveSpecification
	if ttl == nil || !ttl.Enabled {
		return nil
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(ttl.AttributeName),
			Enabled:       aws.Bool(true),
		},
	})
	if err != nil {
		return fmt.Errorf("enable time to live on %s.%s: %w", name, ttl.AttributeName, err)
	}
	return nil
}

// waitActive polls until the table name is ACTIVE, briefly at first since a local table is ready in
// milliseconds.
func waitActive(ctx context.Context, client *dynamodb.Client, name string) error {
	waiter := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 20 * time.Millisecond
		o.MaxDelay = time.Second
	})
	err := waiter.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute)
	if err != nil {
		return fmt.Errorf("wait for table %s to become active: %w", name, err)
	}
	return nil
}

// readTableProperties reads the properties of the table resource in the SAM template at path. The
// template goes through a yaml.Node because it holds CloudFormation tags (!Ref, !GetAtt, !Sub) that
// only a node keeps as they are; just the table's properties are decoded into Go values.
func readTableProperties(path string) (tableProperties, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return tableProperties{}, fmt.Errorf("read SAM template: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return tableProperties{}, fmt.Errorf("parse SAM template %s: %w", path, err)
	}
	node, err := tableNode(&doc)
	if err != nil {
		return tableProperties{}, fmt.Errorf("SAM template %s: %w", path, err)
	}
	var props tableProperties
	if err := node.Decode(&props); err != nil {
		return tableProperties{}, fmt.Errorf("SAM template %s: decode %s properties: %w", path, tableLogicalID, err)
	}
	if len(props.AttributeDefinitions) == 0 || len(props.KeySchema) == 0 {
		return tableProperties{}, fmt.Errorf("SAM template %s: %s needs AttributeDefinitions and KeySchema",
			path, tableLogicalID)
	}
	return props, nil
}

// tableNode returns the Properties node of the table resource in a parsed template.
func tableNode(doc *yaml.Node) (*yaml.Node, error) {
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, errors.New("empty document")
	}
	resource := mappingValue(mappingValue(doc.Content[0], "Resources"), tableLogicalID)
	if resource == nil {
		return nil, fmt.Errorf("no resource %s", tableLogicalID)
	}
	if typ := mappingValue(resource, "Type"); typ == nil || typ.Value != tableResourceType {
		return nil, fmt.Errorf("resource %s is not of type %s", tableLogicalID, tableResourceType)
	}
	props := mappingValue(resource, "Properties")
	if props == nil {
		return nil, fmt.Errorf("resource %s has no Properties", tableLogicalID)
	}
	return props, nil
}

// mappingValue returns the value under key in the mapping node n, or nil when n is nil, not a mapping or
// has no such key.
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// createTableInput maps the template's properties to a CreateTable request for the table name.
func (p tableProperties) createTableInput(name string) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName:             aws.String(name),
		BillingMode:           types.BillingMode(p.BillingMode),
		KeySchema:             keySchema(p.KeySchema),
		ProvisionedThroughput: p.ProvisionedThroughput.sdk(),
	}
	for _, a := range p.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName),
			AttributeType: types.ScalarAttributeType(a.AttributeType),
		})
	}
	for _, ix := range p.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:             aws.String(ix.IndexName),
			KeySchema:             keySchema(ix.KeySchema),
			Projection:            ix.Projection.sdk(),
			ProvisionedThroughput: ix.ProvisionedThroughput.sdk(),
		})
	}
	for _, ix := range p.LocalSecondaryIndexes {
		in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
			IndexName:  aws.String(ix.IndexName),
			KeySchema:  keySchema(ix.KeySchema),
			Projection: ix.Projection.sdk(),
		})
	}
	if s := p.StreamSpecification; s != nil {
		in.StreamSpecification = &types.StreamSpecification{
			StreamEnabled:  aws.Bool(true),
			StreamViewType: types.StreamViewType(s.StreamViewType),
		}
	}
	return in
}

// TableOption changes the table CreateTable makes from the template.
type TableOption func(*dynamodb.CreateTableInput)

// WithoutStream leaves the table's stream off. Tests make a table each, and
// DynamoDB Local keeps a stream of every change of every table that has
// one: hundreds of streams made the emulator the bottleneck of the suite.
// A test that reads the stream turns it on (EnableStream).
func WithoutStream() TableOption {
	return func(in *dynamodb.CreateTableInput) { in.StreamSpecification = nil }
}

// EnableStream turns on the stream of table name as template.yaml declares
// it (NEW_IMAGE), for a table made WithoutStream.
func EnableStream(ctx context.Context, client *dynamodb.Client, root, name string) error {
	props, err := readTableProperties(filepath.Join(root, templateFile))
	if err != nil {
		return err
	}
	spec := props.createTableInput(name).StreamSpecification
	if spec == nil {
		return fmt.Errorf("enable the stream of %s: template.yaml declares none", name)
	}
	if _, err := client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: &name, StreamSpecification: spec}); err != nil {
		return fmt.Errorf("enable the stream of %s: %w", name, err)
	}
	return waitActive(ctx, client, name)
}

// keySchema maps a template key schema to the SDK's.
func keySchema(elems []keyElement) []types.KeySchemaElement {
	out := make([]types.KeySchemaElement, 0, len(elems))
	for _, e := range elems {
		out = append(out, types.KeySchemaElement{
			AttributeName: aws.String(e.AttributeName),
			KeyType:       types.KeyType(e.KeyType),
		})
	}
	return out
}

// sdk maps a projection to the SDK's.
func (p projection) sdk() *types.Projection {
	return &types.Projection{
		ProjectionType:   types.ProjectionType(p.ProjectionType),
		NonKeyAttributes: p.NonKeyAttributes,
	}
}

// sdk maps provisioned throughput to the SDK's; nil, as for on-demand tables, stays nil.
func (t *provisionedThroughput) sdk() *types.ProvisionedThroughput {
	if t == nil {
		return nil
	}
	return &types.ProvisionedThroughput{
		ReadCapacityUnits:  aws.Int64(t.ReadCapacityUnits),
		WriteCapacityUnits: aws.Int64(t.WriteCapacityUnits),
	}
}
