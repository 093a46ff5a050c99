package testenv

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/wire"
)

// FeedPage is a page of the change feed as GET /api/campaigns/changes
// answers it: each message's JSON, and the cursor of the next page.
type FeedPage struct {
	Items      []json.RawMessage
	NextCursor string
}

// Feed reads the page of up to limit messages of orgID's change feed after
// the cursor after from s, as GET /api/campaigns/changes does (the webhook
// slice's App.Changes, each message rendered by shared/wire).
func Feed(ctx context.Context, s *dynamo.Store, orgID, after string, limit int) (FeedPage, error) {
	page, err := webhook.NewApp(s, webhook.Config{Log: Quiet}).Changes(ctx, orgID, after, limit)
	if err != nil {
		return FeedPage{}, err
	}
	out := FeedPage{Items: make([]json.RawMessage, len(page.Messages)), NextCursor: page.Next}
	for i, m := range page.Messages {
		if out.Items[i], err = wire.Change(m); err != nil {
			return FeedPage{}, err
		}
	}
	return out, nil
}

// ChangeRecords are every change record of orgID in s, in id order, as the
// table's stream gives them to the deliveries.
func ChangeRecords(t testing.TB, s *dynamo.Store, orgID string) []dynamo.ChangeRecord {
	t.Helper()
	r, _ := webhook.Window(webhook.Cursor{}, s.Now().Add(webhook.FeedLag+time.Second), webhook.MaxPage)
	var out []dynamo.ChangeRecord
	for rec, err := range s.ChangeRecords(context.Background(), orgID, r) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}
