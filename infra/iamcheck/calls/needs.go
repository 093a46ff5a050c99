package calls

import (
	"context"
	"reflect"
	"strings"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
)

// Middleware adds the recorder to an SDK client's stack (an entry of
// aws.Config.APIOptions): each call is recorded before it is sent, whether
// or not it then succeeds, since AWS checks the permission first.
func (r *Recorder) Middleware(stack *middleware.Stack) error {
	if r == nil {
		return nil
	}
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("RecordAWSCall",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			r.Record(ctx, Needs(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx), in.Parameters)...)
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

// iamPrefix is the IAM service prefix of an SDK service id.
var iamPrefix = map[string]string{"DynamoDB": "dynamodb", "SESv2": "ses", "SQS": "sqs", "S3": "s3"}

// Needs returns the permissions the operation op of the SDK service
// service (its service id, e.g. "DynamoDB") needs for input: IAM's rules for
// each operation, as the service's authorization reference gives them.
func Needs(service, op string, input any) []Call {
	prefix := iamPrefix[service]
	if prefix == "" {
		prefix = strings.ToLower(service)
	}
	one := func(action string, res Resource) []Call {
		return []Call{{Operation: op, Action: prefix + ":" + action, Resource: res}}
	}
	if out, ok := dynamoNeeds(op, input); ok {
		return out
	}
	// SES and SQS inputs are read by their fields, so that the test
	// packages that link the recorder need no SES or SQS client.
	switch {
	case prefix == "ses" && (op == "SendEmail" || op == "SendBulkEmail"):
		// Sending authorization: the identity of the From address, and
		// the configuration set the email names.
		out := one("SendEmail", Resource{Kind: KindIdentity})
		if set := stringField(input, "ConfigurationSetName"); set != "" {
			out = append(out, one("SendEmail", Resource{Kind: KindConfigurationSet})...)
		}
		return out
	case prefix == "sqs" && (op == "SendMessage" || op == "SendMessageBatch"):
		return one("SendMessage", Resource{Kind: KindQueue})
	case prefix == "s3" && hasField(input, "Key"):
		// An object operation needs its action on the object; HeadObject
		// is allowed by GetObject (IAM has no action of its own for it).
		// A presigned PutObject is recorded too: the URL works only if
		// the signing role may PutObject.
		action := op
		if op == "HeadObject" {
			action = "GetObject"
		}
		first, _, _ := strings.Cut(stringField(input, "Key"), "/")
		return one(action, Resource{Kind: KindObject, Name: first})
	}
	// Every other DynamoDB operation of one table (GetItem, PutItem,
	// UpdateItem, DeleteItem, DescribeTable, …) needs its own action on
	// the table its input names.
	if prefix == "dynamodb" && hasField(input, "TableName") {
		return one(op, Resource{Kind: KindTable})
	}
	// A KMS operation on a key (GenerateDataKey, Decrypt, Encrypt) needs
	// its action on the key its input names.
	if prefix == "kms" && hasField(input, "KeyId") {
		return one(op, Resource{Kind: KindKey})
	}
	return one(op, Resource{Kind: KindUnknown})
}

// dynamoNeeds are the permissions of the DynamoDB operations whose
// action or resource is not simply the operation's on the table: queries
// and scans of an index, batches, transactions and PartiQL.
func dynamoNeeds(op string, input any) ([]Call, bool) {
	one := func(action string, res Resource) ([]Call, bool) {
		return []Call{{Operation: op, Action: action, Resource: res}}, true
	}
	switch in := input.(type) {
	case *dynamodb.QueryInput:
		return one("dynamodb:"+op, tableOrIndex(in.IndexName))
	case *dynamodb.ScanInput:
		return one("dynamodb:"+op, tableOrIndex(in.IndexName))
	case *dynamodb.BatchGetItemInput:
		return perTable(op, "dynamodb:BatchGetItem", len(in.RequestItems)), true
	case *dynamodb.BatchWriteItemInput:
		return perTable(op, "dynamodb:BatchWriteItem", len(in.RequestItems)), true
	case *dynamodb.TransactWriteItemsInput:
		return transactWrite(op, in.TransactItems), true
	case *dynamodb.TransactGetItemsInput:
		// Each Get of a transaction needs GetItem on its table.
		out := make([]Call, 0, len(in.TransactItems))
		for range in.TransactItems {
			out = append(out, Call{Operation: op, Action: "dynamodb:GetItem", Resource: Resource{Kind: KindTable}})
		}
		return out, true
	case *dynamodb.ExecuteStatementInput:
		return partiQL(op, deref(in.Statement)), true
	case *dynamodb.BatchExecuteStatementInput:
		var out []Call
		for _, s := range in.Statements {
			out = append(out, partiQL(op, deref(s.Statement))...)
		}
		return out, true
	case *dynamodb.ExecuteTransactionInput:
		var out []Call
		for _, s := range in.TransactStatements {
			out = append(out, partiQL(op, deref(s.Statement))...)
		}
		return out, true
	}
	return nil, false
}

func tableOrIndex(index *string) Resource {
	if index != nil && *index != "" {
		return Resource{Kind: KindIndex, Name: *index}
	}
	return Resource{Kind: KindTable}
}

// perTable is a batch's action once for its tables (the service has one).
func perTable(op, action string, tables int) []Call {
	if tables == 0 {
		return nil
	}
	return []Call{{Operation: op, Action: action, Resource: Resource{Kind: KindTable}}}
}

// transactWrite is the action of each item of a TransactWriteItems: IAM
// has no action of the transaction itself.
func transactWrite(op string, items []types.TransactWriteItem) []Call {
	var out []Call
	for _, it := range items {
		action := ""
		switch {
		case it.Put != nil:
			action = "PutItem"
		case it.Update != nil:
			action = "UpdateItem"
		case it.Delete != nil:
			action = "DeleteItem"
		case it.ConditionCheck != nil:
			action = "ConditionCheckItem"
		default:
			continue
		}
		out = append(out, Call{Operation: op, Action: "dynamodb:" + action, Resource: Resource{Kind: KindTable}})
	}
	return out
}

// partiQL is the action of one PartiQL statement: PartiQLSelect, -Insert,
// -Update or -Delete after its verb, on the table it names or, for a
// SELECT FROM "table"."index", on the index.
func partiQL(op, statement string) []Call {
	verb, rest, _ := strings.Cut(strings.TrimSpace(statement), " ")
	verb = strings.ToUpper(verb)
	switch verb {
	case "SELECT", "INSERT", "UPDATE", "DELETE":
	default:
		return []Call{{Operation: op, Action: "dynamodb:PartiQL" + verb, Resource: Resource{Kind: KindUnknown}}}
	}
	action := "dynamodb:PartiQL" + verb[:1] + strings.ToLower(verb[1:])
	res := Resource{Kind: KindTable}
	if verb == "SELECT" {
		// The first quoted name after FROM is the table; a quoted name
		// right after it ("t"."i") is an index.
		if _, from, ok := strings.Cut(strings.ToUpper(rest), "FROM "); ok {
			at := len(rest) - len(from)
			if idx := indexOf(rest[at:]); idx != "" {
				res = Resource{Kind: KindIndex, Name: idx}
			}
		}
	}
	return []Call{{Operation: op, Action: action, Resource: res}}
}

// indexOf returns i of a statement's tail that starts `"t"."i"`, else "".
func indexOf(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, `"`) {
		return ""
	}
	end := strings.Index(s[1:], `"`)
	if end < 0 {
		return ""
	}
	s = s[end+2:]
	if !strings.HasPrefix(s, `."`) {
		return ""
	}
	name, _, ok := strings.Cut(s[2:], `"`)
	if !ok {
		return ""
	}
	return name
}

// hasField reports whether input is a pointer to a struct with the field
// name (the SDK's inputs are).
func hasField(input any, name string) bool {
	v := reflect.ValueOf(input)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return false
	}
	return v.Elem().FieldByName(name).IsValid()
}

// stringField returns the *string field name of input (a pointer to an
// SDK input struct), "" when unset or absent.
func stringField(input any, name string) string {
	if !hasField(input, name) {
		return ""
	}
	s, _ := reflect.ValueOf(input).Elem().FieldByName(name).Interface().(*string)
	return deref(s)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
