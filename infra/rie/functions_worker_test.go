package rie_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// capture is a job queue that keeps what the API enqueued, so the test hands it to the worker as the
// jobs queue's message would.
type capture struct {
	mu   sync.Mutex
	jobs []jobs.Job
}

func (c *capture) Enqueue(_ context.Context, j jobs.Job) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs = append(c.jobs, j)
	return nil
}

// workerWork is what the worker's events act on: a campaign whose launch has written its recipients and
// waits for the job message that finishes it, and a live campaign with a recipient; every invitation is
// due, none sent.
type workerWork struct {
	launched, live campaign.Campaign
	// finish is the launch's last job, the message the worker receives.
	finish jobs.Job
	// invitees are the launched campaign's addresses, then the live one's recipient's.
	invitees []string
}

// prepareWorker sets the work up in the table through the service itself, with no mail provider and a
// queue that only keeps what is enqueued: the launch's first slice runs here, its next job is left for
// the worker, and no invitation goes out before the worker's tick.
func (st *stack) prepareWorker(t *testing.T) workerWork {
	t.Helper()
	ctx := context.Background()
	q := &capture{}
	svc := service.New(st.store, service.Config{PublicBaseURL: "https://gifts.rie.example.com", Logger: testenv.Quiet, Jobs: q})
	api := testenv.HandlerAPI(t, httpapi.NewServer(st.store, svc, httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Groups...), st.key)
	tag := strings.ToLower(gifting.NewID())
	var w workerWork
	list, err := st.store.CreateContactList(ctx, st.orgID, "user-rie", "Launched by the worker", "")
	if err != nil {
		t.Fatal(err)
	}
	var contacts []contact.Input
	for _, name := range []string{"ada", "grace"} {
		w.invitees = append(w.invitees, fmt.Sprintf("%s.%s@example.com", name, tag))
		contacts = append(contacts, contact.Input{MailID: w.invitees[len(w.invitees)-1], FirstName: name})
	}
	if _, err := contact.NewApp(st.store, nil).AddToList(ctx, st.orgID, list.ListID, contacts, contact.Source{Type: "test", Provider: "test"}); err != nil {
		t.Fatal(err)
	}
	w.launched = postCampaign(t, api, "Launched by the worker", list.ListID)
	if res := api.Do("POST", "/api/campaigns/"+w.launched.CampaignID+"/launch", nil); res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	if len(q.jobs) != 1 || q.jobs[0].Kind != gifting.JobLaunch {
		t.Fatalf("the launch enqueued %v, want one %s job", q.jobs, gifting.JobLaunch)
	}
	next, err := svc.RunJob(ctx, q.jobs[0])
	if err != nil || next == nil {
		t.Fatalf("the launch's first slice: next %v, %v; want the job that finishes it", next, err)
	}
	w.finish = *next

	w.live = postCampaign(t, api, "Invited by the tick")
	testenv.SetCampaignStatus(t, st.store, st.orgID, w.live.CampaignID, campaign.Live)
	w.invitees = append(w.invitees, "due."+tag+"@example.com")
	res, err := svc.Recipients().Add(ctx, recipient.AddInput{OrgID: st.orgID, CampaignID: w.live.CampaignID, SourceType: "api",
		Contact: gifting.ContactInput{MailID: w.invitees[2], FirstName: "Due"}})
	if err != nil || res.Response.EmailSent {
		t.Fatalf("add a recipient without a mail provider: %v, emailSent %v", err, res.Response.EmailSent)
	}
	return w
}

// postCampaign creates a campaign of the coffee gift over lists.
func postCampaign(t *testing.T, api *testenv.API, name string, lists ...string) campaign.Campaign {
	t.Helper()
	body := map[string]any{"name": name, "templateId": "tmpl-meeting-booker",
		"campaignData": map[string]any{"giftIds": []string{"gift-artisan-coffee"}}}
	if len(lists) > 0 {
		body["contactListIds"] = lists
	}
	res := api.Do("POST", "/api/campaigns", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("create campaign: %d %s", res.Status, res.Body)
	}
	var env struct{ Data campaign.Campaign }
	res.JSON(t, &env)
	return env.Data
}

// runWorker sends the worker its three kinds of event, in the order a deployment could see them: the
// job that finishes the launch, the tick that sends the due invitations, SES's bounce of one of them.
func (st *stack) runWorker(t *testing.T, w workerWork) {
	t.Run("job message", func(t *testing.T) {
		job, err := json.Marshal(w.finish)
		if err != nil {
			t.Fatal(err)
		}
		// A second message that is no job: the answer must name it, and only it, for SQS to retry.
		poison := func(doc map[string]any) {
			records := doc["Records"].([]any)
			bad := map[string]any{}
			for k, v := range records[0].(map[string]any) {
				bad[k] = v
			}
			bad["messageId"], bad["body"] = "not-a-job", "{not json"
			doc["Records"] = append(records, bad)
		}
		ans := st.invoke(t, "job-message.json", map[string]string{"JOB": string(job)}, poison)
		if got, want := string(ans.Payload), `{"batchItemFailures":[{"itemIdentifier":"not-a-job"}]}`; got != want {
			t.Errorf("answer %s, want %s", got, want)
		}
		var c struct{ Data campaign.Campaign }
		if err := json.Unmarshal(st.get(t, "/api/campaigns/"+w.launched.CampaignID), &c); err != nil || c.Data.Status != campaign.Live {
			t.Errorf("the launched campaign is %q (%v) after its last job, want %q", c.Data.Status, err, campaign.Live)
		}
	})
	t.Run("scheduler tick", func(t *testing.T) {
		ans := st.invoke(t, "scheduler-tick.json", nil, nil)
		if got, want := string(ans.Payload), `{"batchItemFailures":null}`; got != want {
			t.Errorf("answer %s, want %s", got, want)
		}
		for _, address := range w.invitees {
			if n := len(st.emailsTo(t, address)); n != 1 {
				t.Errorf("%s received %d emails after the tick, want its invitation, which was due", address, n)
			}
		}
	})
	t.Run("mail bounce", func(t *testing.T) {
		bounced := w.invitees[0]
		sent := st.emailsTo(t, bounced)
		if len(sent) == 0 {
			t.Fatalf("no invitation to %s to bounce", bounced)
		}
		ans := st.invoke(t, "mail-bounce.json", map[string]string{"MESSAGE_ID": sent[0].MessageID, "EMAIL": bounced}, nil)
		if got, want := string(ans.Payload), `{"batchItemFailures":null}`; got != want {
			t.Errorf("answer %s, want %s", got, want)
		}
		var page struct {
			Recipients []wire.Recipient `json:"recipients"`
		}
		raw := st.get(t, "/api/campaigns/campaigns/"+w.launched.CampaignID+"/recipients")
		if err := json.Unmarshal(raw, &page); err != nil || len(page.Recipients) != 2 {
			t.Fatalf("recipients of the launched campaign: %v: %.500s", err, raw)
		}
		for _, r := range page.Recipients {
			want := ""
			if r.ContactDetails.Email == bounced {
				want = recipient.EmailBounced
			}
			if got := r.Emails.AddressConfirmation.Failure; got != want {
				t.Errorf("%s's invitation failure %q, want %q", r.ContactDetails.Email, got, want)
			}
		}
		suppressed, err := st.store.IsSuppressed(context.Background(), st.orgID, bounced)
		if err != nil || !suppressed {
			t.Errorf("%s suppressed %v (%v) after its hard bounce, want true", bounced, suppressed, err)
		}
	})
}

// get reads path through the function that serves it (the wallet fixture, sent to another path) and
// returns the answer's body.
func (st *stack) get(t *testing.T, path string) []byte {
	t.Helper()
	ans := st.invoke(t, "get-wallet.json", map[string]string{"API_KEY": st.key}, func(doc map[string]any) {
		doc["rawPath"] = path
		doc["requestContext"].(map[string]any)["http"].(map[string]any)["path"] = path
	})
	status, _, body := httpAnswer(t, ans)
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	return []byte(body)
}

// emailsTo returns the emails the SES emulator received for address.
func (st *stack) emailsTo(t *testing.T, address string) []localstack.Email {
	t.Helper()
	var out []localstack.Email
	for _, m := range localstack.ReadEmails(t, st.sesEndpoint) {
		for _, to := range m.Destination.To {
			if strings.Contains(to, address) {
				out = append(out, m)
			}
		}
	}
	return out
}
