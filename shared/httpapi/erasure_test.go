package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/apidocs"
	"github.com/giftcampaign/service/shared/app/sesmail"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/erasure"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/mail"
	"github.com/giftcampaign/service/shared/mail/ses"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/webhooks"
)

// person is what identifies the person the test erases: each value is
// looked for in every stored item and every API answer afterwards.
type erasedPerson struct {
	email, first, last, phone, street, shipStreet, feedback string
}

func (p erasedPerson) values() []string {
	return []string{p.email, p.first, p.last, p.phone, p.street, p.shipStreet, p.feedback}
}

// sesAPI is the service over s with the SES emulator as its mailer, so
// the invitations go through SES and their message records are written.
func sesAPI(t *testing.T, s *dynamo.Store, key string) *testenv.API {
	t.Helper()
	client, err := sesmail.NewClient(localstack.SESEndpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	mailer := ses.New(client, ses.Config{From: "gifts@example.com", PublicBaseURL: "https://gifts.test/"})
	queue := jobs.NewLocal(testenv.Quiet)
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet, Jobs: queue, Mailer: mailer,
		Webhooks: webhooks.Policy{AllowLocal: true}, Secrets: testenv.Secrets(t)})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet, Docs: apidocs.New(httpapi.OpenAPIJSON())})
	api := testenv.HandlerAPI(t, srv.Handler(httpapi.Groups...), key)
	api.Jobs, api.Service, api.Scheduler = queue, svc, scheduler.New(s, svc.RunJob, testenv.Quiet)
	queue.Start(svc.RunJob)
	return api
}

// TestErasureLeavesNothingOfThePerson: a person stored everywhere the
// service stores people (a contact in two lists, an audience member, the
// recipient of two campaigns who claimed with an address and gave
// feedback, invitations sent through SES, a bounce on the suppression
// list, change records delivered to a real webhook receiver) is erased;
// then no item of the table, packed records included, and no API answer
// holds their email, name, phone or street; the money is as it was; the
// landing page answers 410; the address stays suppressed; and a second
// request answers the same receipt and changes nothing.
func TestErasureLeavesNothingOfThePerson(t *testing.T) {
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	org, key := testenv.Org(t, s, "erasure", 1000)
	api := sesAPI(t, s, key)
	testenv.StreamChanges(t, s, api.Service)
	rc := newReceiver(t)
	wh := createWebhook(t, api, rc.srv.URL, "*")
	p := erasedPerson{email: "grace.hopperstone@example.com", first: "Gracelyn", last: "Hopperstone", phone: "+1 555 0142",
		street: "42 Cobol Lane", shipStreet: "7 Compiler Court", feedback: "Thank you Zanzibarite team"}
	// Someone else, in the same town: what is theirs stays.
	other := map[string]any{"mailId": "someone.else@example.com", "firstName": "Other", "lastName": "Person", "jobTitle": "engineer",
		"address": map[string]any{"street": "1 Other Street", "city": "Arlington", "zipCode": "22201", "country": "US"}}

	lists := []string{createList(t, api, "Customers"), createList(t, api, "Speakers")}
	var contactID string
	for _, l := range lists {
		res := importContacts(t, api, l, map[string]any{"mailId": p.email, "firstName": p.first, "lastName": p.last,
			"phoneNumber": p.phone, "jobTitle": "engineer", "address": map[string]any{"street": p.street, "city": "Arlington", "zipCode": "22201", "country": "US"}}, other)
		contactID = res.Data.Items[0].ContactID
	}
	icp := createPersona(t, api, map[string]any{"name": "Engineers", "job_titles": []string{"engineer"}})
	if aud := buildAudience(t, api, map[string]any{"name": "Engineers", "icpId": icp}); aud.TotalMatch != 2 {
		t.Fatalf("the audience has %d members, want 2", aud.TotalMatch)
	}
	rp := recipient.NewPages(api.Service.Recipients())
	var landing []string
	for i := range 2 {
		camp := createCampaign(t, api, 10)
		testenv.SetCampaignStatus(t, s, org, camp, campaign.Live) // its emails go out
		res := api.Do("POST", addPath(camp), map[string]any{"contactDetails": map[string]any{"email": p.email, "firstName": p.first,
			"lastName": p.last, "phoneNumber": p.phone, "address": map[string]any{"line1": p.street, "city": "Arlington", "zip": "22201", "country": "US"}}})
		var added struct {
			RecipientID string `json:"recipientId"`
		}
		res.JSON(t, &added)
		if res.Status != http.StatusOK {
			t.Fatalf("add recipient: %d %s", res.Status, res.Body)
		}
		clk.add(time.Hour)                                      // the invitation is due
		if err := api.Scheduler.Tick(t.Context()); err != nil { // sends it through SES
			t.Fatal(err)
		}
		api.Jobs.Wait()
		r, err := s.Recipient(t.Context(), org, camp, added.RecipientID)
		if err != nil {
			t.Fatal(err)
		}
		landing = append(landing, r.LandingPageID)
		if i == 0 {
			res := api.Do("POST", addPath(camp), map[string]any{"contactDetails": map[string]any{"email": "someone.else@example.com"}})
			var theirs struct {
				RecipientID string `json:"recipientId"`
			}
			res.JSON(t, &theirs)
			claimAt(t, api, s, org, camp, theirs.RecipientID, "1 Other Street", "+1 555 0999")
			claimed := claimAt(t, api, s, org, camp, r.RecipientID, p.shipStreet, p.phone)
			testenv.Ship(t, s, org, camp, r.RecipientID)
			if res := api.Do("POST", "/api/campaigns/campaigns/"+camp+"/recipients/"+r.RecipientID+"/status",
				map[string]any{"status": "delivered"}); res.Status != http.StatusOK {
				t.Fatalf("deliver: %d %s", res.Status, res.Body)
			}
			if err := rp.Feedback(t.Context(), claimed.LandingPageID, "like", p.feedback); err != nil {
				t.Fatal(err)
			}
			continue
		}
		id := r.Emails.AddressConfirmation.MessageID
		if id == "" {
			t.Fatalf("the invitation of the second campaign was not sent through SES: %s %+v", res.Body, r.Emails.AddressConfirmation)
		}
		if err := api.Service.Recipients().MailFeedback(t.Context(), []mail.Feedback{{Email: p.email, Kind: mail.Bounced,
			Permanent: true, MessageID: id, At: time.Now()}}); err != nil {
			t.Fatal(err)
		}
	}
	delivered := len(rc.wait(t, 6))
	waitAttempts(t, api, wh.Data.WebhookID, delivered)
	if n := countHolding(t, s, p.values(), false); n == 0 {
		t.Fatal("no item holds the person before the erasure: the scan finds nothing")
	}
	before := walletOf(t, api, "")
	othersItems := holding(t, s, "Arlington", p.values())
	if len(othersItems) < 2 {
		t.Fatalf("%v of someone else hold their town, want their contact and order at least", othersItems)
	}

	res := api.Do("POST", "/api/campaigns/contacts/"+contactID+"/erase", nil)
	var receipt struct {
		Data struct {
			Status     string         `json:"status"`
			FinishedAt string         `json:"finishedAt"`
			Erased     map[string]int `json:"erased"`
			ReceiptURL string         `json:"receiptUrl"`
		} `json:"data"`
	}
	res.JSON(t, &receipt)
	if res.Status != http.StatusOK || receipt.Data.Status != "done" {
		t.Fatalf("erase: %d %s", res.Status, res.Body)
	}
	// The kinds that held the person here (webhook deliveries and sent
	// message records keep ids only; the ledger's messages, references).
	for kind, atLeast := range map[string]int{"contact": 1, "recipient": 2, "order": 1, "audienceMember": 1,
		"suppression": 1, "changeRecord": 1} {
		if receipt.Data.Erased[kind] < atLeast {
			t.Errorf("the receipt counts %d %s records, want at least %d (%s)", receipt.Data.Erased[kind], kind, atLeast, res.Body)
		}
	}
	time.Sleep(300 * time.Millisecond) // time for a delivery the erasure would start to be written
	if n := countHolding(t, s, p.values(), true); n != 0 {
		t.Errorf("%d items still hold the person after the erasure", n)
	}
	assertAnswersHoldNone(t, api, p, contactID, lists)
	if kept := holding(t, s, "Arlington", p.values()); fmt.Sprint(kept) != fmt.Sprint(othersItems) {
		t.Errorf("someone else's items holding their town were %v, are %v after the erasure", othersItems, kept)
	}
	if after := walletOf(t, api, ""); after.Balance != before.Balance || after.Ledger.Pagination.Total != before.Ledger.Pagination.Total {
		t.Errorf("the wallet went from %d (%d entries) to %d (%d entries): an erasure moves no money",
			before.Balance, before.Ledger.Pagination.Total, after.Balance, after.Ledger.Pagination.Total)
	}
	testenv.AssertLedgerBalanced(t, s, org)
	h := pages.New(rp, testenv.Quiet)
	for _, id := range landing {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/gift/"+id, nil))
		if rec.Code != http.StatusGone {
			t.Errorf("the landing page answers %d, want 410", rec.Code)
		}
	}
	if gone, err := s.IsSuppressed(t.Context(), org, p.email); err != nil || !gone {
		t.Errorf("the erased address is suppressed %v (%v), want still suppressed", gone, err)
	}

	items := scanAll(t, s)
	again := api.Do("POST", "/api/campaigns/contacts/"+contactID+"/erase", nil)
	if again.Status != http.StatusOK || !bytes.Equal(again.Body, res.Body) {
		t.Errorf("a second erase answers %d %s, want the same 200 receipt %s", again.Status, again.Body, res.Body)
	}
	if got := api.Do("GET", receipt.Data.ReceiptURL, nil); got.Status != http.StatusOK || !bytes.Contains(got.Body, []byte(receipt.Data.FinishedAt)) {
		t.Errorf("the receipt URL answers %d %s", got.Status, got.Body)
	}
	if n := len(scanAll(t, s)); n != len(items) {
		t.Errorf("the table held %d items, %d after a second erase", len(items), n)
	}
}

// claimAt claims a recipient's gift to an address on street, with phone,
// as the claim page does.
func claimAt(t *testing.T, api *testenv.API, s *dynamo.Store, org, campaignID, recipientID, street, phone string) recipient.Recipient {
	t.Helper()
	c, err := s.Campaign(t.Context(), org, campaignID)
	if err != nil {
		t.Fatal(err)
	}
	r, err := api.Service.Recipients().Claim(t.Context(), org, campaignID, recipientID, recipient.ClaimInput{
		GiftID: c.CampaignData.GiftIDs[0],
		ShippingAddress: recipient.ShippingAddress{Line1: street, City: "Arlington", State: "VA", Zip: "22201", Country: "US",
			PhoneNumber: phone},
	})
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	return r
}

// scanAll reads every item of the test's table.
func scanAll(t *testing.T, s *dynamo.Store) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	p := dynamodb.NewScanPaginator(testenv.Client(t), &dynamodb.ScanInput{TableName: ptr(s.Table())})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, out.Items...)
	}
	return items
}

func ptr[T any](v T) *T { return &v }

// holding is the keys of the items that hold value and none of without,
// in table order.
func holding(t *testing.T, s *dynamo.Store, value string, without []string) []string {
	t.Helper()
	var keys []string
	for _, it := range scanAll(t, s) {
		text := strings.ToLower(itemText(it))
		if !strings.Contains(text, strings.ToLower(value)) {
			continue
		}
		if !slices.ContainsFunc(without, func(v string) bool { return strings.Contains(text, strings.ToLower(v)) }) {
			keys = append(keys, attrText(it["PK"])+" "+attrText(it["SK"]))
		}
	}
	return keys
}

// countHolding counts the items of the whole table that hold any of
// values, case-insensitively, in any attribute at any depth, packed
// records unpacked; each one found is reported.
func countHolding(t *testing.T, s *dynamo.Store, values []string, report bool) int {
	t.Helper()
	n := 0
	for _, it := range scanAll(t, s) {
		text := strings.ToLower(itemText(it))
		for _, v := range values {
			if strings.Contains(text, strings.ToLower(v)) {
				if report {
					t.Logf("item %s %s holds %q", attrText(it["PK"]), attrText(it["SK"]), v)
				}
				n++
				break
			}
		}
	}
	return n
}

func itemText(it map[string]types.AttributeValue) string {
	var b strings.Builder
	for k, v := range it {
		b.WriteString(k + "=" + attrText(v) + "\n")
	}
	return b.String()
}

func attrText(v types.AttributeValue) string {
	switch t := v.(type) {
	case *types.AttributeValueMemberS:
		return t.Value
	case *types.AttributeValueMemberN:
		return t.Value
	case *types.AttributeValueMemberSS:
		return strings.Join(t.Value, "\n")
	case *types.AttributeValueMemberB:
		if j, ok := dynamo.PackedRecordText(t.Value); ok {
			return string(j)
		}
		return string(t.Value)
	case *types.AttributeValueMemberL:
		var parts []string
		for _, e := range t.Value {
			parts = append(parts, attrText(e))
		}
		return strings.Join(parts, "\n")
	case *types.AttributeValueMemberM:
		return itemText(t.Value)
	}
	return fmt.Sprint(v)
}

// assertAnswersHoldNone reads every answer that could show the person
// and fails on any that holds one of their values.
func assertAnswersHoldNone(t *testing.T, api *testenv.API, p erasedPerson, contactID string, lists []string) {
	t.Helper()
	paths := []string{"/api/campaigns/contacts/" + contactID, "/api/campaigns/contacts?search=" + p.last,
		"/api/campaigns/contacts", "/api/campaigns/suppressions", "/api/campaigns/changes?limit=100",
		"/api/campaigns/campaigns", "/api/campaigns/audience-lists", "/api/campaigns/orders"}
	for _, l := range lists {
		paths = append(paths, "/api/campaigns/contact-lists/"+l+"/contacts")
	}
	var camps struct {
		Data struct {
			Campaigns []struct {
				CampaignID string `json:"campaignId"`
			} `json:"campaigns"`
		} `json:"data"`
	}
	api.Do("GET", "/api/campaigns/campaigns", nil).JSON(t, &camps)
	for _, c := range camps.Data.Campaigns {
		paths = append(paths, "/api/campaigns/campaigns/"+c.CampaignID+"/recipients",
			"/api/campaigns/campaigns/"+c.CampaignID+"/recipients/export")
	}
	for _, path := range paths {
		res := api.Do("GET", path, nil)
		body := strings.ToLower(string(res.Body))
		for _, v := range p.values() {
			if strings.Contains(body, strings.ToLower(v)) {
				t.Errorf("GET %s (%d) holds %q", path, res.Status, v)
			}
		}
	}
}

// TestErasureResumesAfterACrash: an erasure whose process died after its
// first steps is finished by the scheduler once its record's lease ends,
// and one that died likewise is finished by a second request; both end
// erased, with the receipt an uninterrupted erasure gives.
func TestErasureResumesAfterACrash(t *testing.T) {
	clk := &hookClock{now: time.Now()}
	s := testenv.Store(t, dynamo.WithClock(clk.Now))
	org, key := testenv.Org(t, s, "erasure-resume", 1000)
	api := testenv.NewAPI(t, s, key)
	list := createList(t, api, "Customers")
	camp := createCampaign(t, api, 10)
	emails := []string{"whole.run@example.com", "by.scheduler@example.com", "by.request@example.com"}
	ids := map[string]string{}
	for _, e := range emails {
		ids[e] = importContacts(t, api, list, map[string]any{"mailId": e, "firstName": "Quintilla", "lastName": "Resumable",
			"address": map[string]any{"street": "9 Restart Row", "city": "Oslo", "country": "NO"}}).Data.Items[0].ContactID
		if res := api.Do("POST", addPath(camp), map[string]any{"contactDetails": map[string]any{"email": e}}); res.Status != http.StatusOK {
			t.Fatalf("add recipient: %d %s", res.Status, res.Body)
		}
	}
	whole := api.Do("POST", "/api/campaigns/contacts/"+ids[emails[0]]+"/erase", nil)
	if whole.Status != http.StatusOK {
		t.Fatalf("erase: %d %s", whole.Status, whole.Body)
	}
	want := erasedCounts(t, whole)
	// Two erasures stop after their first two steps, as a process killed
	// there leaves them.
	app := erasure.NewApp(s, contact.NewApp(s, nil))
	for _, e := range emails[1:] {
		if _, err := app.Start(t.Context(), org, ids[e]); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if done, err := app.RunSlice(t.Context(), org, ids[e]); err != nil || done {
				t.Fatalf("slice: done %v, %v", done, err)
			}
		}
		if got := api.Do("GET", "/api/campaigns/contacts/"+ids[e]+"/erasure", nil); !bytes.Contains(got.Body, []byte(`"status":"running"`)) {
			t.Fatalf("the stopped erasure reads %s, want running", got.Body)
		}
	}
	clk.add(jobs.DueLease + time.Second)
	if err := api.Scheduler.Tick(t.Context()); err != nil {
		t.Fatal(err)
	}
	byRequest := api.Do("POST", "/api/campaigns/contacts/"+ids[emails[2]]+"/erase", nil)
	for _, res := range []testenv.Response{api.Do("GET", "/api/campaigns/contacts/"+ids[emails[1]]+"/erasure", nil), byRequest} {
		if got := erasedCounts(t, res); res.Status != http.StatusOK || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("a resumed erasure answers %d %v, want 200 %v (%s)", res.Status, got, want, res.Body)
		}
	}
	if n := countHolding(t, s, append(emails, "Quintilla", "Resumable", "9 Restart Row"), true); n != 0 {
		t.Errorf("%d items still hold the people after the erasures", n)
	}
}

// erasedCounts is a receipt's counts, once it is done.
func erasedCounts(t *testing.T, res testenv.Response) map[string]int {
	t.Helper()
	var r struct {
		Data struct {
			Status string         `json:"status"`
			Erased map[string]int `json:"erased"`
		} `json:"data"`
	}
	res.JSON(t, &r)
	if r.Data.Status != "done" {
		t.Errorf("the erasure is %q, want done: %s", r.Data.Status, res.Body)
	}
	return r.Data.Erased
}

// TestErasureNeedsAdminAndStaysInTheOrganization: a key without the admin
// scope may not erase (403, nothing erased); another organization's
// contact, an unknown id and a receipt never requested are 404.
func TestErasureNeedsAdminAndStaysInTheOrganization(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "erasure-own", 100)
	_, otherKey := testenv.Org(t, s, "erasure-other", 100)
	api, other := testenv.NewAPI(t, s, key), testenv.NewAPI(t, s, otherKey)
	list := createList(t, api, "Customers")
	id := importContacts(t, api, list, map[string]any{"mailId": "kept@example.com", "firstName": "Kept"}).Data.Items[0].ContactID
	writer := api.WithKey(newKey(t, api, "writer", "read", "write", "spend").Key)
	assertScopeRefused(t, writer.Do("POST", "/api/campaigns/contacts/"+id+"/erase", nil), "admin")
	assertScopeRefused(t, writer.Do("GET", "/api/campaigns/contacts/"+id+"/erasure", nil), "admin")
	for _, res := range []testenv.Response{
		other.Do("POST", "/api/campaigns/contacts/"+id+"/erase", nil),
		other.Do("GET", "/api/campaigns/contacts/"+id+"/erasure", nil),
		api.Do("POST", "/api/campaigns/contacts/01JH8Z4Q1V6W3K2M9T5R7Y0CON/erase", nil),
		api.Do("GET", "/api/campaigns/contacts/"+id+"/erasure", nil),
	} {
		if res.Status != http.StatusNotFound {
			t.Errorf("answer %d %s, want 404", res.Status, res.Body)
		}
	}
	if got := getContact(t, api, id); got.FirstName != "Kept" || got.MailID != "kept@example.com" {
		t.Errorf("the contact reads %+v after refused erasures, want it unchanged", got)
	}
}
