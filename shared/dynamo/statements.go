package dynamo

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// statementBatch is how many statements one BatchExecuteStatement runs:
// DynamoDB's most statements a batch.
const statementBatch = 25

// statementBatcher is the part of the DynamoDB client that runs PartiQL
// batches. It is not part of DB: a client without it (the pages
// function's, which narrows the client to keep its binary small; a test's
// fake) writes new items one by one instead.
type statementBatcher interface {
	BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
}

var _ statementBatcher = (*dynamodb.Client)(nil)

// insertAll writes new items, each only if its key is absent, as PartiQL
// INSERTs (runStatements). An INSERT fails when its key exists: the
// condition attribute_not_exists(PK) of a put. Unlike a transaction, which
// would bill every item twice, a batch of statements is billed as the
// single puts it holds, and it is one request instead of 25. The items must
// have distinct keys.
//
// It reports, for each item, nil when written, errKeyExists when its key
// was taken, or the statement's or batch's error (throttling, say; or
// errNotBatched from a client without batches), for the caller to write
// that item on its own.
func (s *Store) insertAll(ctx context.Context, items []item) []error {
	statements := make([]types.BatchStatementRequest, len(items))
	for i, it := range items {
		statements[i] = s.insertStatement(it)
	}
	return s.runStatements(ctx, statements)
}

// runStatements runs write statements, statementBatch to a
// BatchExecuteStatement, the batches at once, and reports each one's
// outcome: nil when it was applied, errKeyExists for an INSERT whose key
// exists, errNoItem for an UPDATE of an item that does not exist, or the
// statement's or batch's error (errNotBatched from a client without
// batches). The statements must name distinct keys.
func (s *Store) runStatements(ctx context.Context, statements []types.BatchStatementRequest) []error {
	errs := make([]error, len(statements))
	b, ok := s.db.(statementBatcher)
	if !ok {
		for i := range errs {
			errs[i] = errNotBatched
		}
		return errs
	}
	var wg sync.WaitGroup
	for start := 0; start < len(statements); start += statementBatch {
		batch := statements[start:min(start+statementBatch, len(statements))]
		wg.Go(func() {
			runBatch(ctx, b, batch, errs[start:start+len(batch)])
		})
	}
	wg.Wait()
	return errs
}

// runBatch runs one batch of runStatements, its outcomes into errs.
func runBatch(ctx context.Context, b statementBatcher, batch []types.BatchStatementRequest, errs []error) {
	out, err := b.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: batch})
	for i := range batch {
		switch {
		case err != nil:
			errs[i] = err
		case i >= len(out.Responses):
			errs[i] = errNoAnswer
		case out.Responses[i].Error == nil:
			errs[i] = nil
		case out.Responses[i].Error.Code == types.BatchStatementErrorCodeEnumDuplicateItem:
			errs[i] = errKeyExists
		case out.Responses[i].Error.Code == types.BatchStatementErrorCodeEnumConditionalCheckFailed:
			errs[i] = errNoItem
		default:
			e := out.Responses[i].Error
			errs[i] = &statementError{code: e.Code, message: aws.ToString(e.Message)}
		}
	}
}

// addStatement is the PartiQL UPDATE that adds delta to the number attr of
// the item at k and sets updatedAt to now, when given: UPDATE "<table>"
// SET <attr> = <attr> + ? [SET updatedAt = ?] WHERE PK = ? AND SK = ?. Unlike
// UpdateItem's ADD, it applies only to an item that exists (errNoItem
// otherwise) and an attribute that is there.
func (s *Store) addStatement(k item, attr string, delta int64, now string) types.BatchStatementRequest {
	text := `UPDATE "` + s.table + `" SET ` + attr + ` = ` + attr + ` + ?`
	params := []types.AttributeValue{num(delta)}
	if now != "" {
		text += ` SET updatedAt = ?`
		params = append(params, str(now))
	}
	return types.BatchStatementRequest{Statement: aws.String(text + ` WHERE PK = ? AND SK = ?`), Parameters: append(params, k["PK"], k["SK"])}
}

// insertStatement is the PartiQL INSERT of it, its values as parameters:
// INSERT INTO "<table>" VALUE {'<name>': ?, …}, names in sorted order.
func (s *Store) insertStatement(it item) types.BatchStatementRequest {
	names := slices.Sorted(maps.Keys(it))
	var b strings.Builder
	b.WriteString(`INSERT INTO "` + s.table + `" VALUE {`)
	params := make([]types.AttributeValue, len(names))
	for i, n := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("'" + strings.ReplaceAll(n, "'", "''") + "': ?")
		params[i] = it[n]
	}
	b.WriteString("}")
	return types.BatchStatementRequest{Statement: aws.String(b.String()), Parameters: params}
}

// UpdatedKey is the key of the item an UPDATE statement of this package
// (addStatement) changes, false for any other statement: for tools that
// meter requests.
func UpdatedKey(st types.BatchStatementRequest) (map[string]types.AttributeValue, bool) {
	text, n := aws.ToString(st.Statement), len(st.Parameters)
	if !strings.HasPrefix(text, `UPDATE "`) || !strings.HasSuffix(text, ` WHERE PK = ? AND SK = ?`) || n < 2 {
		return nil, false
	}
	return map[string]types.AttributeValue{"PK": st.Parameters[n-2], "SK": st.Parameters[n-1]}, true
}

// InsertedItem is the item an INSERT statement of this package writes,
// false for any other statement: for tools that meter requests (the
// benchmark estimates their write units from the items).
func InsertedItem(st types.BatchStatementRequest) (map[string]types.AttributeValue, bool) {
	text := aws.ToString(st.Statement)
	_, body, ok := strings.Cut(text, `" VALUE {`)
	if !ok || !strings.HasPrefix(text, `INSERT INTO "`) || !strings.HasSuffix(body, "}") {
		return nil, false
	}
	body = strings.TrimSuffix(body, "}")
	parts := strings.Split(body, ", ")
	if len(parts) != len(st.Parameters) {
		return nil, false
	}
	it := make(map[string]types.AttributeValue, len(parts))
	for i, p := range parts {
		name, ok := strings.CutSuffix(p, "': ?")
		if !ok || !strings.HasPrefix(name, "'") {
			return nil, false
		}
		it[strings.ReplaceAll(name[1:], "''", "'")] = st.Parameters[i]
	}
	return it, true
}

// errKeyExists is an INSERT's refusal: an item with its key exists.
var errKeyExists = errors.New("an item with this key exists")

// errNotBatched is an item not tried: the client runs no batches.
var errNotBatched = errors.New("the client runs no statement batches")

// errNoItem is an UPDATE's refusal: no item has its key.
var errNoItem = errors.New("no item with this key")

// errNoAnswer is a statement a batch answered nothing for.
var errNoAnswer = errors.New("no answer for the statement")

// statementError is a failed statement of a batch.
type statementError struct {
	code    types.BatchStatementErrorCodeEnum
	message string
}

func (e *statementError) Error() string { return "statement: " + string(e.code) + ": " + e.message }
