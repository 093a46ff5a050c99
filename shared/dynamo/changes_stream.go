package dynamo

import (
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ChangeRecordOfLambda decodes the new image of a stream record as the
// worker's event source mapping delivers it; ok is false for an image that
// is not a change record.
func ChangeRecordOfLambda(img map[string]events.DynamoDBAttributeValue) (ChangeRecord, bool) {
	out := item{}
	for k, v := range img {
		if av := fromLambdaValue(v); av != nil {
			out[k] = av
		}
	}
	return ChangeRecordOf(out)
}

func fromLambdaValue(v events.DynamoDBAttributeValue) types.AttributeValue {
	switch v.DataType() {
	case events.DataTypeString:
		return &types.AttributeValueMemberS{Value: v.String()}
	case events.DataTypeNumber:
		return &types.AttributeValueMemberN{Value: v.Number()}
	case events.DataTypeList:
		l := make([]types.AttributeValue, 0, len(v.List()))
		for _, e := range v.List() {
			if av := fromLambdaValue(e); av != nil {
				l = append(l, av)
			}
		}
		return &types.AttributeValueMemberL{Value: l}
	}
	return nil
}
