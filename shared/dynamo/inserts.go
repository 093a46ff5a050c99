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

// insertBatch is how many new items one BatchExecuteStatement writes:
// DynamoDB's most statements a batch.
const insertBatch = 25

// statementBatcher is the part of the DynamoDB client that runs PartiQL
// batches. It is not part of DB: a client without it (the pages
// function's, which narrows the client to keep its binary small; a test's
// fake) writes new items one by one instead.
type statementBatcher interface {
	BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error)
}

var _ statementBatcher = (*dynamodb.Client)(nil)

// insertAll writes new items, each only if its key is absent, as PartiQL
// INSERTs, insertBatch to a BatchExecuteStatement, the batches at once. An
// INSERT fails when its key exists: the condition attribute_not_exists(PK)
// of a put. Unlike a transaction, which would bill every item twice, a
// batch of statements is billed as the single puts it holds, and it is one
// request instead of 25. The items must have distinct keys.
//
// It reports, for each item, nil when written, errKeyExists when its key
// was taken, or the statement's or batch's error (throttling, say; or
// errNotBatched from a client without batches), for the caller to write
// that item on its own.
func (s *Store) insertAll(ctx context.Context, items []item) []error {
	errs := make([]error, len(items))
	b, ok := s.db.(statementBatcher)
	if !ok {
		for i := range errs {
			errs[i] = errNotBatched
		}
		return errs
	}
	var wg sync.WaitGroup
	for start := 0; start < len(items); start += insertBatch {
		batch := items[start:min(start+insertBatch, len(items))]
		wg.Go(func() {
			s.insertBatch(ctx, b, batch, errs[start:start+len(batch)])
		})
	}
	wg.Wait()
	return errs
}

// insertBatch writes one batch of insertAll, its outcomes into errs.
func (s *Store) insertBatch(ctx context.Context, b statementBatcher, batch []item, errs []error) {
	statements := make([]types.BatchStatementRequest, len(batch))
	for i, it := range batch {
		statements[i] = s.insertStatement(it)
	}
	out, err := b.BatchExecuteStatement(ctx, &dynamodb.BatchExecuteStatementInput{Statements: statements})
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
		default:
			e := out.Responses[i].Error
			errs[i] = &statementError{code: e.Code, message: aws.ToString(e.Message)}
		}
	}
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

// errNoAnswer is a statement a batch answered nothing for.
var errNoAnswer = errors.New("no answer for the statement")

// statementError is a failed statement of a batch.
type statementError struct {
	code    types.BatchStatementErrorCodeEnum
	message string
}

func (e *statementError) Error() string { return "statement: " + string(e.code) + ": " + e.message }
