package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

type suppressionPage struct {
	Data struct {
		Items []struct {
			Email, Reason string
		}
		NextCursor string
	}
}

// TestSuppressionList: an organization reads its suppression list, adds an
// address by hand (case does not matter; adding it again keeps the first
// entry), takes off an address that bounced, and cannot take off one whose
// owner unsubscribed or complained. A suppressed address gets no email;
// one taken off gets them again. Another organization sees none of it.
func TestSuppressionList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "suppress", 1000)
	_, otherKey := testenv.Org(t, s, "suppress-other", 0)
	api := testenv.NewAPI(t, s, key)
	other := api.WithKey(otherKey)
	// What the service itself writes on a bounce, an unsubscribe, a complaint.
	for addr, reason := range map[string]string{"carol@example.com": "bounced", "bob@example.com": "unsubscribed", "erin@example.com": "complained"} {
		if err := s.Suppress(ctx, orgID, addr, reason); err != nil {
			t.Fatal(err)
		}
	}

	if res := api.Do("POST", "/api/campaigns/suppressions", map[string]any{"email": "Dan@Example.com"}); res.Status != http.StatusCreated ||
		!strings.Contains(string(res.Body), `"email":"dan@example.com","reason":"manual"`) {
		t.Fatalf("suppress dan: %d %s, want 201 with the lower-cased address, reason manual", res.Status, res.Body)
	}
	if res := api.Do("POST", "/api/campaigns/suppressions", map[string]any{"email": "BOB@example.com"}); res.Status != http.StatusOK ||
		!strings.Contains(string(res.Body), `"reason":"unsubscribed"`) {
		t.Errorf("suppress bob again: %d %s, want 200 keeping the reason unsubscribed", res.Status, res.Body)
	}
	if res := api.Do("POST", "/api/campaigns/suppressions", map[string]any{"email": "not an address"}); res.Status != http.StatusBadRequest {
		t.Errorf("suppress a non-address: %d, want 400", res.Status)
	}

	for _, addr := range []string{"bob@example.com", "erin@example.com"} {
		if res := api.Do("DELETE", "/api/campaigns/suppressions?email="+addr, nil); res.Status != http.StatusConflict {
			t.Errorf("take off %s: %d %s, want 409 (its owner asked)", addr, res.Status, res.Body)
		}
	}
	if res := other.Do("DELETE", "/api/campaigns/suppressions?email=carol@example.com", nil); res.Status != http.StatusNotFound {
		t.Errorf("another organization takes off carol: %d, want 404", res.Status)
	}
	if res := api.Do("DELETE", "/api/campaigns/suppressions?email=Carol@example.com", nil); res.Status != http.StatusOK {
		t.Fatalf("take off carol (bounced): %d %s", res.Status, res.Body)
	}
	lookup := func(addr string) int {
		var p suppressionPage
		api.Do("GET", "/api/campaigns/suppressions?email="+addr, nil).JSON(t, &p)
		return len(p.Data.Items)
	}
	if n := lookup("carol@example.com"); n != 0 {
		t.Errorf("carol after removal: %d entries, want none", n)
	}
	if n := lookup("BOB@example.com"); n != 1 {
		t.Errorf("bob: %d entries, want 1", n)
	}

	c := liveCampaign(t, s, api, orgID, 1)
	for addr, want := range map[string]bool{"dan@example.com": false, "carol@example.com": true} {
		res := api.Do("POST", addPath(c.CampaignID), recipientBody(addr, "Sam"))
		if res.Status != http.StatusOK || res.Map(t)["emailSent"] != want {
			t.Errorf("add %s: %d %s, want emailSent %v", addr, res.Status, res.Body, want)
		}
	}

	var mine, theirs suppressionPage
	api.Do("GET", "/api/campaigns/suppressions", nil).JSON(t, &mine)
	other.Do("GET", "/api/campaigns/suppressions", nil).JSON(t, &theirs)
	got := map[string]string{}
	for _, e := range mine.Data.Items {
		got[e.Email] = e.Reason
	}
	want := map[string]string{"bob@example.com": "unsubscribed", "erin@example.com": "complained", "dan@example.com": "manual"}
	if fmt.Sprint(got) != fmt.Sprint(want) || mine.Data.NextCursor != "" {
		t.Errorf("the list: %v (next %q), want %v", got, mine.Data.NextCursor, want)
	}
	if len(theirs.Data.Items) != 0 {
		t.Errorf("another organization's list: %v, want none", theirs.Data.Items)
	}
}

// TestSuppressionListPages: a list walked by nextCursor gives every
// address once; a cursor that is not one is a 400.
func TestSuppressionListPages(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "suppress-pages", 0)
	api := testenv.NewAPI(t, s, key)
	for i := range 8 {
		if res := api.Do("POST", "/api/campaigns/suppressions", map[string]any{"email": fmt.Sprintf("p%d@example.com", i)}); res.Status != http.StatusCreated {
			t.Fatalf("suppress: %d %s", res.Status, res.Body)
		}
	}
	seen := map[string]int{}
	cursor, pages := "", 0
	for {
		var p suppressionPage
		path := "/api/campaigns/suppressions?limit=3"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		res := api.Do("GET", path, nil)
		if res.Status != http.StatusOK {
			t.Fatalf("page: %d %s", res.Status, res.Body)
		}
		res.JSON(t, &p)
		pages++
		for _, e := range p.Data.Items {
			seen[e.Email]++
		}
		if cursor = p.Data.NextCursor; cursor == "" || pages > 5 {
			break
		}
	}
	if len(seen) != 8 || pages < 3 {
		t.Errorf("walked %d pages, saw %v: want the 8 addresses once each", pages, seen)
	}
	for e, n := range seen {
		if n != 1 {
			t.Errorf("%s seen %d times", e, n)
		}
	}
	if res := api.Do("GET", "/api/campaigns/suppressions?cursor=p0@example.com", nil); res.Status != http.StatusBadRequest {
		t.Errorf("a cursor that is an address: %d, want 400", res.Status)
	}
}

// TestSuppressionsAcrossColdStarts: on a new stack the first address added
// through the API makes the suppression key (the contacts function's
// first use), and other processes, which open that key from the table,
// find the address: the contacts function's list, and the recipients
// function's add-recipient, which sends it nothing.
func TestSuppressionsAcrossColdStarts(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "suppress-cold", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	if res := api.Do("POST", "/api/campaigns/suppressions", map[string]any{"email": "ann@example.com"}); res.Status != http.StatusCreated {
		t.Fatalf("suppress ann: %d %s", res.Status, res.Body)
	}
	cold := testenv.NewAPI(t, dynamo.New(testenv.Client(t), s.Table(), testenv.SuppressionKey(t)), key)
	for email, want := range map[string]int{"ANN@example.com": 1, "bea@example.com": 0} {
		res := cold.Do("GET", "/api/campaigns/suppressions?email="+email, nil)
		var page suppressionPage
		res.JSON(t, &page)
		if res.Status != http.StatusOK || len(page.Data.Items) != want {
			t.Errorf("%s from a cold start: %d %s, want %d entries", email, res.Status, res.Body, want)
		}
	}
	// The recipients function's cold start: adding ann to a live campaign
	// finds her suppressed and sends her nothing.
	c := liveCampaign(t, s, api, orgID, 1)
	coldRecipients := testenv.NewAPI(t, dynamo.New(testenv.Client(t), s.Table(), testenv.SuppressionKey(t)), key)
	if res := coldRecipients.Do("POST", addPath(c.CampaignID), recipientBody("ann@example.com", "Ann")); res.Status != http.StatusOK ||
		res.Map(t)["emailSent"] != false || len(coldRecipients.Mail.Sent()) != 0 {
		t.Errorf("add ann from a cold start: %d %s, %d emails; want emailSent false and none", res.Status, res.Body, len(coldRecipients.Mail.Sent()))
	}
}
