package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// assertNoAttributeHolds scans the test's table (a test-only Scan) and fails
// if any stored string contains secret.
func assertNoAttributeHolds(t *testing.T, s *dynamo.Store, secret string) {
	t.Helper()
	table := s.Table()
	out, err := testenv.Client(t).Scan(context.Background(), &dynamodb.ScanInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range out.Items {
		for name, v := range it {
			if strings.Contains(strings.ToLower(fmt.Sprint(v)), strings.ToLower(secret)) {
				t.Fatalf("attribute %s stores the secret", name)
			}
		}
	}
}
