package site

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/dynamo"
)

// clientFuncs is the DynamoDB client as method values, for the reason
// pageStore gives: handing the store *dynamodb.Client itself (an interface
// conversion) would make the linker keep every one of the client's
// operations, a megabyte of the pages function's binary.
type clientFuncs struct {
	getItem            func(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	putItem            func(context.Context, *dynamodb.PutItemInput, ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	updateItem         func(context.Context, *dynamodb.UpdateItemInput, ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	deleteItem         func(context.Context, *dynamodb.DeleteItemInput, ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	query              func(context.Context, *dynamodb.QueryInput, ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	batchGetItem       func(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	batchWriteItem     func(context.Context, *dynamodb.BatchWriteItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	transactWriteItems func(context.Context, *dynamodb.TransactWriteItemsInput, ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error)
}

var _ dynamo.DB = clientFuncs{}

func narrowClient(c *dynamodb.Client) clientFuncs {
	return clientFuncs{c.GetItem, c.PutItem, c.UpdateItem, c.DeleteItem, c.Query, c.BatchGetItem, c.BatchWriteItem,
		c.TransactWriteItems}
}

func (c clientFuncs) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return c.getItem(ctx, in, opts...)
}

func (c clientFuncs) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	return c.putItem(ctx, in, opts...)
}

func (c clientFuncs) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	return c.updateItem(ctx, in, opts...)
}

func (c clientFuncs) DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error) {
	return c.deleteItem(ctx, in, opts...)
}

func (c clientFuncs) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	return c.query(ctx, in, opts...)
}

func (c clientFuncs) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return c.batchGetItem(ctx, in, opts...)
}

func (c clientFuncs) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	return c.batchWriteItem(ctx, in, opts...)
}

func (c clientFuncs) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	return c.transactWriteItems(ctx, in, opts...)
}
