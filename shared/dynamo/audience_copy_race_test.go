package dynamo_test

import (
	"context"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// copyStartingDB starts the copy of an audience into a contact list (with
// a store over the real client) right after the first read of the
// audience's item: the copy lands while a rebuild or a delete of the
// audience is deciding.
type copyStartingDB struct {
	dynamo.DB
	audience map[string]types.AttributeValue
	once     *sync.Once
	start    func() error
	err      *error
}

func (f copyStartingDB) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	out, err := f.DB.GetItem(ctx, in, opts...)
	if attrEq(in.Key["SK"], f.audience["SK"]) {
		f.once.Do(func() { *f.err = f.start() })
	}
	return out, err
}

// TestAudienceRebuildOrDeleteRacingCopyStart: a copy into a contact list
// that starts after a rebuild (or a delete) of its audience read the
// audience makes the rebuild (or delete) CONFLICT: the audience stays
// ready, so the copy fills its list with the members it was started from,
// rather than from members a rebuild is clearing or a delete purging.
func TestAudienceRebuildOrDeleteRacingCopyStart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		op   func(s *dynamo.Store, orgID, id string) error
	}{
		{"rebuild", func(s *dynamo.Store, orgID, id string) error {
			_, err := testenv.Audiences(s).Rebuild(context.Background(), orgID, id)
			return err
		}},
		{"delete", func(s *dynamo.Store, orgID, id string) error {
			return testenv.Audiences(s).Delete(context.Background(), orgID, id)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			healthy := testenv.Store(t)
			orgID, _ := testenv.Org(t, healthy, "acme", 0)
			aud := engineersAudience(t, healthy, orgID, 6, func(i int) bool { return i%2 == 0 }, nil)
			app := testenv.Audiences(healthy)
			for done := false; !done; {
				var err error
				if done, err = app.BuildSlice(ctx, orgID, aud.ID, 100); err != nil {
					t.Fatal(err)
				}
			}
			l, err := healthy.CreateContactList(ctx, orgID, "u", "copy", "")
			if err != nil {
				t.Fatal(err)
			}
			var startErr error
			s := dynamo.New(copyStartingDB{DB: testenv.Client(t), audience: dynamo.ItemKey("ORG#"+orgID, "AUDIENCE#"+aud.ID),
				once: &sync.Once{}, err: &startErr,
				start: func() error { return healthy.CommitCopyStart(ctx, orgID, aud.ID, l.ListID, audience.CopyStarted()) },
			}, healthy.Table())
			err = tc.op(s, orgID, aud.ID)
			if startErr != nil {
				t.Fatalf("the copy's start: %v", startErr)
			}
			if gifting.ErrorCode(err) != gifting.CodeConflict {
				t.Errorf("%s while a copy into a contact list started: %v; want CONFLICT", tc.name, err)
			}
			a, err := app.Get(ctx, orgID, aud.ID)
			if err != nil || a.Status != audience.Ready || a.Meta.ContactLists[l.ListID].Status != audience.ListAdding {
				t.Fatalf("audience after the %s: %s, copy %+v (%v); want ready, the copy adding", tc.name, a.Status, a.Meta.ContactLists[l.ListID], err)
			}
			for done := false; !done; {
				if done, err = app.CopySlice(ctx, orgID, aud.ID, l.ListID); err != nil {
					t.Fatal(err)
				}
			}
			ids, err := contact.NewApp(healthy, nil).MemberIDs(ctx, orgID, l.ListID)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != 3 {
				t.Errorf("the list holds %d contacts after the copy; want the audience's 3", len(ids))
			}
		})
	}
}
