package httpapi_test

import (
	"fmt"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// liveCampaign launches a campaign of org over n new contacts, with an
// invitation due at once, and waits until it is live.
func liveCampaign(t *testing.T, s *dynamo.Store, api *testenv.API, orgID string, n int) campaign.Campaign {
	t.Helper()
	_, gifts := campaignCatalogRefs(t)
	listID, _ := listWithContacts(t, s, orgID, n)
	c := postCampaign(t, api, map[string]any{"name": "Lifecycle", "contactListIds": []string{listID},
		"templateId": "tmpl-meeting-booker", "campaignData": map[string]any{"giftIds": []string{gifts[1].GiftID}}})
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	api.Jobs.Wait()
	if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Live {
		t.Fatalf("campaign is %s after its launch, want live", got.Status)
	}
	return c
}

// act performs a lifecycle action and returns the campaign it answered
// with, failing unless it is a 200 envelope with message want.
func act(t *testing.T, api *testenv.API, campaignID, action string, body any, want string) campaign.Campaign {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/"+campaignID+"/"+action, body)
	if res.Status != http.StatusOK {
		t.Fatalf("%s: %d %s", action, res.Status, res.Body)
	}
	var env campaignEnvelope
	res.JSON(t, &env)
	if !env.Success || env.StatusCode != http.StatusOK || env.Message != want || env.Data.CampaignID != campaignID {
		t.Errorf("%s answered %s; want a 200 envelope %q with the campaign", action, res.Body, want)
	}
	return env.Data
}

// assertRefused checks a 409 that names the campaign's current state.
func assertRefused(t *testing.T, res testenv.Response, state campaign.Status) {
	t.Helper()
	assertError(t, res, http.StatusConflict, "CONFLICT")
	if msg, _ := res.Map(t)["error"].(string); !strings.Contains(msg, string(state)) {
		t.Errorf("error %q does not name the current state %s", msg, state)
	}
}

func TestCampaignLifecycle(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	c := liveCampaign(t, s, api, orgID, 2)
	mailed := func() int { return len(api.Mail.Sent()) }
	if n := mailed(); n != 2 {
		t.Fatalf("%d invitations after the launch, want 2", n)
	}

	paused := act(t, api, c.CampaignID, "pause", map[string]any{"reason": "  Budget review "}, "Campaign paused")
	if paused.Status != campaign.InProgress || paused.Reason != "Budget review" || paused.LastUpdatedBy != c.CreatedBy ||
		!paused.UpdatedAt.After(c.UpdatedAt) || paused.CompletionData.CompletedAt != nil {
		t.Errorf("paused: status %s, reason %q, by %q; want in_progress, the trimmed reason, %q", paused.Status, paused.Reason, paused.LastUpdatedBy, c.CreatedBy)
	}
	t.Run("a paused campaign takes recipients but holds their invitations", func(t *testing.T) {
		res := api.Do("POST", addPath(c.CampaignID), recipientBody("paused@example.com", "Pat"))
		if res.Status != http.StatusOK || res.Map(t)["emailSent"] != false {
			t.Fatalf("add while paused: %d %s; want 200, emailSent false", res.Status, res.Body)
		}
		if n := mailed(); n != 2 {
			t.Errorf("%d invitations, want still 2", n)
		}
		l := listRecipients(t, api, c.CampaignID, "?search=pat")
		if len(l.Recipients) != 1 || l.Recipients[0].Status != gifting.RecipientPending || !l.Recipients[0].Emails.AddressConfirmation.Active {
			t.Errorf("recipient added while paused: %+v; want pending with the invitation scheduled", l.Recipients)
		}
	})
	assertRefused(t, api.Do("POST", "/api/campaigns/"+c.CampaignID+"/pause", nil), campaign.InProgress)

	resumed := act(t, api, c.CampaignID, "resume", nil, "Campaign resumed")
	if resumed.Status != campaign.Live || resumed.Reason != "" {
		t.Errorf("resumed: status %s, reason %q; want live and the reason cleared", resumed.Status, resumed.Reason)
	}
	t.Run("a resumed campaign sends invitations again", func(t *testing.T) {
		res := api.Do("POST", addPath(c.CampaignID), recipientBody("resumed@example.com", "Rae"))
		if res.Status != http.StatusOK || res.Map(t)["emailSent"] != true || mailed() != 3 {
			t.Fatalf("add after resume: %d %s, %d invitations; want emailSent true and 3", res.Status, res.Body, mailed())
		}
	})
	assertRefused(t, api.Do("POST", "/api/campaigns/"+c.CampaignID+"/resume", nil), campaign.Live)

	done := act(t, api, c.CampaignID, "complete", map[string]any{"reason": "Quarter closed"}, "Campaign completed")
	cd := done.CompletionData
	if done.Status != campaign.Completed || done.Reason != "Quarter closed" || cd.CompletedAt == nil || cd.CompletedBy != c.CreatedBy ||
		cd.TotalRecipients == nil || *cd.TotalRecipients != 4 || cd.CreditsSpent == nil || *cd.CreditsSpent != done.LiveData.CreditsSpent ||
		cd.FeedbackCount == nil || *cd.FeedbackCount != 0 || !maps.Equal(cd.StatusCounts, done.LiveData.StatusCounts) ||
		cd.StatusCounts[gifting.RecipientInviteSent] != 3 || cd.StatusCounts[gifting.RecipientPending] != 1 {
		t.Errorf("completed: status %s, reason %q, completionData %+v (counts %v); want completed with 4 recipients, 3 invited, 1 pending",
			done.Status, done.Reason, cd, cd.StatusCounts)
	}
	if got := fetchCampaign(t, api, c.CampaignID); got.Status != campaign.Completed || got.CompletionData.CompletedAt == nil {
		t.Errorf("GET after completion: %s, completionData %+v", got.Status, got.CompletionData)
	}
	t.Run("a completed campaign takes no recipients", func(t *testing.T) {
		assertError(t, api.Do("POST", addPath(c.CampaignID), recipientBody("late@example.com", "Lee")), http.StatusConflict, "CONFLICT")
		if got := fetchCampaign(t, api, c.CampaignID); got.TotalRecipients != 4 {
			t.Errorf("%d recipients, want 4", got.TotalRecipients)
		}
	})
	t.Run("a completed campaign stays completed", func(t *testing.T) {
		for _, action := range []string{"pause", "resume", "complete"} {
			assertRefused(t, api.Do("POST", "/api/campaigns/"+c.CampaignID+"/"+action, nil), campaign.Completed)
		}
	})
	t.Run("a paused campaign can be completed", func(t *testing.T) {
		other := liveCampaign(t, s, api, orgID, 1)
		act(t, api, other.CampaignID, "pause", nil, "Campaign paused")
		if got := act(t, api, other.CampaignID, "complete", nil, "Campaign completed"); got.Status != campaign.Completed {
			t.Errorf("status %s, want completed", got.Status)
		}
	})
}

func TestCampaignLifecycleRefusals(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000_000)
	_, otherKey := testenv.Org(t, s, "globex", 0)
	api := testenv.NewAPI(t, s, key)
	draft := postCampaign(t, api, map[string]any{"name": "Still a draft"})
	live := liveCampaign(t, s, api, orgID, 1)
	held, run := testenv.HeldAPI(t, s, key)
	preparing := liveReadyDraft(t, s, held, orgID)
	if res := held.Do("POST", "/api/campaigns/"+preparing.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	deleted := postCampaign(t, api, map[string]any{"name": "Gone"})
	if res := api.Do("DELETE", "/api/campaigns/"+deleted.CampaignID, nil); res.Status != http.StatusOK {
		t.Fatalf("delete: %d %s", res.Status, res.Body)
	}

	for _, action := range []string{"pause", "resume", "complete"} {
		t.Run(action+" a draft", func(t *testing.T) {
			assertRefused(t, api.Do("POST", "/api/campaigns/"+draft.CampaignID+"/"+action, nil), campaign.Draft)
		})
		t.Run(action+" a preparing campaign", func(t *testing.T) {
			assertRefused(t, api.Do("POST", "/api/campaigns/"+preparing.CampaignID+"/"+action, nil), campaign.Preparing)
		})
		t.Run(action+" another org's campaign", func(t *testing.T) {
			assertError(t, api.WithKey(otherKey).Do("POST", "/api/campaigns/"+live.CampaignID+"/"+action, nil), http.StatusNotFound, "NOT_FOUND")
		})
		t.Run(action+" an unknown campaign", func(t *testing.T) {
			assertError(t, api.Do("POST", "/api/campaigns/nope/"+action, nil), http.StatusNotFound, "NOT_FOUND")
		})
		t.Run(action+" a deleted campaign", func(t *testing.T) {
			assertError(t, api.Do("POST", "/api/campaigns/"+deleted.CampaignID+"/"+action, nil), http.StatusNotFound, "NOT_FOUND")
		})
	}
	for _, tt := range []struct {
		name  string
		body  any
		field string
	}{
		{"reason too long", map[string]any{"reason": strings.Repeat("x", 501)}, "reason"},
		{"reason not a string", map[string]any{"reason": 7}, "reason"},
		{"unknown field", map[string]any{"status": "completed"}, "status"},
		{"not JSON", "pause please", ""},
	} {
		t.Run("bad body: "+tt.name, func(t *testing.T) {
			res := api.Do("POST", "/api/campaigns/"+live.CampaignID+"/complete", tt.body)
			if tt.field == "" {
				assertError(t, res, http.StatusBadRequest, "MALFORMED_REQUEST")
			} else {
				assertError(t, res, http.StatusBadRequest, "VALIDATION_FAILED")
				if d, _ := res.Map(t)["details"].(map[string]any); d[tt.field] == nil {
					t.Errorf("details %v do not name %s", d, tt.field)
				}
			}
		})
	}
	// Nothing refused changed anything.
	for id, want := range map[string]campaign.Status{
		draft.CampaignID: campaign.Draft, live.CampaignID: campaign.Live, preparing.CampaignID: campaign.Preparing,
	} {
		if got := fetchCampaign(t, api, id); got.Status != want || got.Reason != "" {
			t.Errorf("campaign %s is %s (reason %q) after refused actions, want %s", id, got.Status, got.Reason, want)
		}
	}
	run()
	held.Jobs.Wait()
}

// liveReadyDraft is a draft of org over one new contact, ready to launch.
func liveReadyDraft(t *testing.T, s *dynamo.Store, api *testenv.API, orgID string) campaign.Campaign {
	t.Helper()
	_, gifts := campaignCatalogRefs(t)
	listID, _ := listWithContacts(t, s, orgID, 1)
	return launchReady(t, api, gifts[1], listID)
}

// TestCompleteRacingAdds completes a campaign while recipients are being
// added: completionData, copied by the completing write, must be exactly
// the recipients added before it, since none can be added after it.
func TestCompleteRacingAdds(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "acme", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	c := liveCampaign(t, s, api, orgID, 1)
	const adds = 20
	statuses := make([]int, adds)
	var completed int
	var wg sync.WaitGroup
	for i := range adds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = api.Do("POST", addPath(c.CampaignID), recipientBody(fmt.Sprintf("racer%d@example.com", i), "Racer")).Status
			if i == adds/2 {
				completed = api.Do("POST", "/api/campaigns/"+c.CampaignID+"/complete", nil).Status
			}
		}()
	}
	wg.Wait()
	if completed != http.StatusOK {
		t.Fatalf("complete answered %d, want 200", completed)
	}
	added := int64(1) // the launched contact
	for _, st := range statuses {
		switch st {
		case http.StatusOK:
			added++
		case http.StatusConflict:
		default:
			t.Errorf("an add racing completion answered %d", st)
		}
	}
	got := fetchCampaign(t, api, c.CampaignID)
	cd := got.CompletionData
	// After the completion its expiry job moves unclaimed recipients to
	// expired with their refunds, each in one transaction, and an
	// invitation of a recipient added just before it may be recorded
	// after it (pending → invite_sent): the live counters are the snapshot
	// with its unclaimed recipients (pending, invite_sent) moved between
	// those two and expired.
	live := got.LiveData.StatusCounts
	unclaimed := func(m map[gifting.RecipientStatus]int64) (n int64, rest map[gifting.RecipientStatus]int64) {
		rest = maps.Clone(m)
		for _, st := range []gifting.RecipientStatus{gifting.RecipientPending, gifting.RecipientInviteSent, gifting.RecipientExpired} {
			n += rest[st]
			delete(rest, st)
		}
		return n, rest
	}
	snapUnclaimed, snapRest := unclaimed(cd.StatusCounts)
	liveUnclaimed, liveRest := unclaimed(live)
	refunded := live[gifting.RecipientExpired] * got.CampaignData.CreditsPerRecipient
	if got.Status != campaign.Completed || cd.TotalRecipients == nil || *cd.TotalRecipients != added || got.TotalRecipients != added ||
		snapUnclaimed != liveUnclaimed || !maps.Equal(snapRest, liveRest) || cd.StatusCounts[gifting.RecipientExpired] != 0 ||
		cd.CreditsSpent == nil || *cd.CreditsSpent != got.LiveData.CreditsSpent+refunded {
		t.Errorf("completed with completionData %+v (counts %v), live counters %d recipients %v; want both exactly the %d added",
			cd, cd.StatusCounts, got.TotalRecipients, got.LiveData.StatusCounts, added)
	}
}
