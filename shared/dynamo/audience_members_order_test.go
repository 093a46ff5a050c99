package dynamo_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestAudienceMembersSortedByCreatedAt: an audience's contacts listed by
// createdAt (the default order) come in the order of the createdAt each
// item shows, page after page, searched or not. Contact ids are derived
// from the email and do not sort by creation, so an order by id put
// contacts imported a day apart side by side.
func TestAudienceMembersSortedByCreatedAt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clock := &testenv.Clock{}
	s := testenv.Store(t, dynamo.WithClock(clock.Now))
	orgID, _ := testenv.Org(t, s, "acme", 0)
	l, err := s.CreateContactList(ctx, orgID, "u", "seed", "")
	if err != nil {
		t.Fatal(err)
	}
	// Four imports an hour apart, eight engineers each.
	for batch := range 4 {
		var in []contact.Input
		for i := range 8 {
			in = append(in, contact.Input{MailID: fmt.Sprintf("b%d-%d@example.com", batch, i), FirstName: "Ann", JobTitle: "Software Engineer"})
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
	price := int64(1)
	aud, err := app.Create(ctx, orgID, "u", audience.Audience{Name: "eng", ICPID: icp.ID}, audience.Price{CreditsPerContact: &price})
	if err != nil {
		t.Fatal(err)
	}
	for done := false; !done; {
		if done, err = app.BuildSlice(ctx, orgID, aud.ID, 1000); err != nil {
			t.Fatal(err)
		}
	}
	if aud, err = app.Get(ctx, orgID, aud.ID); err != nil || aud.TotalMatch != 32 {
		t.Fatalf("audience: %+v %v; want 32 members", aud, err)
	}

	for _, tt := range []struct {
		name   string
		order  gifting.SortOrder
		search string
	}{
		{"newest first", gifting.Desc, ""},
		{"oldest first", gifting.Asc, ""},
		{"newest first, searched", gifting.Desc, "ann"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []audience.Member
			for page := 1; page <= 5; page++ {
				_, items, total, err := app.Members(ctx, orgID, aud.ID, audience.MemberQuery{
					Search: tt.search, SortBy: "createdAt", Order: tt.order, Page: gifting.PageRequest{Page: page, Limit: 7},
				})
				if err != nil || total != 32 {
					t.Fatalf("page %d: total %d, %v", page, total, err)
				}
				got = append(got, items...)
			}
			if len(got) != 32 {
				t.Fatalf("the pages listed %d members, want 32", len(got))
			}
			sorted := slices.IsSortedFunc(got, func(a, b audience.Member) int {
				if tt.order == gifting.Desc {
					return b.CreatedAt.Compare(a.CreatedAt)
				}
				return a.CreatedAt.Compare(b.CreatedAt)
			})
			if !sorted {
				var at []string
				for _, m := range got {
					at = append(at, m.CreatedAt.Format("15:04"))
				}
				t.Errorf("members by createdAt %s came in this createdAt order: %v", tt.order, at)
			}
		})
	}
}
