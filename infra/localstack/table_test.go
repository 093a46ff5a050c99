package localstack

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// keyNames returns a key schema as "HASH=name RANGE=name".
func keyNames(schema []types.KeySchemaElement) string {
	var parts []string
	for _, k := range schema {
		parts = append(parts, string(k.KeyType)+"="+aws.ToString(k.AttributeName))
	}
	return strings.Join(parts, " ")
}

// index returns the global secondary index called name, failing the test when there is none.
func index(t *testing.T, in *dynamodb.CreateTableInput, name string) types.GlobalSecondaryIndex {
	t.Helper()
	for _, ix := range in.GlobalSecondaryIndexes {
		if aws.ToString(ix.IndexName) == name {
			return ix
		}
	}
	t.Fatalf("no global secondary index %s", name)
	return types.GlobalSecondaryIndex{}
}

func TestTableInputFromTemplate(t *testing.T) {
	in, err := TableInput(filepath.Join(testRoot(t), templateFile), "gifts")
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(in.TableName); got != "gifts" {
		t.Errorf("TableName = %q, want gifts", got)
	}
	if in.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("BillingMode = %q, want PAY_PER_REQUEST", in.BillingMode)
	}
	if got, want := keyNames(in.KeySchema), "HASH=PK RANGE=SK"; got != want {
		t.Errorf("KeySchema = %s, want %s", got, want)
	}

	due := index(t, in, "Due")
	if got, want := keyNames(due.KeySchema), "HASH=dueShard RANGE=dueAt"; got != want {
		t.Errorf("Due KeySchema = %s, want %s", got, want)
	}
	if got := due.Projection.ProjectionType; got != types.ProjectionTypeInclude {
		t.Errorf("Due ProjectionType = %s, want INCLUDE", got)
	}
	if got, want := due.Projection.NonKeyAttributes, []string{"dueKind", "dueRef", "cursor", "progressAt"}; !slices.Equal(got, want) {
		t.Errorf("Due NonKeyAttributes = %v, want %v", got, want)
	}

	slim := index(t, in, "Slim")
	if got, want := keyNames(slim.KeySchema), "HASH=LPK RANGE=LSK"; got != want {
		t.Errorf("Slim KeySchema = %s, want %s", got, want)
	}
	if got := slim.Projection.ProjectionType; got != types.ProjectionTypeInclude {
		t.Errorf("Slim ProjectionType = %s, want INCLUDE", got)
	}
	if got, want := slim.Projection.NonKeyAttributes, []string{"srch", "st", "upd", "fb", "au", "srt"}; !slices.Equal(got, want) {
		t.Errorf("Slim NonKeyAttributes = %v, want %v", got, want)
	}
}

// TestTableInputDefinesEveryKey holds for any valid template: DynamoDB rejects a key attribute without a
// definition, and a definition that no key uses.
func TestTableInputDefinesEveryKey(t *testing.T) {
	in, err := TableInput(filepath.Join(testRoot(t), templateFile), "gifts")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, a := range in.AttributeDefinitions {
		defined[aws.ToString(a.AttributeName)] = false
	}
	keys := slices.Clone(in.KeySchema)
	for _, ix := range in.GlobalSecondaryIndexes {
		keys = append(keys, ix.KeySchema...)
	}
	for _, k := range keys {
		name := aws.ToString(k.AttributeName)
		if _, ok := defined[name]; !ok {
			t.Errorf("key attribute %s has no AttributeDefinition", name)
		}
		defined[name] = true
	}
	for name, used := range defined {
		if !used {
			t.Errorf("AttributeDefinition %s is no key", name)
		}
	}
}

// tagged is a template in which CloudFormation tags surround the table, which also has what the project's
// template does not have yet: a stream, a local index, provisioned throughput.
const tagged = `
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          TABLE: !Ref Table
          ARN: !GetAtt Table.Arn
          URL: !Sub https://${Api}.example.com
          MODE: !If [IsProd, a, b]
  Table:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: !Sub ${AWS::StackName}-table
      BillingMode: PROVISIONED
      ProvisionedThroughput: {ReadCapacityUnits: 5, WriteCapacityUnits: 2}
      AttributeDefinitions:
        - {AttributeName: id, AttributeType: S}
        - {AttributeName: at, AttributeType: N}
      KeySchema:
        - {AttributeName: id, KeyType: HASH}
      LocalSecondaryIndexes:
        - IndexName: ByTime
          KeySchema: [{AttributeName: id, KeyType: HASH}, {AttributeName: at, KeyType: RANGE}]
          Projection: {ProjectionType: KEYS_ONLY}
      StreamSpecification:
        StreamViewType: NEW_AND_OLD_IMAGES
`

func writeTemplate(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), templateFile)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTableInputTagsStreamsLocalIndexes(t *testing.T) {
	in, err := TableInput(writeTemplate(t, tagged), "events")
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToInt64(in.ProvisionedThroughput.WriteCapacityUnits); got != 2 {
		t.Errorf("WriteCapacityUnits = %d, want 2", got)
	}
	if got, want := in.StreamSpecification.StreamViewType, types.StreamViewTypeNewAndOldImages; got != want {
		t.Errorf("StreamViewType = %s, want %s", got, want)
	}
	if len(in.LocalSecondaryIndexes) != 1 {
		t.Fatalf("LocalSecondaryIndexes = %d, want 1", len(in.LocalSecondaryIndexes))
	}
	if got, want := keyNames(in.LocalSecondaryIndexes[0].KeySchema), "HASH=id RANGE=at"; got != want {
		t.Errorf("ByTime KeySchema = %s, want %s", got, want)
	}
}

func TestTableInputErrors(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     string
	}{
		{"no resources", "Description: nothing\n", "no resource Table"},
		{"no table", "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n", "no resource Table"},
		{"not a table", "Resources:\n  Table:\n    Type: AWS::S3::Bucket\n    Properties: {}\n", "not of type"},
		{"no properties", "Resources:\n  Table:\n    Type: AWS::DynamoDB::Table\n", "no Properties"},
		{"no key schema", "Resources:\n  Table:\n    Type: AWS::DynamoDB::Table\n    Properties: {BillingMode: PAY_PER_REQUEST}\n", "KeySchema"},
		{"intrinsic where a value belongs", "Resources:\n  Table:\n    Type: AWS::DynamoDB::Table\n    Properties:\n      BillingMode: !If [A, [x], y]\n", "decode"},
		{"not YAML", "Resources: [\n", "parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TableInput(writeTemplate(t, tt.template), "x")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("TableInput error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		if _, err := TableInput(filepath.Join(t.TempDir(), "none.yaml"), "x"); err == nil {
			t.Error("TableInput of a missing file: got nil error")
		}
	})
}

func TestCreateTable(t *testing.T) {
	t.Parallel()
	client := testClient(t)
	root := testRoot(t)
	name := tableName(t)

	start := time.Now()
	if err := CreateTable(t.Context(), client, root, name); err != nil {
		t.Fatal(err)
	}
	t.Logf("CreateTable took %v", time.Since(start))

	// The item's key names come from the template, like the table's.
	in, err := TableInput(filepath.Join(root, templateFile), name)
	if err != nil {
		t.Fatal(err)
	}
	due := index(t, in, "Due")
	item := map[string]types.AttributeValue{}
	for _, k := range slices.Concat(in.KeySchema, due.KeySchema) {
		item[aws.ToString(k.AttributeName)] = &types.AttributeValueMemberS{Value: "v-" + aws.ToString(k.AttributeName)}
	}
	if _, err := client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(name), Item: item}); err != nil {
		t.Fatal(err)
	}

	hash := aws.ToString(due.KeySchema[0].AttributeName)
	out, err := client.Query(t.Context(), &dynamodb.QueryInput{
		TableName:                 aws.String(name),
		IndexName:                 aws.String("Due"),
		KeyConditionExpression:    aws.String("#h = :h"),
		ExpressionAttributeNames:  map[string]string{"#h": hash},
		ExpressionAttributeValues: map[string]types.AttributeValue{":h": item[hash]},
	})
	if err != nil {
		t.Fatal(err)
	}
	if out.Count != 1 {
		t.Errorf("Query Due found %d items, want 1", out.Count)
	}

	ttl, err := client.DescribeTimeToLive(t.Context(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	props, err := readTableProperties(filepath.Join(root, templateFile))
	if err != nil {
		t.Fatal(err)
	}
	d := ttl.TimeToLiveDescription
	if got, want := aws.ToString(d.AttributeName), props.TimeToLiveSpecification.AttributeName; got != want {
		t.Errorf("TTL attribute = %q, want %q", got, want)
	}
	if d.TimeToLiveStatus != types.TimeToLiveStatusEnabled && d.TimeToLiveStatus != types.TimeToLiveStatusEnabling {
		t.Errorf("TTL status = %s, want ENABLED", d.TimeToLiveStatus)
	}
}

func TestCreateTableTwice(t *testing.T) {
	t.Parallel()
	client := testClient(t)
	name := tableName(t)
	if err := CreateTable(t.Context(), client, testRoot(t), name); err != nil {
		t.Fatal(err)
	}
	var inUse *types.ResourceInUseException
	if err := CreateTable(t.Context(), client, testRoot(t), name); !errors.As(err, &inUse) {
		t.Errorf("second CreateTable error = %v, want ResourceInUseException", err)
	}
}
