package dynamo_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// getFailsDB fails every GetItem and BatchGetItem with err and passes the rest to DynamoDB
// Local.
type getFailsDB struct {
	dynamo.DB
	err error
}

func (f getFailsDB) GetItem(context.Context, *dynamodb.GetItemInput, ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	return nil, f.err
}

func (f getFailsDB) BatchGetItem(context.Context, *dynamodb.BatchGetItemInput, ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	return nil, f.err
}

// Defect 8: a failed read of an email marker wrapped its key, EMAIL#<the
// address>, into the error, which the HTTP layer logs.
func TestDefectEmailKeysInLogs(t *testing.T) {
	t.Parallel()
	const email = "ada.lovelace@example.com"
	s := dynamo.New(getFailsDB{DB: testenv.Client(t), err: errors.New("connection reset")}, testenv.Table(t))
	_, err := s.PrepareContactUpsert(context.Background(), "acme",
		gifting.ContactInput{MailID: email}, gifting.Source{Type: "manual", AddedAt: time.Now()})
	if err == nil {
		t.Fatal("no error from a failing read")
	}
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Error("internal error", slog.String("error", err.Error()))
	if strings.Contains(logs.String(), email) || !strings.Contains(logs.String(), "connection reset") {
		t.Errorf("log line = %s; want the failure without the address", logs.String())
	}
}

func TestStoreUnavailableIsDomainError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want gifting.Code
	}{
		{"throttling", &types.ThrottlingException{Message: aws.String("slow down")}, gifting.CodeUnavailable},
		{"provisioned throughput", &types.ProvisionedThroughputExceededException{Message: aws.String("exceeded")}, gifting.CodeUnavailable},
		{"internal server error", &types.InternalServerError{Message: aws.String("oops")}, gifting.CodeUnavailable},
		{"other", errors.New("validation"), gifting.CodeInternal},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			s := dynamo.New(getFailsDB{DB: testenv.Client(t), err: tt.err}, testenv.Table(t))
			_, err := s.Campaign(context.Background(), "acme", "01JH8Z4Q1V6W3K2M9T5R7Y0CMP")
			if got := gifting.ErrorCode(err); got != tt.want {
				t.Errorf("code = %s, want %s (%v)", got, tt.want, err)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("the SDK error is not in the chain: %v", err)
			}
		})
	}
}
