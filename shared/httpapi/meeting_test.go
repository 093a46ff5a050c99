package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// TestMeetingLinkEndToEnd: a template's meeting link is checked (https
// only) and reaches a campaign made from it, whose own link is checked too
// and wins once set; the landing page holds back the claim until the
// required link is followed; the pages' meeting route redirects to the
// stored URL; the recipient then shows viewedAt and meetingClickedAt; and a
// real receiver gets recipient.viewed and recipient.meeting_link_clicked
// once each, signed, however often the page is opened and the link
// followed.
func TestMeetingLinkEndToEnd(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "meeting-hooks", 100)
	api := testenv.NewAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	rc := newReceiver(t)
	wh := createWebhook(t, api, rc.srv.URL, "recipient.viewed", "recipient.meeting_link_clicked")

	const teamURL, ownURL = "https://cal.example/team/intro", "https://calendly.example/ada/30min"
	template := func(url string) map[string]any {
		return map[string]any{"templateName": "Book first", "templateData": map[string]any{
			"goal":    map[string]any{"goalId": "g1", "name": "Meet", "description": "A first call"},
			"meeting": map[string]any{"url": url, "required": true}}}
	}
	res := api.Do("POST", "/api/campaigns/templates", template("http://cal.example/team"))
	if res.Status != http.StatusBadRequest || !strings.Contains(string(res.Body), "templateData.meeting.url") {
		t.Fatalf("an http meeting link on a template: %d %s, want 400 naming templateData.meeting.url", res.Status, res.Body)
	}
	var tmpl struct {
		Data struct {
			TemplateID string `json:"templateId"`
		} `json:"data"`
	}
	res = api.Do("POST", "/api/campaigns/templates", template(teamURL))
	res.JSON(t, &tmpl)
	if res.Status != http.StatusCreated || !strings.Contains(string(res.Body), teamURL) {
		t.Fatalf("create template: %d %s", res.Status, res.Body)
	}
	campaignID := createCampaign(t, api, 10)
	patch := func(data map[string]any) testenv.Response {
		return api.Do("PATCH", "/api/campaigns/"+campaignID, map[string]any{"campaignData": data})
	}
	if res := patch(map[string]any{"emailTemplateId": tmpl.Data.TemplateID}); res.Status != http.StatusOK {
		t.Fatalf("use the template: %d %s", res.Status, res.Body)
	}
	for _, bad := range []string{"javascript:alert(1)", "http://calendly.example/ada", "https://" + strings.Repeat("a", 2050)} {
		if res := patch(map[string]any{"meeting": map[string]any{"url": bad}}); res.Status != http.StatusBadRequest ||
			!strings.Contains(string(res.Body), "campaignData.meeting.url") {
			t.Errorf("meeting url %.30q: %d %s, want 400 naming campaignData.meeting.url", bad, res.Status, res.Body)
		}
	}

	var added wire.AddedRecipient
	res = api.Do("POST", addPath(campaignID), recipientBody("ada@example.com", "Ada"))
	res.JSON(t, &added)
	landingURL, err := url.Parse(added.LandingPageURL)
	if res.Status != http.StatusOK || err != nil || !strings.HasPrefix(landingURL.Path, "/gift/") {
		t.Fatalf("add recipient: %d %s", res.Status, res.Body)
	}
	claimPath := strings.TrimPrefix(added.ClaimPageURL, "https://gifts.test")
	pages := httptest.NewServer(site.New(s, testenv.Quiet))
	t.Cleanup(pages.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := client.Get(pages.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Location"), string(body)
	}
	landing := landingURL.Path
	for range 2 {
		if status, _, body := get(landing); status != http.StatusOK || !strings.Contains(body, "Book a meeting with") || strings.Contains(body, "/claim/") {
			t.Fatalf("landing page before the required meeting: %d %s", status, body)
		}
	}
	for range 2 {
		if status, loc, _ := get(landing + "/meeting?url=https://evil.example/"); status != http.StatusSeeOther || loc != teamURL {
			t.Fatalf("meeting link: %d to %q, want 303 to the template's %s", status, loc, teamURL)
		}
	}
	if _, _, body := get(landing); !strings.Contains(body, claimPath) {
		t.Errorf("the landing page holds back the claim after the meeting: %s", body)
	}
	// The campaign's own link wins over its template's.
	if res := patch(map[string]any{"meeting": map[string]any{"url": ownURL}}); res.Status != http.StatusOK ||
		!strings.Contains(string(res.Body), ownURL) {
		t.Fatalf("own meeting: %d %s", res.Status, res.Body)
	}
	if status, loc, _ := get(landing + "/meeting"); status != http.StatusSeeOther || loc != ownURL {
		t.Errorf("meeting link after the campaign's own: %d to %q, want %s", status, loc, ownURL)
	}

	var rcpt struct {
		Data struct {
			ViewedAt         *time.Time `json:"viewedAt"`
			MeetingClickedAt *time.Time `json:"meetingClickedAt"`
		} `json:"data"`
	}
	res = api.Do("GET", "/api/campaigns/campaigns/"+campaignID+"/recipients/"+added.RecipientID, nil)
	res.JSON(t, &rcpt)
	if res.Status != http.StatusOK || rcpt.Data.ViewedAt == nil || rcpt.Data.MeetingClickedAt == nil {
		t.Errorf("recipient after the view and the click: %d %s", res.Status, res.Body)
	}

	rc.wait(t, 2)
	time.Sleep(500 * time.Millisecond) // time for a wrong third message to arrive
	got := rc.wait(t, 2)
	var types []string
	for _, r := range got {
		if !verifies(t, wh.Data.Secret, r) {
			t.Errorf("the signature %q does not verify", r.sig)
		}
		var m message
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(m.Data), added.RecipientID) || (m.Type == "recipient.meeting_link_clicked" && !strings.Contains(string(m.Data), "meetingClickedAt")) {
			t.Errorf("%s carries %s", m.Type, m.Data)
		}
		types = append(types, m.Type)
	}
	slices.Sort(types)
	if want := []string{"recipient.meeting_link_clicked", "recipient.viewed"}; !slices.Equal(types, want) {
		t.Errorf("the receiver got %v, want one of each of %v (three views and three clicks)", types, want)
	}
}
