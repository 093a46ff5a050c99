package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// launchInvites is the number of contacts of the launch invitation tests:
// more than one transaction of recipients (49).
const launchInvites = 60

// flakyMailer delivers every other message and fails the rest.
type flakyMailer struct {
	mu    sync.Mutex
	tries int
	sent  []mail.Message
}

func (m *flakyMailer) SendEmail(_ context.Context, msg mail.Message) (mail.Sent, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tries++
	if m.tries%2 == 0 {
		return mail.Sent{}, errors.New("mail provider unavailable")
	}
	m.sent = append(m.sent, msg)
	return mail.Sent{MessageID: fmt.Sprintf("flaky-%d", m.tries)}, nil
}

// mailAPI serves every group over s with mailer (nil: none) and a job
// queue that runs at once unless held, in which case the test runs the
// jobs itself with svc.RunJob.
func mailAPI(t *testing.T, s *dynamo.Store, key string, mailer mail.Mailer, held bool) (*testenv.API, *service.Service) {
	t.Helper()
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: queue, Mailer: mailer})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet})
	if !held {
		queue.Start(svc.RunJob)
	}
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	api.Jobs = queue
	return api, svc
}

// launchWithInvitations creates org's list of launchInvites contacts and a
// campaign over it whose template's invitation is due at once, launches it
// and returns it with the contacts' emails.
func launchWithInvitations(t *testing.T, s *dynamo.Store, api *testenv.API, orgID string) (campaign.Campaign, []string) {
	t.Helper()
	_, gifts := campaignCatalogRefs(t)
	listID, ids := listWithContacts(t, s, orgID, launchInvites)
	contacts, err := s.ContactsByID(context.Background(), orgID, ids)
	if err != nil {
		t.Fatal(err)
	}
	emails := make([]string, len(contacts))
	for i, c := range contacts {
		emails[i] = c.MailID
	}
	c := postCampaign(t, api, map[string]any{"name": "Invite them", "contactListIds": []string{listID},
		"templateId": "tmpl-meeting-booker", "campaignData": map[string]any{"giftIds": []string{gifts[1].GiftID}}})
	if res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	return c, emails
}

// assertLaunchOutcome checks a finished launch: every recipient is in the
// recipient list, those who were sent a message (by recipient id) are
// invite_sent with the invitation marked sent, the others pending with it
// scheduled, and the campaign's counters say exactly that.
func assertLaunchOutcome(t *testing.T, api *testenv.API, c campaign.Campaign, emails []string, sent []mail.Message) {
	t.Helper()
	got := fetchCampaign(t, api, c.CampaignID)
	l := listRecipients(t, api, c.CampaignID, "?limit=100")
	mailed := map[string]mail.Message{}
	for _, m := range sent {
		if _, dup := mailed[m.RecipientID]; dup {
			t.Errorf("recipient %s was sent its invitation twice", m.RecipientID)
		}
		mailed[m.RecipientID] = m
	}
	var to []string
	for _, r := range l.Recipients {
		inv := r.Emails.AddressConfirmation
		m, ok := mailed[r.RecipientID]
		switch {
		case ok && (r.Status != gifting.RecipientInviteSent || !inv.Sent || inv.SentAt == nil):
			t.Errorf("recipient %s was mailed but is %s with the invitation sent %v", r.RecipientID, r.Status, inv.Sent)
		case ok && (m.To != r.ContactDetails.Email || m.Kind != "addressConfirmation" || m.Subject != inv.Subject || !strings.Contains(m.HTML, inv.HTML)):
			t.Errorf("recipient %s was mailed %+v; want its own rendered invitation", r.RecipientID, m)
		case !ok && (r.Status != gifting.RecipientPending || inv.Sent || !inv.Active || inv.ScheduledTime == ""):
			t.Errorf("recipient %s was not mailed but is %s, invitation sent %v active %v at %q; want pending, scheduled",
				r.RecipientID, r.Status, inv.Sent, inv.Active, inv.ScheduledTime)
		}
		if ok {
			to = append(to, m.To)
		}
	}
	if len(mailed) != len(to) {
		t.Errorf("%d messages name recipients of the campaign, %d messages sent", len(to), len(mailed))
	}
	for _, e := range to {
		if !slices.Contains(emails, e) {
			t.Errorf("an invitation went to %s, not a contact of the list", e)
		}
	}
	n := int64(len(emails))
	counts := got.LiveData.StatusCounts
	if got.Status != campaign.Live || got.TotalRecipients != n || int64(len(l.Recipients)) != n ||
		counts[gifting.RecipientInviteSent] != int64(len(sent)) || counts[gifting.RecipientPending] != n-int64(len(sent)) {
		t.Errorf("campaign %s, %d recipients (%d listed), counts %v; want live, %d, %d invite_sent and %d pending",
			got.Status, got.TotalRecipients, len(l.Recipients), counts, n, len(sent), n-int64(len(sent)))
	}
	if l.StatusCounts["invite_sent"] != counts[gifting.RecipientInviteSent] || l.StatusCounts["pending"] != counts[gifting.RecipientPending] {
		t.Errorf("recipient list counts %v differ from the campaign's %v", l.StatusCounts, counts)
	}
}

func TestLaunchSendsInvitations(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, gifts := campaignCatalogRefs(t)
	credits := int64(math.Ceil(gifts[1].Price)) * launchInvites

	t.Run("a mailer gets one invitation per recipient", func(t *testing.T) {
		t.Parallel()
		orgID, key := testenv.Org(t, s, "mailed", credits)
		api := testenv.NewAPI(t, s, key)
		c, emails := launchWithInvitations(t, s, api, orgID)
		api.Jobs.Wait()
		sent := api.Mail.Sent()
		if len(sent) != launchInvites {
			t.Fatalf("%d invitations sent, want %d", len(sent), launchInvites)
		}
		assertLaunchOutcome(t, api, c, emails, sent)
	})
	t.Run("no mailer: every recipient pending, invitation scheduled", func(t *testing.T) {
		t.Parallel()
		orgID, key := testenv.Org(t, s, "unmailed", credits)
		api, _ := mailAPI(t, s, key, nil, false)
		c, emails := launchWithInvitations(t, s, api, orgID)
		api.Jobs.Wait()
		assertLaunchOutcome(t, api, c, emails, nil)
	})
	t.Run("a failing mailer leaves every recipient pending", func(t *testing.T) {
		t.Parallel()
		orgID, key := testenv.Org(t, s, "bounced", credits)
		api := testenv.NewAPI(t, s, key)
		api.Mail.SetFail(errors.New("mail provider down"))
		c, emails := launchWithInvitations(t, s, api, orgID)
		api.Jobs.Wait()
		assertLaunchOutcome(t, api, c, emails, api.Mail.Sent())
		if n := len(api.Mail.Sent()); n != 0 {
			t.Errorf("%d invitations delivered by a failing mailer", n)
		}
	})
	t.Run("a mailer failing every other send: counts exact", func(t *testing.T) {
		t.Parallel()
		orgID, key := testenv.Org(t, s, "flaky", credits)
		mailer := &flakyMailer{}
		api, _ := mailAPI(t, s, key, mailer, false)
		c, emails := launchWithInvitations(t, s, api, orgID)
		api.Jobs.Wait()
		if mailer.tries != launchInvites || len(mailer.sent) != launchInvites/2 {
			t.Fatalf("%d sends tried, %d delivered; want %d and %d", mailer.tries, len(mailer.sent), launchInvites, launchInvites/2)
		}
		assertLaunchOutcome(t, api, c, emails, mailer.sent)
	})
	t.Run("every slice run twice sends each invitation once", func(t *testing.T) {
		t.Parallel()
		ctx := context.Background()
		orgID, key := testenv.Org(t, s, "twice", credits)
		mailer := &mail.Memory{}
		api, svc := mailAPI(t, s, key, mailer, true)
		c, emails := launchWithInvitations(t, s, api, orgID)
		j := &jobs.Job{Kind: "campaign.launch", OrgID: orgID, Ref: c.CampaignID}
		for step := 0; j != nil; step++ {
			if step > 10 {
				t.Fatal("the launch job does not finish")
			}
			next, err := svc.RunJob(ctx, *j)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := svc.RunJob(ctx, *j); err != nil { // the duplicate delivery
				t.Fatal(err)
			}
			j = next
		}
		if n := len(mailer.Sent()); n != launchInvites {
			t.Errorf("%d invitations sent, want %d", n, launchInvites)
		}
		assertLaunchOutcome(t, api, c, emails, mailer.Sent())
	})
}
