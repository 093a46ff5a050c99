package dynamo_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/bench/meter"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// namedCampaign is a live campaign of n recipients whose names are drawn
// from firsts and lasts, written as the store writes recipients (with
// their word entries).
func namedCampaign(t *testing.T, s *dynamo.Store, orgID string, n int, firsts, lasts []string) (string, []recipient.Recipient) {
	t.Helper()
	ctx := context.Background()
	c, err := testenv.CreateCampaign(ctx, s, orgID, campaign.Campaign{Name: "names", Status: campaign.Live})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	rs := make([]recipient.Recipient, n)
	for i := range rs {
		at := start.Add(time.Duration(rng.IntN(1_000_000)) * time.Second)
		rs[i] = recipient.Recipient{CampaignID: c.CampaignID, RecipientID: fmt.Sprintf("r%05d", i), Status: gifting.RecipientInviteSent,
			CreatedAt: at, UpdatedAt: at, ContactDetails: recipient.ContactDetails{
				FirstName: firsts[rng.IntN(len(firsts))], LastName: lasts[rng.IntN(len(lasts))], Email: fmt.Sprintf("p%d@example.com", i)}}
	}
	if err := s.PutRecipients(ctx, orgID, c.CampaignID, rs); err != nil {
		t.Fatal(err)
	}
	return c.CampaignID, rs
}

var (
	searchFirsts = []string{"Ann", "Anna", "Annabel", "Hannah", "Jo", "John", "Johnny", "Ann Annika", "Élodie", "Zoë"}
	searchLasts  = []string{"Smith", "Smithson", "O'Neil", "van der Berg", "Anders", "Li", "Johnson"}
	// searches: word prefixes (one or more words, any case), terms too
	// short for an entry (the Slim partition answers), a substring that
	// starts no word, none at all.
	searches = []string{"ann", "ANNA", "annabel", "smith", "ann smith", "smith ann", "hann", "berg", "van berg",
		"joh", "john johnson", "jo", "li", "o'n", "élo", "zoë", "nna", "xyz"}
)

// searchPages lists, for every search and order, pages 1 to 3 of 9: ids
// and totals.
func searchPages(t *testing.T, s *dynamo.Store, orgID, campaignID string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, text := range searches {
		for _, order := range []gifting.SortOrder{gifting.Desc, gifting.Asc} {
			for page := 1; page <= 3; page++ {
				q := recipient.Query{Search: text, Order: order, Page: gifting.PageRequest{Page: page, Limit: 9}}
				ids, total := pageIDs(t, s, orgID, campaignID, q)
				got[fmt.Sprintf("%q %s page %d", text, order, page)] = append(ids, fmt.Sprint("total ", total))
			}
		}
	}
	return got
}

// TestRecipientSearchAnswersAsBefore: every search of a 400-recipient
// campaign answers from the word entries exactly what the Slim partition
// answers (same recipients, order and total): a word prefix of the first
// or last name, each word of a multi-word search; a recipient with two
// words starting with the term is listed once; a substring that starts no
// word finds nobody.
func TestRecipientSearchAnswersAsBefore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rsearch", 0)
	campaignID, _ := namedCampaign(t, s, orgID, 400, searchFirsts, searchLasts)
	entries := searchPages(t, s, orgID, campaignID)
	if err := s.ForgetSearchMark(ctx, orgID, campaignID, true); err != nil {
		t.Fatal(err)
	}
	slim := searchPages(t, s, orgID, campaignID)
	for k, want := range slim {
		if got := entries[k]; !slices.Equal(got, want) {
			t.Errorf("search %s: the word entries list %v; the Slim partition %v", k, got, want)
		}
	}
	for _, k := range []string{`"nna" desc page 1`, `"xyz" desc page 1`} {
		if got := entries[k]; len(got) != 1 || got[0] != "total 0" {
			t.Errorf("search %s finds %v; want nobody", k, got)
		}
	}
	if got := entries[`"ann" desc page 1`]; len(got) != 10 {
		t.Errorf(`search "ann" lists %v; want a full page of 9`, got)
	}
	ids, total := pageIDs(t, s, orgID, campaignID, recipient.Query{Search: "ann", Page: gifting.PageRequest{Page: 1, Limit: 100}})
	if n := len(ids); n != min(total, 100) || len(slices.Compact(slices.Sorted(slices.Values(ids)))) != n {
		t.Errorf(`search "ann" lists %d recipients for a total of %d, or lists one twice`, n, total)
	}
}

// TestRecipientSearchCost: a search for a name 10 of 3,000 recipients
// have reads their word entries and the page, not the campaign: its
// queries read under 2 read units, where the Slim partition (the
// campaign's search mark forgotten) reads every recipient's entry.
func TestRecipientSearchCost(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m := meter.New(testenv.Client(t))
	s := dynamo.New(m, testenv.Table(t))
	orgID, _ := testenv.Org(t, s, "rsearchcost", 0)
	firsts := make([]string, 300)
	for i := range firsts {
		firsts[i] = fmt.Sprintf("Person%03d", i)
	}
	campaignID, _ := namedCampaign(t, s, orgID, 3_000, firsts, []string{"Doe"})
	queried := func() (float64, int) {
		t.Helper()
		u := &meter.Usage{Record: true}
		p, err := s.ListRecipients(meter.WithUsage(ctx, u), orgID, campaignID, recipient.Query{
			Search: "person042", Page: gifting.PageRequest{Page: 1, Limit: 20}})
		if err != nil {
			t.Fatal(err)
		}
		units := 0.0
		for _, c := range u.Calls() {
			if _, ok := c.Input.(*dynamodb.QueryInput); ok {
				units += c.ReadUnits
			}
		}
		return units, p.Total
	}
	indexed, found := queried()
	if err := s.ForgetSearchMark(ctx, orgID, campaignID, true); err != nil {
		t.Fatal(err)
	}
	whole, slimFound := queried()
	t.Logf("a search finding %d of 3,000 recipients: %.1f read units of queries, the Slim partition %.1f", found, indexed, whole)
	if found == 0 || found != slimFound {
		t.Fatalf("the search found %d from the entries, %d from the Slim partition", found, slimFound)
	}
	if indexed > 2 || whole < 20*indexed {
		t.Errorf("the search's queries read %.1f units (the Slim partition: %.1f); want under 2", indexed, whole)
	}
}

// TestRecipientSearchMigration: a campaign whose recipients have no word
// entries (the code before) answers its searches from the Slim partition;
// `admin migrate -steps recipient-search` writes them and marks the
// campaign, after which the searches answer the same; a second run
// changes nothing.
func TestRecipientSearchMigration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "rsearchmig", 0)
	campaignID, rs := namedCampaign(t, s, orgID, 150, searchFirsts, searchLasts)
	// A recipient whose words are all shorter than contact.TokenLen
	// (Jo Li) has no entry.
	keyed := 0
	for _, r := range rs {
		if r.ContactDetails.FirstName+" "+r.ContactDetails.LastName != "Jo Li" {
			keyed++
		}
	}
	want := searchPages(t, s, orgID, campaignID)
	if err := s.DropSearchEntries(ctx, orgID, campaignID); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetSearchMark(ctx, orgID, campaignID, true); err != nil {
		t.Fatal(err)
	}
	res, err := s.Migrate(ctx, orgID, []string{"recipient-search"})
	if err != nil || len(res) != 1 || res[0].Changed != keyed {
		t.Fatalf("migration: %+v, %v; want the entries of %d recipients written", res, err, keyed)
	}
	for k, w := range searchPages(t, s, orgID, campaignID) {
		if !slices.Equal(w, want[k]) {
			t.Errorf("after the migration, search %s lists %v; before, %v", k, w, want[k])
		}
	}
	if res, err := s.Migrate(ctx, orgID, []string{"recipient-search"}); err != nil || res[0].Changed != 0 {
		t.Fatalf("second run: %+v, %v; want nothing changed", res, err)
	}
}
