package dynamo_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestAudienceMembersDeepPageCost: a deep page of an audience's contacts
// in each order (createdAt, updatedAt, contactId) reads the order's keys
// up to the page's end and the page's items, not the whole audience: about
// a quarter of the entries for a page a quarter of the way in. (Before,
// every default page read the audience's whole index partition, and the
// updatedAt order and the deep contactId pages still did until issue 30.)
func TestAudienceMembersDeepPageCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n := 400
	if v, err := strconv.Atoi(os.Getenv("AUDIENCE_COST_MEMBERS")); err == nil && v > 0 {
		n = v // to measure a larger audience by hand
	}
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "deep", 0)
	aud := builtAudience(t, s, orgID, n)
	app := testenv.Audiences(s)

	// listed reads one page of the audience's contacts and returns it with
	// the read units of its queries (keys) and of its item reads.
	listed := func(sortBy string, page int) (members []audience.Member, index, items float64) {
		t.Helper()
		u := &meter.Usage{Record: true}
		_, got, total, err := app.Members(meter.WithUsage(ctx, u), orgID, aud.ID,
			audience.MemberQuery{SortBy: sortBy, Order: gifting.Desc, Page: gifting.PageRequest{Page: page, Limit: 10}})
		if err != nil || total != n {
			t.Fatalf("%s page %d: total %d, %v", sortBy, page, total, err)
		}
		for _, c := range u.Calls() {
			if _, ok := c.Input.(*dynamodb.QueryInput); ok {
				index += c.ReadUnits
			} else {
				items += c.ReadUnits
			}
		}
		return got, index, items
	}
	// Every index entry of the audience, as an audience built before the
	// order entries is still read: the yardstick.
	u := &meter.Usage{Record: true}
	if _, err := s.MemberEntries(meter.WithUsage(ctx, u), orgID, aud.ID, nil); err != nil {
		t.Fatal(err)
	}
	whole := 0.0
	for _, c := range u.Calls() {
		whole += c.ReadUnits
	}
	deepPage := n / 40 // members n/4 to n/4+10
	// Page 1 in contactId order reads its items by query, not by key: the
	// first page of the default order is the measure of a page's items.
	_, _, pageItems := listed("createdAt", 1)
	for _, by := range []struct {
		sortBy string
		cmp    func(a, b audience.Member) int
	}{
		{"createdAt", func(a, b audience.Member) int { return b.CreatedAt.Compare(a.CreatedAt) }},
		{"updatedAt", func(a, b audience.Member) int { return b.UpdatedAt.Compare(a.UpdatedAt) }},
		{"contactId", func(a, b audience.Member) int { return strings.Compare(b.ContactID, a.ContactID) }},
	} {
		first, index1, items1 := listed(by.sortBy, 1)
		deep, index, items := listed(by.sortBy, deepPage)
		t.Logf("%d members by %s: page 1 %.1f+%.1f read units, page %d %.1f+%.1f (keys+items); the whole index partition %.1f",
			n, by.sortBy, index1, items1, deepPage, index, items, whole)
		if len(first) != 10 || len(deep) != 10 {
			t.Fatalf("%s: pages of %d and %d members, want 10 each", by.sortBy, len(first), len(deep))
		}
		// A quarter of the entries, plus the rounding of each Query and the
		// look for old entries.
		if most := whole/4 + 2; index > most {
			t.Errorf("%s: the deep page read %.1f read units of keys, want at most %.1f (the partition is %.1f)", by.sortBy, index, most, whole)
		}
		if most := 2 * pageItems; items > most {
			t.Errorf("%s: the deep page read %.1f read units of items, want about a first page's %.1f", by.sortBy, items, pageItems)
		}
		if !slices.IsSortedFunc(deep, by.cmp) || by.cmp(first[len(first)-1], deep[0]) > 0 {
			t.Errorf("the deep page is not in %s order after the first", by.sortBy)
		}
	}
}

// TestAudienceMembersWrittenBefore: members whose index entry was written
// before the createdAt sort key (its sort key was the item's) are still
// listed, once each, in createdAt order (an audience built before and not
// rebuilt since: all its entries are of the old form).
func TestAudienceMembersWrittenBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, table := testenv.Client(t), testenv.Table(t)
	clock := &testenv.Clock{}
	s := dynamo.New(db, table, dynamo.WithClock(clock.Now))
	orgID, _ := testenv.Org(t, s, "old-entries", 0)
	l, err := s.CreateContactList(ctx, orgID, "u", "seed", "")
	if err != nil {
		t.Fatal(err)
	}
	// Five imports an hour apart, six engineers each.
	for batch := range 5 {
		var in []contact.Input
		for i := range 6 {
			in = append(in, contact.Input{MailID: fmt.Sprintf("o%d-%d@example.com", batch, i), JobTitle: "Software Engineer"})
		}
		if res, err := contact.NewApp(s, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); err != nil || res.Created != len(in) {
			t.Fatalf("import %d: %v %+v", batch, err, res)
		}
		clock.Advance(time.Hour)
	}
	app := testenv.Audiences(s)
	icp, err := app.CreatePersona(ctx, orgID, "u", audience.Persona{Criteria: audience.Criteria{Name: "eng", JobTitles: []string{"engineer"}}})
	if err != nil {
		t.Fatal(err)
	}
	aud, err := app.Create(ctx, orgID, "u", audience.Audience{Name: "eng", ICPID: icp.ID}, audience.Price{})
	if err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		if done, err = app.BuildSlice(ctx, orgID, aud.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	if aud, err = app.Get(ctx, orgID, aud.ID); err != nil || aud.TotalMatch != 30 {
		t.Fatalf("audience %+v, %v; want 30 members", aud, err)
	}
	res, err := db.Query(ctx, &dynamodb.QueryInput{
		TableName:              &table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :p)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID},
			":p":  &types.AttributeValueMemberS{Value: "AMEMBER#" + aud.ID + "#"},
		},
	})
	if err != nil || len(res.Items) != 30 {
		t.Fatalf("member items: %d, %v", len(res.Items), err)
	}
	// Every member gets the old form of its index entry, as an audience
	// built before and not rebuilt since has them (a rebuild replaces all
	// of them).
	for _, it := range res.Items {
		_, err := db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &table, Key: map[string]types.AttributeValue{"PK": it["PK"], "SK": it["SK"]},
			UpdateExpression: aws.String("SET LSK = SK"),
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, order := range []gifting.SortOrder{gifting.Desc, gifting.Asc} {
		t.Run(string(order), func(t *testing.T) {
			var got []audience.Member
			for page := 1; page <= 4; page++ {
				_, items, total, err := app.Members(ctx, orgID, aud.ID, audience.MemberQuery{SortBy: "createdAt", Order: order, Page: gifting.PageRequest{Page: page, Limit: 8}})
				if err != nil || total != 30 {
					t.Fatalf("page %d: total %d, %v", page, total, err)
				}
				got = append(got, items...)
			}
			ids := map[string]bool{}
			for _, m := range got {
				ids[m.ContactID] = true
			}
			if len(got) != 30 || len(ids) != 30 {
				t.Fatalf("listed %d members (%d distinct), want 30", len(got), len(ids))
			}
			sorted := slices.IsSortedFunc(got, func(a, b audience.Member) int {
				if order == gifting.Desc {
					return b.CreatedAt.Compare(a.CreatedAt)
				}
				return a.CreatedAt.Compare(b.CreatedAt)
			})
			if !sorted {
				t.Errorf("members not in createdAt %s order", order)
			}
		})
	}
}

// builtAudience returns a ready audience of n members, all of orgID's n
// contacts.
func builtAudience(t *testing.T, s *dynamo.Store, orgID string, n int) audience.Audience {
	t.Helper()
	ctx := context.Background()
	aud := engineersAudience(t, s, orgID, n, func(int) bool { return true }, nil)
	app := testenv.Audiences(s)
	for done := false; !done; {
		var err error
		if done, err = app.BuildSlice(ctx, orgID, aud.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	aud, err := app.Get(ctx, orgID, aud.ID)
	if err != nil || aud.TotalMatch != int64(n) {
		t.Fatalf("audience %+v, %v; want %d members", aud, err, n)
	}
	return aud
}
