package httpapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhook"
	"github.com/giftcampaign/service/shared/wire"
)

// decoded returns the message of a delivered body.
func decoded(t *testing.T, r received) message {
	t.Helper()
	var m message
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("delivered body %s: %v", r.body, err)
	}
	return m
}

// sameJSON reports whether a message's data is the JSON value want (an
// API answer's data, decoded).
func sameJSON(t *testing.T, data json.RawMessage, want any) bool {
	t.Helper()
	var got any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(got, want)
}

// ofTypes keeps the messages whose type is one of types.
func ofTypes(t *testing.T, rs []received, types ...string) []message {
	t.Helper()
	var out []message
	for _, r := range rs {
		if m := decoded(t, r); slices.Contains(types, m.Type) {
			out = append(out, m)
		}
	}
	return out
}

// readWholeFeed reads every message of the change feed, page by page.
func readWholeFeed(t *testing.T, api *testenv.API) []message {
	t.Helper()
	var feed []message
	for after, pages := "", 0; ; pages++ {
		page := readFeed(t, api, after)
		if len(page.Items) == 0 {
			return feed
		}
		if pages > 50 {
			t.Fatal("the feed does not end")
		}
		feed, after = append(feed, page.Items...), page.NextCursor
	}
}

func TestWebhookCampaignLifecycle(t *testing.T) {
	t.Parallel()
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	orgID, key := testenv.Org(t, s, "hooks-lifecycle", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	all := newReceiver(t)
	createWebhook(t, api, all.srv.URL, "*")
	pausedOnly := newReceiver(t)
	pausedHook := createWebhook(t, api, pausedOnly.srv.URL, "campaign.paused")
	lifecycle := newReceiver(t)
	hook := createWebhook(t, api, lifecycle.srv.URL, "campaign.paused", "campaign.resumed", "campaign.completed")

	draft := createCampaign(t, api, 10)
	assertRefused(t, api.Do("POST", "/api/campaigns/"+draft+"/pause", nil), campaign.Draft)
	c := liveCampaign(t, s, api, orgID, 1)
	var answers []map[string]any
	for _, step := range []struct{ action, refusedAgainIn string }{
		{"pause", "in_progress"}, {"resume", "live"}, {"complete", "completed"},
	} {
		clk.add(time.Second)
		res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/"+step.action, map[string]any{"reason": "step " + step.action})
		if res.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", step.action, res.Status, res.Body)
		}
		data, _ := res.Map(t)["data"].(map[string]any)
		answers = append(answers, data)
		// The same action again is refused (409) and must record nothing.
		assertRefused(t, api.Do("POST", "/api/campaigns/"+c.CampaignID+"/"+step.action, nil), campaign.Status(step.refusedAgainIn))
	}

	t.Run("pause, resume and complete arrive signed, in order, with the campaign as written", func(t *testing.T) {
		got := lifecycle.wait(t, 3)
		want := []struct{ typ, status string }{
			{"campaign.paused", "in_progress"}, {"campaign.resumed", "live"}, {"campaign.completed", "completed"},
		}
		for i, r := range got {
			if !verifies(t, hook.Data.Secret, r) {
				t.Errorf("message %d: the signature %q does not verify", i, r.sig)
			}
			m := decoded(t, r)
			var data struct {
				CampaignID string `json:"campaignId"`
				Status     string `json:"status"`
			}
			if err := json.Unmarshal(m.Data, &data); err != nil {
				t.Fatal(err)
			}
			if i >= len(want) || m.Type != want[i].typ || data.Status != want[i].status || data.CampaignID != c.CampaignID ||
				m.OrganizationID != orgID || m.ID != r.id {
				t.Errorf("message %d: %s %s (status %q); want %v", i, m.Type, m.ID, data.Status, want)
				continue
			}
			if !sameJSON(t, m.Data, answers[i]) {
				t.Errorf("%s: data %s differs from the campaign the action answered with %v", m.Type, m.Data, answers[i])
			}
		}
		if len(got) != 3 {
			t.Errorf("the receiver got %d messages, want 3", len(got))
		}
	})

	t.Run("completing refunds the unclaimed recipient after the completion", func(t *testing.T) {
		got := ofTypes(t, all.wait(t, 1), "campaign.completed", "wallet.refunded")
		for deadline := time.Now().Add(10 * time.Second); len(got) < 2 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			got = ofTypes(t, all.wait(t, 1), "campaign.completed", "wallet.refunded")
		}
		if len(got) != 2 || got[0].Type != "campaign.completed" || got[1].Type != "wallet.refunded" {
			t.Fatalf("got %d messages %v; want campaign.completed, then the expiry's wallet.refunded", len(got), got)
		}
		var refund wire.WalletChange
		if err := json.Unmarshal(got[1].Data, &refund); err != nil {
			t.Fatal(err)
		}
		if refund.Entry.CampaignID != c.CampaignID || refund.Entry.Amount <= 0 {
			t.Errorf("refund %+v; want a refund of the campaign", refund.Entry)
		}
		testenv.AssertLedgerBalanced(t, s, orgID)
	})

	t.Run("an endpoint subscribed to campaign.paused gets only that", func(t *testing.T) {
		lifecycle.wait(t, 3) // the completion has been delivered, so the pause long before
		time.Sleep(200 * time.Millisecond)
		got := pausedOnly.wait(t, 1)
		if len(got) != 1 || decoded(t, got[0]).Type != "campaign.paused" || !verifies(t, pausedHook.Data.Secret, got[0]) {
			t.Errorf("the campaign.paused endpoint got %d messages (first %s); want the pause alone", len(got), got[0].body)
		}
	})

	t.Run("the change feed holds one record per committed action and none for the refusals", func(t *testing.T) {
		clk.add(webhook.FeedLag + time.Second)
		counts := map[string]int{}
		for _, m := range readWholeFeed(t, api) {
			if strings.HasPrefix(m.Type, "campaign.") {
				counts[m.Type]++
			}
		}
		want := map[string]int{"campaign.launched": 1, "campaign.live": 1, "campaign.paused": 1, "campaign.resumed": 1, "campaign.completed": 1}
		if !reflect.DeepEqual(counts, want) {
			t.Errorf("the feed holds %v, want %v (a refused action records nothing)", counts, want)
		}
	})
}

func TestWebhookAudienceEvents(t *testing.T) {
	t.Parallel()
	sales := []person{
		{"ann@example.com", "Sales Manager", "US", "CA"}, {"bob@example.com", "Sales Director", "US", "NY"},
		{"cid@example.com", "Account Executive, Sales", "US", "TX"}, {"eve@example.com", "Engineer", "US", "CA"},
	}
	// hooked is an API over s whose audience events reach a receiver.
	hooked := func(t *testing.T, s *dynamo.Store, api *testenv.API) (*receiver, webhookSecret) {
		t.Helper()
		testenv.StreamChanges(t, s, api.Service)
		rc := newReceiver(t)
		return rc, createWebhook(t, api, rc.srv.URL, "audience.ready", "audience.failed")
	}
	// assertAudienceMessage checks the only message rc got: type typ,
	// signed, with the audience as GET shows it.
	assertAudienceMessage := func(t *testing.T, api *testenv.API, rc *receiver, wh webhookSecret, typ string, id string) wire.Audience {
		t.Helper()
		got := rc.wait(t, 1)
		m := decoded(t, got[0])
		if m.Type != typ || !verifies(t, wh.Data.Secret, got[0]) {
			t.Fatalf("got %s (signature %q); want a signed %s", got[0].body, got[0].sig, typ)
		}
		res := api.Do("GET", "/api/campaigns/audience-lists/"+id, nil)
		if !sameJSON(t, m.Data, res.Map(t)["data"]) {
			t.Errorf("data %s differs from GET's %s", m.Data, res.Body)
		}
		var a wire.Audience
		if err := json.Unmarshal(m.Data, &a); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // time for a wrong second message to arrive
		if n := len(rc.wait(t, 1)); n != 1 {
			t.Errorf("the receiver got %d messages, want 1", n)
		}
		return a
	}

	t.Run("a finished build sends audience.ready with its member count", func(t *testing.T) {
		t.Parallel()
		s := testenv.Store(t)
		orgID, key := testenv.Org(t, s, "hooks-aud-ready", 0)
		api := testenv.NewAPI(t, s, key)
		rc, wh := hooked(t, s, api)
		seedContacts(t, s, orgID, sales)
		icp := createPersona(t, api, map[string]any{"name": "sales", "departments": []string{"Sales"}})
		aud := buildAudience(t, api, map[string]any{"name": "Sales", "icpId": icp, "creditsPerContact": 5})
		got := assertAudienceMessage(t, api, rc, wh, "audience.ready", aud.AudienceID)
		if got.AudienceID != aud.AudienceID || got.Status != string(audience.Ready) || got.TotalMatch != 3 || got.CreditRequired != 15 ||
			got.Metadata.ContactsScanned != 4 {
			t.Errorf("audience.ready data %+v; want ready with 3 members, 15 credits, 4 scanned", got)
		}
	})

	t.Run("a build whose persona was deleted sends audience.failed with the reason", func(t *testing.T) {
		t.Parallel()
		s := testenv.Store(t)
		orgID, key := testenv.Org(t, s, "hooks-aud-persona", 0)
		api, start := testenv.HeldAPI(t, s, key)
		rc, wh := hooked(t, s, api)
		seedContacts(t, s, orgID, sales)
		icp := createPersona(t, api, map[string]any{"name": "sales", "departments": []string{"Sales"}})
		res := api.Do("POST", "/api/campaigns/audience-lists", map[string]any{"name": "Orphan", "icpId": icp})
		var env audienceEnvelope
		res.JSON(t, &env)
		if res.Status != http.StatusCreated {
			t.Fatalf("create audience: %d %s", res.Status, res.Body)
		}
		if res := api.Do("DELETE", "/api/campaigns/icp-personas/"+icp, nil); res.Status != http.StatusOK {
			t.Fatalf("delete persona: %d %s", res.Status, res.Body)
		}
		start()
		api.Jobs.Wait()
		got := assertAudienceMessage(t, api, rc, wh, "audience.failed", env.Data.AudienceID)
		if got.Status != string(audience.Failed) || !strings.Contains(got.Metadata.Error, "persona") || got.Metadata.BuildFinishedAt == nil {
			t.Errorf("audience.failed data %+v; want failed, naming the persona", got)
		}
	})

	t.Run("a build whose contacts cannot be read sends audience.failed once it gives up", func(t *testing.T) {
		t.Parallel()
		s := dynamo.New(failingContacts{testenv.Client(t)}, testenv.Table(t))
		_, key := testenv.Org(t, s, "hooks-aud-down", 0)
		api := testenv.NewAPI(t, s, key)
		rc, wh := hooked(t, s, api)
		icp := createPersona(t, api, map[string]any{"name": "sales", "departments": []string{"Sales"}})
		aud := buildAudience(t, api, map[string]any{"name": "Doomed", "icpId": icp})
		got := assertAudienceMessage(t, api, rc, wh, "audience.failed", aud.AudienceID)
		if got.Status != string(audience.Failed) || got.Metadata.Error == "" {
			t.Errorf("audience.failed data %+v; want failed with a reason", got)
		}
	})
}
