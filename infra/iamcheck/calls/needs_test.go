package calls

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
)

// TestNeeds turns each kind of SDK input into the permissions IAM checks
// for it: per item for a transaction, by verb and table or index for
// PartiQL, the sender's identity and the configuration set for an email.
func TestNeeds(t *testing.T) {
	table, index := Resource{Kind: KindTable}, func(n string) Resource { return Resource{Kind: KindIndex, Name: n} }
	type want struct {
		action string
		res    Resource
	}
	stmt := func(s string) types.BatchStatementRequest {
		return types.BatchStatementRequest{Statement: aws.String(s)}
	}
	for _, tt := range []struct {
		name, service, op string
		input             any
		want              []want
	}{
		{"a get", "DynamoDB", "GetItem", &dynamodb.GetItemInput{TableName: aws.String("t")}, []want{{"dynamodb:GetItem", table}}},
		{"a query of the table", "DynamoDB", "Query", &dynamodb.QueryInput{TableName: aws.String("t")}, []want{{"dynamodb:Query", table}}},
		{"a query of an index", "DynamoDB", "Query", &dynamodb.QueryInput{TableName: aws.String("t"), IndexName: aws.String("Slim")},
			[]want{{"dynamodb:Query", index("Slim")}}},
		{"a scan of an index", "DynamoDB", "Scan", &dynamodb.ScanInput{TableName: aws.String("t"), IndexName: aws.String("Due")},
			[]want{{"dynamodb:Scan", index("Due")}}},
		{"a transaction", "DynamoDB", "TransactWriteItems", &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
			{Put: &types.Put{}}, {Update: &types.Update{}}, {Delete: &types.Delete{}}, {ConditionCheck: &types.ConditionCheck{}},
		}}, []want{{"dynamodb:PutItem", table}, {"dynamodb:UpdateItem", table}, {"dynamodb:DeleteItem", table}, {"dynamodb:ConditionCheckItem", table}}},
		{"a read transaction", "DynamoDB", "TransactGetItems", &dynamodb.TransactGetItemsInput{TransactItems: []types.TransactGetItem{{Get: &types.Get{}}}},
			[]want{{"dynamodb:GetItem", table}}},
		{"batches", "DynamoDB", "BatchWriteItem", &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{"t": nil}},
			[]want{{"dynamodb:BatchWriteItem", table}}},
		{"PartiQL", "DynamoDB", "BatchExecuteStatement", &dynamodb.BatchExecuteStatementInput{Statements: []types.BatchStatementRequest{
			stmt(`INSERT INTO "t-1" VALUE {'PK': ?}`), stmt(`update "t-1" SET n = n + ? WHERE PK = ?`),
			stmt(`SELECT * FROM "t-1"."Slim" WHERE LPK = ?`), stmt(`SELECT * FROM "t-1" WHERE PK = ?`), stmt(`DELETE FROM "t-1" WHERE PK = ?`),
		}}, []want{{"dynamodb:PartiQLInsert", table}, {"dynamodb:PartiQLUpdate", table}, {"dynamodb:PartiQLSelect", index("Slim")},
			{"dynamodb:PartiQLSelect", table}, {"dynamodb:PartiQLDelete", table}}},
		{"another operation of a table", "DynamoDB", "DescribeTable", &dynamodb.DescribeTableInput{TableName: aws.String("t")},
			[]want{{"dynamodb:DescribeTable", table}}},
		{"an email", "SESv2", "SendEmail", &sesv2.SendEmailInput{}, []want{{"ses:SendEmail", Resource{Kind: KindIdentity}}}},
		{"an email through a configuration set", "SESv2", "SendEmail", &sesv2.SendEmailInput{ConfigurationSetName: aws.String("c")},
			[]want{{"ses:SendEmail", Resource{Kind: KindIdentity}}, {"ses:SendEmail", Resource{Kind: KindConfigurationSet}}}},
		// SQS's input without its client, which the client module's tests
		// would then need: the recorder reads the operation's name alone.
		{"a message", "SQS", "SendMessage", &struct{ QueueUrl *string }{}, []want{{"sqs:SendMessage", Resource{Kind: KindQueue}}}},
		// KMS's inputs, without importing the client: any with a KeyId.
		{"a KMS call on a key", "KMS", "Decrypt", &struct{ KeyId *string }{}, []want{{"kms:Decrypt", Resource{Kind: KindKey}}}},
		{"an operation the recorder does not know", "SESv2", "GetAccount", &sesv2.GetAccountInput{}, []want{{"ses:GetAccount", Resource{Kind: KindUnknown}}}},
	} {
		var got []want
		for _, c := range Needs(tt.service, tt.op, tt.input) {
			if c.Operation != tt.op {
				t.Errorf("%s: operation %q, want %q", tt.name, c.Operation, tt.op)
			}
			got = append(got, want{c.Action, c.Resource})
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
