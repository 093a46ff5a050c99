package event_test

import (
	"context"
	"os"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/testenv"
)

// The use cases against the real storage (DynamoDB Local). The decisions
// they run are tested without it (check_test.go, change_test.go,
// list_test.go); these tests are skipped when no DynamoDB Local runs (make
// test starts one).

// store is a store over the run's DynamoDB Local, or skips the test when
// there is none.
func store(t *testing.T) *dynamo.Store {
	t.Helper()
	if os.Getenv("DYNAMODB_ENDPOINT") == "" {
		t.Skip("DYNAMODB_ENDPOINT is not set: the event use cases run against DynamoDB Local (make test)")
	}
	return testenv.Store(t)
}

// TestConcurrentLinksAreAllKept: links made at once to one event each
// commit on the version they read or decide again, so none is lost and
// each moves the version once.
func TestConcurrentLinksAreAllKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := store(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	app := event.NewApp(s)
	e, err := app.Create(ctx, orgID, "user-acme", newEvent(), nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	ids := make([]string, n)
	for i := range ids {
		c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "Q3", CreatedBy: "user-acme"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = c.CampaignID
	}
	done := make(chan error, n)
	for _, id := range ids {
		go func() {
			_, err := app.Link(ctx, orgID, e.ID, []string{id})
			done <- err
		}()
	}
	for range ids {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	got, err := app.Get(ctx, orgID, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.LinkedCampaigns) != n || got.Version != n+1 {
		t.Errorf("after %d concurrent links: %d links, version %d; want %d, %d", n, len(got.LinkedCampaigns), got.Version, n, n+1)
	}
}
