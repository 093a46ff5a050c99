package pages_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
)

// bookingURL is the meeting link the tests' campaigns carry.
const bookingURL = "https://cal.example/ada/30min?utm_source=gift"

// withMeeting makes the fixture's recipients those of a new campaign like
// its own, carrying a meeting link to bookingURL (required or not).
func (f *fixture) withMeeting(t *testing.T, required bool) {
	t.Helper()
	f.withMeetingAt(t, bookingURL, required)
}

// withMeetingAt is withMeeting with the meeting link's URL.
func (f *fixture) withMeetingAt(t *testing.T, bookingURL string, required bool) {
	t.Helper()
	c, err := testenv.CreateCampaign(context.Background(), f.s, f.orgID, campaign.Campaign{Name: "Spring thanks", CreatedBy: "user-1",
		CampaignData: campaign.Data{GiftIDs: []string{f.cheap.GiftID, f.dear.GiftID}, CreditsPerRecipient: f.creditsPerPerson, PriceSet: true,
			Meeting: &gifting.Meeting{URL: bookingURL, Required: required}}})
	if err != nil {
		t.Fatal(err)
	}
	f.campaign = c.CampaignID
}

// messages counts the change messages of type typ naming recipientID in
// the fixture's change feed (what the webhooks deliver).
func (f *fixture) messages(t *testing.T, typ, recipientID string) int {
	t.Helper()
	n := 0
	for _, rec := range testenv.ChangeRecords(t, f.s, f.orgID) {
		for _, m := range rec.Messages {
			if ref, ok := m.Data.(webhook.RecipientRef); ok && m.Type == typ && ref.RecipientID == recipientID {
				n++
			}
		}
	}
	return n
}

func TestMeetingLink(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.withMeeting(t, false)
	r := f.add(t, "jane@example.com")
	meeting := "/gift/" + r.LandingPageID + "/meeting"

	landing := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if !strings.Contains(landing.body, `href="`+meeting+`"`) || !strings.Contains(landing.body, "Book a meeting with Org acme") ||
		!strings.Contains(landing.body, `href="/claim/`+r.ClaimPageID+`"`) {
		t.Fatalf("the landing page lacks the meeting link beside the claim: %s", landing.body)
	}
	if strings.Contains(landing.body, "cal.example") {
		t.Error("the landing page shows the stored URL: only the meeting route's redirect may reveal it")
	}
	// A target in the request is never followed: only the stored URL.
	for i, path := range []string{meeting, meeting + "?url=https://evil.example/", meeting + "?next=//evil.example"} {
		res := f.do(t, "GET", path, nil)
		if res.status != http.StatusSeeOther || res.header.Get("Location") != bookingURL {
			t.Fatalf("click %d (%s): %d to %q, want 303 to %s", i+1, path, res.status, res.header.Get("Location"), bookingURL)
		}
	}
	got := f.recipient(t, r.RecipientID)
	if got.MeetingClickedAt == nil || got.ViewedAt == nil {
		t.Fatalf("after the clicks: meetingClickedAt %v, viewedAt %v", got.MeetingClickedAt, got.ViewedAt)
	}
	f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	again := f.recipient(t, r.RecipientID)
	if !again.MeetingClickedAt.Equal(*got.MeetingClickedAt) || !again.ViewedAt.Equal(*got.ViewedAt) {
		t.Errorf("the marks moved: clicked %v then %v, viewed %v then %v", got.MeetingClickedAt, again.MeetingClickedAt, got.ViewedAt, again.ViewedAt)
	}
	if n := f.messages(t, gifting.ChangeRecipientMeetingClicked, r.RecipientID); n != 1 {
		t.Errorf("%d recipient.meeting_link_clicked messages after three clicks, want 1", n)
	}
	if n := f.messages(t, gifting.ChangeRecipientViewed, r.RecipientID); n != 1 {
		t.Errorf("%d recipient.viewed messages after two views, want 1", n)
	}
	// The claim needs no meeting when it is not required.
	if res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)); res.status != http.StatusSeeOther {
		t.Errorf("claim: %d %s", res.status, res.body)
	}
}

func TestMeetingRequired(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.withMeeting(t, true)
	r := f.add(t, "jane@example.com")
	balance, _ := f.wallet(t)
	meeting := "/gift/" + r.LandingPageID + "/meeting"

	landing := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if !strings.Contains(landing.body, `href="`+meeting+`"`) || !strings.Contains(landing.body, "would like to meet you before you choose your gift") ||
		strings.Contains(landing.body, "/claim/") || strings.Index(landing.body, meeting) > strings.Index(landing.body, "Coffee") {
		t.Fatalf("before the meeting the landing page must say why, link the meeting first and offer no claim: %s", landing.body)
	}
	if res := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil); res.status != http.StatusSeeOther || res.header.Get("Location") != "/gift/"+r.LandingPageID {
		t.Errorf("claim page before the meeting: %d to %q, want 303 to the landing page", res.status, res.header.Get("Location"))
	}
	res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID))
	if res.status != http.StatusConflict || !strings.Contains(res.body, "Please book a meeting first") ||
		!strings.Contains(res.body, `href="/gift/`+r.LandingPageID+`"`) {
		t.Errorf("claim posted before the meeting: %d %s; want 409 saying why, leading to the landing page", res.status, res.body)
	}
	if got := f.recipient(t, r.RecipientID); got.Claimed() || got.Status != gifting.RecipientPending {
		t.Errorf("the refused claim changed the recipient: %s", got.Status)
	}
	if after, _ := f.wallet(t); after != balance || f.gift(t, f.cheap.GiftID).Inventory.Available != 5 {
		t.Error("the refused claim moved credits or stock")
	}

	if res := f.do(t, "GET", meeting, nil); res.status != http.StatusSeeOther || res.header.Get("Location") != bookingURL {
		t.Fatalf("meeting: %d to %q", res.status, res.header.Get("Location"))
	}
	after := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if !strings.Contains(after.body, `href="/claim/`+r.ClaimPageID+`"`) || strings.Contains(after.body, "would like to meet you before") {
		t.Errorf("after the meeting the landing page must offer the claim: %s", after.body)
	}
	if res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)); res.status != http.StatusSeeOther {
		t.Errorf("claim after the meeting: %d %s", res.status, res.body)
	}
	testenv.AssertLedgerBalanced(t, f.s, f.orgID)
}

func TestMeetingNotFound(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	plain := f.add(t, "plain@example.com") // a campaign without a meeting link
	f.withMeeting(t, false)
	r := f.add(t, "jane@example.com")
	for _, path := range []string{
		"/gift/" + plain.LandingPageID + "/meeting",
		"/gift/" + r.ClaimPageID + "/meeting", // a claim page id is no landing page
		"/gift/" + r.LandingPageID[:len(r.LandingPageID)-2] + "zz/meeting",
		"/gift/nope/meeting",
	} {
		res := f.do(t, "GET", path, nil)
		if res.status != http.StatusNotFound || !strings.Contains(res.body, "This page does not exist") || res.header.Get("Location") != "" {
			t.Errorf("%s: %d %q, want the 404 page", path, res.status, res.header.Get("Location"))
		}
	}
	if n := f.messages(t, gifting.ChangeRecipientMeetingClicked, plain.RecipientID); n != 0 {
		t.Errorf("%d messages for a campaign without a meeting link", n)
	}
}

// writeCountingDB counts the writes made through it.
type writeCountingDB struct {
	dynamo.DB
	writes atomic.Int64
}

func (d *writeCountingDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	d.writes.Add(1)
	return d.DB.UpdateItem(ctx, in, opts...)
}

func (d *writeCountingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	d.writes.Add(1)
	return d.DB.PutItem(ctx, in, opts...)
}

func (d *writeCountingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	d.writes.Add(1)
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// TestViewedOnce: of several first views at once, one records viewedAt
// and sends recipient.viewed; a later view and a later click write
// nothing at all.
func TestViewedOnce(t *testing.T) {
	t.Parallel()
	db := &writeCountingDB{DB: testenv.Client(t)}
	f := newFixture(t, db)
	f.withMeeting(t, false)
	r := f.add(t, "jane@example.com")
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := f.do(t, "GET", "/gift/"+r.LandingPageID, nil); res.status != http.StatusOK {
				t.Errorf("view: %d", res.status)
			}
		}()
	}
	wg.Wait()
	if n := f.messages(t, gifting.ChangeRecipientViewed, r.RecipientID); n != 1 {
		t.Errorf("%d recipient.viewed messages after four views at once, want 1", n)
	}
	f.do(t, "GET", "/gift/"+r.LandingPageID+"/meeting", nil)
	before := db.writes.Load()
	f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	f.do(t, "GET", "/gift/"+r.LandingPageID+"/meeting", nil)
	if n := db.writes.Load() - before; n != 0 {
		t.Errorf("a later view and click made %d writes, want none", n)
	}
}
