package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// delivered adds a recipient, claims its gift, ships its order and moves
// it to delivered.
func (f *fixture) delivered(t *testing.T, email string) recipient.Recipient {
	t.Helper()
	r := f.add(t, email)
	testenv.Claim(t, f.s, f.orgID, f.campaign, r.RecipientID)
	testenv.Ship(t, f.s, f.orgID, f.campaign, r.RecipientID)
	if _, err := testenv.Recipients(f.s).Move(context.Background(), f.orgID, f.campaign, r.RecipientID, gifting.RecipientDelivered); err != nil {
		t.Fatal(err)
	}
	return r
}

// The post-delivery and post-acknowledgement emails of the catalog's
// templates link to {{claimPageUrl}}: once the gift is claimed, that link
// must lead to the landing page (status, "It arrived", feedback), not to
// an error page.
func TestClaimLinkAfterTheClaimLeadsToTheLandingPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.delivered(t, "jane@example.com")
	res := f.do(t, "GET", "/claim/"+r.ClaimPageID, nil)
	if res.status != http.StatusSeeOther || res.header.Get("Location") != "/gift/"+r.LandingPageID {
		t.Fatalf("claim page after the claim: %d Location %q, want 303 to the landing page", res.status, res.header.Get("Location"))
	}
	if res.header.Get("Referrer-Policy") != "no-referrer" || res.header.Get("Cache-Control") != "no-store" {
		t.Errorf("redirect without the pages' safety headers: %v", res.header)
	}
	t.Run("a second claim post is still refused", func(t *testing.T) {
		res := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID))
		if res.status != http.StatusConflict || !strings.Contains(res.body, `href="/gift/`+r.LandingPageID+`"`) {
			t.Errorf("second claim: %d, want 409 leading to the landing page", res.status)
		}
	})
}

// A double click on "Send feedback" (or a reload of the post) stores the
// message once.
func TestRepeatedFeedbackIsStoredOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.delivered(t, "jane@example.com")
	form := url.Values{"rating": {"like"}, "message": {"Lovely, thank you!"}}
	for i := range 2 {
		if res := f.do(t, "POST", "/gift/"+r.LandingPageID+"/feedback", form); res.status != http.StatusSeeOther {
			t.Fatalf("feedback %d: %d %s", i+1, res.status, res.body)
		}
	}
	got := f.recipient(t, r.RecipientID).Feedback
	if len(got.Message) != 1 || got.Rating == nil || got.Rating.Value != "like" {
		t.Errorf("feedback after the same post twice: rating %+v, %d messages %+v; want one message", got.Rating, len(got.Message), got.Message)
	}
	t.Run("a different message is kept", func(t *testing.T) {
		if res := f.do(t, "POST", "/gift/"+r.LandingPageID+"/feedback", url.Values{"message": {"And fast!"}}); res.status != http.StatusSeeOther {
			t.Fatalf("feedback: %d", res.status)
		}
		if got := f.recipient(t, r.RecipientID).Feedback.Message; len(got) != 2 || got[1].Text != "And fast!" {
			t.Errorf("messages %+v, want the second one added", got)
		}
	})
}

// A double click on "It arrived" ends on the landing page, not on an
// error page with no way back.
func TestAcknowledgeTwice(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	r := f.delivered(t, "jane@example.com")
	var wg sync.WaitGroup
	statuses := make([]int, 3)
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = f.do(t, "POST", "/gift/"+r.LandingPageID+"/acknowledge", url.Values{}).status
		})
	}
	wg.Wait()
	res := f.do(t, "POST", "/gift/"+r.LandingPageID+"/acknowledge", url.Values{})
	statuses = append(statuses, res.status)
	for i, st := range statuses {
		if st != http.StatusSeeOther {
			t.Errorf("It arrived #%d: %d, want 303 to the landing page", i+1, st)
		}
	}
	if got := f.recipient(t, r.RecipientID); got.Status != gifting.RecipientAcknowledged {
		t.Errorf("status %s, want acknowledged", got.Status)
	}
}

// Error pages speak to the recipient: no recipient id, no status codes,
// no sentence starting in lower case.
func TestProblemPagesShowNoInternalText(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	full := f.delivered(t, "full@example.com")
	for i := range recipient.MaxFeedbackMessages {
		if _, err := testenv.Recipients(f.s).Feedback(context.Background(), f.orgID, f.campaign, full.RecipientID, "",
			&recipient.FeedbackMessage{Type: "text", Text: fmt.Sprint("note ", i)}); err != nil {
			t.Fatal(err)
		}
	}
	claimed := f.add(t, "claimed@example.com")
	testenv.Claim(t, f.s, f.orgID, f.campaign, claimed.RecipientID)
	testenv.SetCampaignStatus(t, f.s, f.orgID, f.campaign, campaign.Live)
	expired := f.add(t, "expired@example.com")
	if ok, err := testenv.Recipients(f.s).Expire(context.Background(), f.orgID, f.campaign, expired.RecipientID, false); err != nil || !ok {
		t.Fatalf("expire: %v %v", ok, err)
	}
	for name, tc := range map[string]struct {
		method, path string
		form         url.Values
		status       int
		r            recipient.Recipient
	}{
		"too many feedback messages": {"POST", "/gift/" + full.LandingPageID + "/feedback", url.Values{"message": {"one more"}}, 409, full},
		"feedback before delivery":   {"POST", "/gift/" + claimed.LandingPageID + "/feedback", url.Values{"rating": {"like"}}, 409, claimed},
		"it arrived before delivery": {"POST", "/gift/" + claimed.LandingPageID + "/acknowledge", url.Values{}, 409, claimed},
		"second claim":               {"POST", "/claim/" + claimed.ClaimPageID, address(f.cheap.GiftID), 409, claimed},
		"expired claim page":         {"GET", "/claim/" + expired.ClaimPageID, nil, 410, expired},
	} {
		t.Run(name, func(t *testing.T) {
			res := f.do(t, tc.method, tc.path, tc.form)
			if res.status != tc.status {
				t.Fatalf("%d, want %d", res.status, tc.status)
			}
			_, after, _ := strings.Cut(res.body, "<h1>")
			text, _, _ := strings.Cut(after, "<footer>")
			for _, internal := range []string{tc.r.RecipientID, "invite_sent", "address_confirmed", "&#34;"} {
				if strings.Contains(text, internal) {
					t.Errorf("page shows %q: %s", internal, text)
				}
			}
			for _, p := range strings.Split(text, "<p>")[1:] {
				if p != "" && strings.ToLower(p[:1]) == p[:1] && strings.ToUpper(p[:1]) != p[:1] {
					t.Errorf("paragraph starts in lower case: %q", p)
				}
			}
		})
	}
}

// The landing page of a recipient whose claim expired says so; it does not
// offer a claim that the claim page then refuses.
func TestExpiredLandingPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	testenv.SetCampaignStatus(t, f.s, f.orgID, f.campaign, campaign.Live)
	r := f.add(t, "jane@example.com")
	if ok, err := testenv.Recipients(f.s).Expire(context.Background(), f.orgID, f.campaign, r.RecipientID, false); err != nil || !ok {
		t.Fatalf("expire: %v %v", ok, err)
	}
	res := f.do(t, "GET", "/gift/"+r.LandingPageID, nil)
	if res.status != http.StatusGone || !strings.Contains(res.body, "This gift has expired") || strings.Contains(res.body, "/claim/") {
		t.Errorf("expired landing page: %d %s, want 410 saying the gift expired, with no claim link", res.status, res.body)
	}
	t.Run("unsubscribing still works", func(t *testing.T) {
		if res := f.do(t, "POST", "/unsubscribe/"+r.LandingPageID, url.Values{}); res.status != http.StatusOK {
			t.Errorf("unsubscribe: %d", res.status)
		}
	})
}
