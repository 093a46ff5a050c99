package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestAudienceRebuildRacingContactList: a rebuild of a ready audience races
// its copy into a new contact list. One of them wins (202) and the other is
// CONFLICT (409), or both succeed one after the other; either way, once the
// jobs are done, every contact list that was answered 202 holds exactly the
// audience's members with a contactCount to match, a 409 leaves no contact
// list behind, the audience is ready with its progress entries final, and
// nothing is left due.
//
// An organization may make 30 audience-build requests a minute, so the
// rounds are shared by two organizations.
func TestAudienceRebuildRacingContactList(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	for _, org := range []string{"acme", "globex"} {
		raceRebuildAndCopy(t, s, org, raceRounds/2)
	}
	due, err := s.DueItems(context.Background(), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range due {
		t.Errorf("still due after every job ended: %+v", d)
	}
}

// raceRebuildAndCopy runs rounds of a rebuild racing a copy into a contact
// list, for a new organization named org, and checks each round's end.
func raceRebuildAndCopy(t *testing.T, s *dynamo.Store, org string, rounds int) {
	t.Helper()
	ctx := context.Background()
	orgID, key := testenv.Org(t, s, org, 0)
	api := testenv.NewAPI(t, s, key)
	ids := seedContacts(t, s, orgID, matchingPeople)
	want := contactIDsOf(ids, "alice@example.com", "carol@example.com", "dan@example.com", "hal@example.com")
	slices.Sort(want)
	icp := createPersona(t, api, map[string]any{"name": "sales", "departments": []string{"Sales"}})
	var env audienceEnvelope
	api.Do("POST", "/api/campaigns/audience-lists", map[string]any{"name": "Sales people", "icpId": icp}).JSON(t, &env)
	base := "/api/campaigns/audience-lists/" + env.Data.AudienceID
	api.Jobs.Wait()

	lists := 1 // the seed list
	rebuilt := 0
	for round := range rounds {
		var rebuild, copied testenv.Response
		together(
			func() { rebuild = api.Do("POST", base+"/rebuild", nil) },
			func() { copied = api.Do("POST", base+"/contact-list", nil) },
		)
		for _, r := range []struct {
			name string
			res  testenv.Response
		}{{"rebuild", rebuild}, {"contact-list", copied}} {
			if r.res.Status != http.StatusAccepted && r.res.Status != http.StatusConflict {
				t.Fatalf("round %d: %s racing the other: %d %s; want 202 or 409", round, r.name, r.res.Status, r.res.Body)
			}
		}
		if rebuild.Status == http.StatusAccepted {
			rebuilt++
		}
		api.Jobs.Wait()
		var a audienceEnvelope
		api.Do("GET", base, nil).JSON(t, &a)
		if a.Data.Status != string(audience.Ready) || a.Data.TotalMatch != int64(len(want)) {
			t.Fatalf("round %d: audience %s with %d matches after the jobs; want ready with %d", round, a.Data.Status, a.Data.TotalMatch, len(want))
		}
		for listID, p := range a.Data.Metadata.ContactLists {
			if p.Status != audience.ListReady {
				t.Errorf("round %d: copy into list %s is %q after the jobs; want %q", round, listID, p.Status, audience.ListReady)
			}
		}
		if copied.Status == http.StatusAccepted {
			lists++
			var started listStarted
			copied.JSON(t, &started)
			members, err := contact.NewApp(s, nil).MemberIDs(ctx, orgID, started.Data.ListID)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(members)
			l, err := s.ContactList(ctx, orgID, started.Data.ListID)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(members, want) || l.ContactCount != int64(len(want)) {
				t.Errorf("round %d: list made while rebuilding holds %v, contactCount %d; want %v, %d (rebuild %d)",
					round, members, l.ContactCount, want, len(want), rebuild.Status)
			}
		}
		_, total, err := contact.NewApp(s, nil).Lists(ctx, orgID, contact.ListQuery{Order: gifting.Desc, Page: gifting.PageRequest{Page: 1, Limit: 1}})
		if err != nil {
			t.Fatal(err)
		}
		if total != lists {
			t.Fatalf("round %d: %d contact lists after the copy answered %d; want %d (a refused copy leaves no list)",
				round, total, copied.Status, lists)
		}
	}
	t.Logf("%s: %d of %d rebuilds and %d copies accepted", org, rebuilt, rounds, lists-1)
}
