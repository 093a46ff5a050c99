package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestBrowserMeeting follows a campaign's meeting link in a real
// Chromium: offered beside the claim when it is not required; when it is,
// first on the page with the reason and no claim button, the click landing
// on the stored booking URL (an https server of the test's, whose
// certificate the browser is told to accept), and back on the landing page
// the claim form opening. axe-core finds no WCAG 2.1 AA violation in any
// state. With SCREENSHOTS set it saves the three states (`make
// screenshots`).
func TestBrowserMeeting(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	axe := axeSource(t)
	var booked atomic.Value
	booking := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/favicon.ico" {
			booked.Store(r.URL.RequestURI())
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><title>Book</title><h1>Pick a time</h1></html>`)
	}))
	t.Cleanup(booking.Close)
	stored := booking.URL + "/maya/intro?ref=gift"

	f, ts := demoServer(t)
	add := func(email, first string) recipient.Recipient {
		t.Helper()
		added, err := testenv.Recipients(f.s).Write(context.Background(), recipient.AddInput{OrgID: f.orgID, CampaignID: f.campaign,
			SourceType: "api", PublicBaseURL: ts.URL, Contact: gifting.ContactInput{MailID: email, FirstName: first, LastName: "Lin"}})
		if err != nil {
			t.Fatal(err)
		}
		return added.Recipient
	}
	f.withMeetingAt(t, stored, false)
	offered := add("maya@example.com", "Maya")
	f.withMeetingAt(t, stored, true)
	required := add("theo@example.com", "Theo")

	bctx, run := browse(t, bin, chromedp.Flag("ignore-certificate-errors", true))
	var claimLinks int
	countClaimLinks := chromedp.Evaluate(`document.querySelectorAll('a[href^="/claim/"]').length`, &claimLinks)

	run("open the landing page with an optional meeting", chromedp.Navigate(ts.URL+"/gift/"+offered.LandingPageID),
		chromedp.WaitVisible(`//a[contains(., "Book a meeting with")]`), countClaimLinks, screenshots("meeting-1-offered"))
	if claimLinks != 1 {
		t.Errorf("an optional meeting: %d claim buttons, want 1", claimLinks)
	}
	checkAccessible(bctx, t, axe, "landing with an optional meeting")

	run("open the landing page with a required meeting", chromedp.Navigate(ts.URL+"/gift/"+required.LandingPageID),
		chromedp.WaitVisible(`//h2[contains(., "First, a short meeting")]`), countClaimLinks, screenshots("meeting-2-required"))
	if claimLinks != 0 {
		t.Errorf("a required meeting not followed: %d claim buttons, want none", claimLinks)
	}
	checkAccessible(bctx, t, axe, "landing before a required meeting")

	var at string
	run("follow the meeting link", chromedp.Click(`//a[contains(., "Book a meeting with")]`),
		chromedp.WaitVisible(`//h1[contains(., "Pick a time")]`), chromedp.Location(&at))
	if at != stored || booked.Load() != "/maya/intro?ref=gift" {
		t.Errorf("the link led to %q (the booking server saw %v), want %s", at, booked.Load(), stored)
	}
	if got := f.recipient(t, required.RecipientID); got.MeetingClickedAt == nil {
		t.Error("meetingClickedAt not recorded")
	}

	run("back on the landing page", chromedp.Navigate(ts.URL+"/gift/"+required.LandingPageID),
		chromedp.WaitVisible(`a[href^="/claim/"]`), screenshots("meeting-3-followed"))
	checkAccessible(bctx, t, axe, "landing after the meeting")
	run("open the claim form", chromedp.Click(`a[href^="/claim/"]`), chromedp.WaitVisible("#line1"))
	checkAccessible(bctx, t, axe, "claim form after the meeting")
}
