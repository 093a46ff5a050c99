package meter

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
)

// Writes returns the part of calls that writes items whose partition key
// (the PK attribute) keep accepts, to tell what one kind of item costs
// inside the requests that carry it (change records inside add-recipient's
// transaction, say). Reads are left out. A single-item write is kept or
// left out whole. A transaction or batch write is kept as a copy holding
// only the accepted items (a transaction's condition checks included),
// with its reported write units shared among its items by count: DynamoDB
// reports one figure per request, and the benchmark estimates
// transactions from the items themselves anyway. Calls are not changed.
func Writes(calls []Call, keep func(pk string) bool) []Call {
	var out []Call
	for _, c := range calls {
		switch in := c.Input.(type) {
		case *dynamodb.PutItemInput:
			if keep(partitionKey(in.Item)) {
				out = append(out, c)
			}
		case *dynamodb.UpdateItemInput:
			if keep(partitionKey(in.Key)) {
				out = append(out, c)
			}
		case *dynamodb.DeleteItemInput:
			if keep(partitionKey(in.Key)) {
				out = append(out, c)
			}
		case *dynamodb.TransactWriteItemsInput:
			var kept []types.TransactWriteItem
			for _, it := range in.TransactItems {
				if keep(partitionKey(transactKey(it))) {
					kept = append(kept, it)
				}
			}
			if len(kept) == 0 {
				continue
			}
			cp := *in
			cp.TransactItems = kept
			out = append(out, share(c, &cp, len(kept), len(in.TransactItems)))
		case *dynamodb.BatchExecuteStatementInput:
			var kept []types.BatchStatementRequest
			for _, st := range in.Statements {
				it, ok := dynamo.InsertedItem(st)
				if !ok {
					it, ok = dynamo.UpdatedKey(st)
				}
				if ok && keep(partitionKey(it)) {
					kept = append(kept, st)
				}
			}
			if len(kept) == 0 {
				continue
			}
			cp := *in
			cp.Statements = kept
			out = append(out, share(c, &cp, len(kept), len(in.Statements)))
		case *dynamodb.BatchWriteItemInput:
			kept, n, all := map[string][]types.WriteRequest{}, 0, 0
			for table, reqs := range in.RequestItems {
				for _, r := range reqs {
					all++
					var key map[string]types.AttributeValue
					switch {
					case r.PutRequest != nil:
						key = r.PutRequest.Item
					case r.DeleteRequest != nil:
						key = r.DeleteRequest.Key
					}
					if keep(partitionKey(key)) {
						kept[table] = append(kept[table], r)
						n++
					}
				}
			}
			if n == 0 {
				continue
			}
			cp := *in
			cp.RequestItems = kept
			out = append(out, share(c, &cp, n, all))
		}
	}
	return out
}

// share is c with input in, which holds n of c's all items, and their
// share of its write units.
func share(c Call, in any, n, all int) Call {
	c.Input = in
	c.WriteUnits = c.WriteUnits * float64(n) / float64(all)
	return c
}

// transactKey is the key (or, for a put, the item) a transaction item
// names.
func transactKey(it types.TransactWriteItem) map[string]types.AttributeValue {
	switch {
	case it.Put != nil:
		return it.Put.Item
	case it.Update != nil:
		return it.Update.Key
	case it.Delete != nil:
		return it.Delete.Key
	case it.ConditionCheck != nil:
		return it.ConditionCheck.Key
	}
	return nil
}

// partitionKey is the PK attribute of key, "" when it has none.
func partitionKey(key map[string]types.AttributeValue) string {
	if s, ok := key["PK"].(*types.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}
