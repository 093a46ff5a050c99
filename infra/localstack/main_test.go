package localstack

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/app"
)

// shared is the DynamoDB Local that the package's tests use: the one at DYNAMODB_ENDPOINT when that is
// set (as under `make test`), else one started on first use and stopped by TestMain.
var shared struct {
	once     sync.Once
	db       *DynamoDB
	endpoint string
	err      error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.db != nil {
		if err := shared.db.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// testClient returns a client for the shared DynamoDB Local, starting it if needed.
func testClient(t *testing.T) *dynamodb.Client {
	t.Helper()
	shared.once.Do(func() {
		if ep := os.Getenv("DYNAMODB_ENDPOINT"); ep != "" {
			shared.endpoint = ep
			return
		}
		root := testRoot(t)
		shared.db, shared.err = StartDynamoDB(context.Background(), root, 0)
		if shared.err == nil {
			shared.endpoint = shared.db.Endpoint()
		}
	})
	NeedInstalled(t, shared.err)
	client, err := app.NewDynamoDB(t.Context(), shared.endpoint)
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// testRoot returns the repository root.
func testRoot(t *testing.T) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// tableName returns a table name no other test uses.
func tableName(t *testing.T) string {
	t.Helper()
	return "test-" + rand.Text()
}
