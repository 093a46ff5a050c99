package dynamo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/infra/seed"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// giftCampaign creates a draft campaign with the catalog's meeting-booker
// template and one catalog gift, costing price credits a recipient.
func giftCampaign(t *testing.T, s *dynamo.Store, orgID string, price int64) campaign.Campaign {
	t.Helper()
	c, err := testenv.CreateCampaign(context.Background(), s, orgID, campaign.Campaign{
		Name: "Spring <thanks>", CreatedBy: "user-1",
		CampaignData: campaign.Data{
			GiftIDs: []string{"gift-artisan-coffee"}, EmailTemplateID: "tmpl-meeting-booker", CreditsPerRecipient: price,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func addInput(orgID, campaignID, email string) recipient.AddInput {
	return recipient.AddInput{
		OrgID: orgID, CampaignID: campaignID, SourceType: "api", PublicBaseURL: "https://gifts.test/",
		Contact: gifting.ContactInput{MailID: email, FirstName: "Jane", LastName: "Doe"},
	}
}

// assertWallet checks the balance and the number of ledger entries.
func assertWallet(t *testing.T, s *dynamo.Store, orgID string, balance int64, entries int) {
	t.Helper()
	st, err := s.WalletStatement(context.Background(), orgID, gifting.PageRequest{Page: 1, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if st.Wallet.Balance != balance || st.Total != entries || len(st.Entries) != entries {
		t.Errorf("wallet balance %d with %d ledger entries (total %d); want %d and %d", st.Wallet.Balance, len(st.Entries), st.Total, balance, entries)
	}
}

func TestAddRecipient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 40)

	res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "Jane@Example.com"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("response", func(t *testing.T) {
		got := res.Response
		if got.CreditsDeducted != 40 || got.RemainingBalance != 60 || got.EmailSent ||
			got.ContactID == "" || got.RecipientID == "" || got.CampaignID != c.CampaignID {
			t.Errorf("response = %+v", got)
		}
		if got.LandingPageURL != "https://gifts.test/gift/"+res.Recipient.LandingPageID || len(res.Recipient.LandingPageID) < 26 ||
			res.Recipient.LandingPageID == res.Recipient.ClaimPageID {
			t.Errorf("landing %s claim %s: want distinct unguessable page URLs under the base", got.LandingPageURL, got.ClaimPageURL)
		}
	})
	t.Run("recipient, ledger, contact and counters are written", func(t *testing.T) {
		r, err := s.Recipient(ctx, orgID, c.CampaignID, res.Response.RecipientID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != gifting.RecipientPending || r.ContactDetails.Email != "jane@example.com" || r.GiftDetails.GiftID != "gift-artisan-coffee" ||
			!r.Emails.Reminder2.Active || r.Emails.AddressConfirmation.Sent || r.CreditsCharged != 40 {
			t.Errorf("recipient = %+v", r)
		}
		assertWallet(t, s, orgID, 60, 2)
		contact, err := contact.NewApp(s, nil).Contact(ctx, orgID, res.Response.ContactID)
		if err != nil || len(contact.Usage.CampaignIDs) != 1 || contact.Usage.CampaignIDs[0] != c.CampaignID {
			t.Errorf("contact = %+v, %v; want it to name the campaign", contact, err)
		}
		got, _ := s.Campaign(ctx, orgID, c.CampaignID)
		if got.TotalRecipients != 1 || got.LiveData.StatusCounts[gifting.RecipientPending] != 1 || got.LiveData.CreditsSpent != 40 {
			t.Errorf("campaign counters: total %d, %v, spent %d", got.TotalRecipients, got.LiveData.StatusCounts, got.LiveData.CreditsSpent)
		}
	})
	t.Run("the same contact again is a conflict and costs nothing", func(t *testing.T) {
		_, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
		if gifting.ErrorCode(err) != gifting.CodeConflict {
			t.Fatalf("err = %v, want CONFLICT", err)
		}
		assertWallet(t, s, orgID, 60, 2)
	})
	t.Run("an existing contact is merged into", func(t *testing.T) {
		c2 := giftCampaign(t, s, orgID, 10)
		in := addInput(orgID, c2.CampaignID, "jane@example.com")
		in.Contact.JobTitle = "CTO"
		got, err := testenv.Recipients(s).Write(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		contact, _ := contact.NewApp(s, nil).Contact(ctx, orgID, got.Response.ContactID)
		if got.Response.ContactID != res.Response.ContactID || contact.JobTitle != "CTO" || len(contact.Usage.CampaignIDs) != 2 {
			t.Errorf("contact %s (first %s): %+v; want the same contact, merged", got.Response.ContactID, res.Response.ContactID, contact)
		}
		assertWallet(t, s, orgID, 50, 3)
	})
	t.Run("not enough credits writes nothing", func(t *testing.T) {
		if _, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "bob@example.com")); err != nil {
			t.Fatal(err)
		}
		_, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "carol@example.com"))
		if gifting.ErrorCode(err) != gifting.CodeInsufficientCredits {
			t.Fatalf("err = %v, want INSUFFICIENT_CREDITS", err)
		}
		assertWallet(t, s, orgID, 10, 4)
		got, _ := s.Campaign(ctx, orgID, c.CampaignID)
		if got.TotalRecipients != 2 {
			t.Errorf("campaign counts %d recipients, want 2", got.TotalRecipients)
		}
	})
	for _, tt := range []struct {
		name string
		code gifting.Code
		prep func(t *testing.T) (orgID, campaignID string)
	}{
		{"unknown campaign", gifting.CodeNotFound, func(t *testing.T) (string, string) { return orgID, "nope" }},
		{"another org's campaign", gifting.CodeNotFound, func(t *testing.T) (string, string) {
			other, _ := testenv.Org(t, s, "globex", 1000)
			return other, c.CampaignID
		}},
		{"completed campaign", gifting.CodeConflict, func(t *testing.T) (string, string) {
			done := giftCampaign(t, s, orgID, 0)
			testenv.SetCampaignStatus(t, s, orgID, done.CampaignID, campaign.Completed)
			return orgID, done.CampaignID
		}},
		{"deleted campaign", gifting.CodeNotFound, func(t *testing.T) (string, string) {
			gone := giftCampaign(t, s, orgID, 0)
			if _, err := testenv.Campaigns(s).Delete(ctx, orgID, gone.CampaignID, "user-1"); err != nil {
				t.Fatal(err)
			}
			return orgID, gone.CampaignID
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			org, id := tt.prep(t)
			_, err := testenv.Recipients(s).Write(ctx, addInput(org, id, "dave@example.com"))
			if gifting.ErrorCode(err) != tt.code {
				t.Fatalf("err = %v, want %s", err, tt.code)
			}
		})
	}
	t.Run("invalid email", func(t *testing.T) {
		_, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "not-an-email"))
		if gifting.ErrorCode(err) != gifting.CodeValidation {
			t.Fatalf("err = %v, want VALIDATION_FAILED", err)
		}
	})
}

func TestAddRecipientIdempotency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 30)
	in := addInput(orgID, c.CampaignID, "jane@example.com")
	in.Idempotency = addIdempotent("k-1", "h-1")

	first, err := testenv.Recipients(s).Write(ctx, in)
	if err != nil || first.Replay != nil {
		t.Fatalf("first: %+v, %v", first, err)
	}
	again, err := testenv.Recipients(s).Write(ctx, in)
	if err != nil || again.Replay == nil || replayed(t, again) != first.Response {
		t.Fatalf("replay: %+v, %v; want the first response %+v", again, err, first.Response)
	}
	assertWallet(t, s, orgID, 70, 2)

	other := in
	other.Idempotency = addIdempotent("k-1", "h-2")
	if _, err := testenv.Recipients(s).Write(ctx, other); gifting.ErrorCode(err) != gifting.CodeIdempotencyMismatch {
		t.Fatalf("same key, other request: %v, want IDEMPOTENCY_KEY_REUSED", err)
	}
}

// faultyDB cancels the first `failures` transactions with reason code on
// their last item, then passes everything to DynamoDB Local.
type faultyDB struct {
	dynamo.DB
	mu       sync.Mutex
	failures int
	code     string
	calls    int
}

func (f *faultyDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	f.mu.Lock()
	f.calls++
	fail := f.failures > 0
	if fail {
		f.failures--
	}
	f.mu.Unlock()
	if !fail {
		return f.DB.TransactWriteItems(ctx, in, opts...)
	}
	reasons := make([]types.CancellationReason, len(in.TransactItems))
	for i := range reasons {
		reasons[i].Code = aws.String("None")
	}
	reasons[len(reasons)-1].Code = aws.String(f.code)
	return nil, &types.TransactionCanceledException{Message: aws.String("Transaction cancelled"), CancellationReasons: reasons}
}

func (f *faultyDB) arm(failures int, code string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failures, f.code, f.calls = failures, code, 0
}

func TestAddRecipientRetriesConflicts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	fake := &faultyDB{DB: testenv.Client(t)}
	s := dynamo.New(fake, testenv.Table(t))
	if _, err := seed.SeedCatalog(ctx, s); err != nil {
		t.Fatal(err)
	}
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 10)

	t.Run("conflicts are retried and charge once", func(t *testing.T) {
		fake.arm(3, "TransactionConflict")
		res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "jane@example.com"))
		if err != nil {
			t.Fatal(err)
		}
		if fake.calls != 4 || res.Response.RemainingBalance != 90 {
			t.Errorf("%d transactions, remaining %d; want 4 (3 conflicts, then success) and 90", fake.calls, res.Response.RemainingBalance)
		}
		assertWallet(t, s, orgID, 90, 2)
	})
	t.Run("throttling is retried", func(t *testing.T) {
		fake.arm(2, "ThrottlingError")
		if _, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "bob@example.com")); err != nil {
			t.Fatal(err)
		}
		if fake.calls != 3 {
			t.Errorf("%d transactions, want 3", fake.calls)
		}
		assertWallet(t, s, orgID, 80, 3)
	})
	t.Run("a non-retryable cancellation is not retried", func(t *testing.T) {
		fake.arm(1, "ValidationError")
		_, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "carol@example.com"))
		if err == nil || gifting.ErrorCode(err) != gifting.CodeInternal {
			t.Fatalf("err = %v, want an internal error", err)
		}
		if fake.calls != 1 {
			t.Errorf("%d transactions, want 1", fake.calls)
		}
		assertWallet(t, s, orgID, 80, 3)
	})
}

// TestAddedRecipientNotEmailed: an add-recipient that invites at once
// writes the recipient pending with its invitation claimed (invite_sent
// comes with the send); when the send fails the failure is recorded on the
// invitation, which the scheduler retries, and the stored response says
// emailSent false.
func TestAddedRecipientNotEmailed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 10)
	testenv.SetCampaignStatus(t, s, orgID, c.CampaignID, campaign.Live) // a draft invites no one
	in := addInput(orgID, c.CampaignID, "jane@example.com")
	in.Invite = true
	in.Idempotency = addIdempotent("k", "h")
	res, err := testenv.Recipients(s).Write(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	claim := res.Recipient.Emails.AddressConfirmation.ClaimedAt
	if !res.Invited() || !res.Response.EmailSent || res.Recipient.Status != gifting.RecipientPending || claim == nil {
		t.Fatalf("invited add: %+v, status %s; want pending, its invitation claimed", res.Response, res.Recipient.Status)
	}
	if err := testenv.Recipients(s).EmailFailed(ctx, orgID, c.CampaignID, res.Response.RecipientID, "addressConfirmation", "", *claim); err != nil {
		t.Fatal(err)
	}
	// What App.Add then does: the stored answer says emailSent false.
	added := res.Response
	added.EmailSent = false
	w, err := in.Idempotency.Write(added)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RewriteRecord(ctx, orgID, *w); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Recipient(ctx, orgID, c.CampaignID, res.Response.RecipientID)
	got, _ := s.Campaign(ctx, orgID, c.CampaignID)
	inv := r.Emails.AddressConfirmation
	if r.Status != gifting.RecipientPending || inv.ClaimedAt != nil || inv.RetryAt == nil || inv.Attempts != 1 ||
		got.LiveData.StatusCounts[gifting.RecipientPending] != 1 || got.LiveData.StatusCounts[gifting.RecipientInviteSent] != 0 {
		t.Errorf("after the failed send: status %s, invitation %+v, counts %v; want pending, released, retried later",
			r.Status, inv, got.LiveData.StatusCounts)
	}
	replay, err := testenv.Recipients(s).Write(ctx, in)
	if err != nil || replay.Replay == nil || replayed(t, replay).EmailSent {
		t.Errorf("replay after the failed send: %+v, %v; want emailSent false", replay.Replay, err)
	}
}

// addIdempotent is an add-recipient's idempotency under key, for a request
// whose hash is hash, storing the response as JSON as the HTTP layer does.
func addIdempotent(key, hash string) *gifting.Idempotent[recipient.Added] {
	return &gifting.Idempotent[recipient.Added]{
		Key: gifting.IdempotencyKey{Scope: "add-recipient", Key: key, Hash: hash}, Status: http.StatusOK,
		Render: func(r recipient.Added) ([]byte, error) { return json.Marshal(r) },
	}
}

// replayed is the response a replayed add-recipient stored.
func replayed(t *testing.T, res recipient.AddResult) recipient.Added {
	t.Helper()
	var r recipient.Added
	if res.Replay.Status != http.StatusOK {
		t.Errorf("replayed status %d, want 200", res.Replay.Status)
	}
	if err := json.Unmarshal(res.Replay.Body, &r); err != nil {
		t.Fatalf("stored response %q: %v", res.Replay.Body, err)
	}
	return r
}

// TestAddRecipientSameNewContactConcurrently adds one new email to a
// campaign from many requests at once: one contact is created, one
// recipient added and paid for; the others are conflicts.
func TestAddRecipientSameNewContactConcurrently(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 100)
	c := giftCampaign(t, s, orgID, 10)
	codes := make([]gifting.Code, 10)
	contacts := make([]string, 10)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, "new@example.com"))
			codes[i], contacts[i] = gifting.ErrorCode(err), res.Response.ContactID
			if err == nil {
				codes[i] = "OK"
			}
		}()
	}
	wg.Wait()
	count := map[gifting.Code]int{}
	for _, code := range codes {
		count[code]++
	}
	if count["OK"] != 1 || count[gifting.CodeConflict] != 9 {
		t.Fatalf("outcomes %v; want 1 OK and 9 CONFLICT", count)
	}
	assertWallet(t, s, orgID, 90, 2)
	got, _ := s.Campaign(ctx, orgID, c.CampaignID)
	if got.TotalRecipients != 1 {
		t.Errorf("campaign counts %d recipients, want 1", got.TotalRecipients)
	}
}

// TestAddRecipientCountsNewContacts checks the contacts total when
// add-recipient creates contacts (counted on the wallet) among imports and
// deletes (counted on COUNT#CONTACT), concurrently: every new contact is
// counted once, an existing one not at all, and the recount of `admin
// migrate` finds nothing to fix.
func TestAddRecipientCountsNewContacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 1000)
	c := giftCampaign(t, s, orgID, 10)
	list, err := s.CreateContactList(ctx, orgID, "user-1", "Imported", "")
	if err != nil {
		t.Fatal(err)
	}
	imported := []contact.Input{{MailID: "ann@example.com"}, {MailID: "ben@example.com"}, {MailID: "cat@example.com"}}
	if _, err := contact.NewApp(s, nil).AddToList(ctx, orgID, list.ListID, imported, importSource); err != nil {
		t.Fatal(err)
	}
	// Eight new emails, two imported ones, and one new email twice.
	emails := []string{"ann@example.com", "ben@example.com", "twice@example.com", "twice@example.com"}
	for i := range 8 {
		emails = append(emails, fmt.Sprintf("new%d@example.com", i))
	}
	added := make([]bool, len(emails))
	var wg sync.WaitGroup
	for i, email := range emails {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := testenv.Recipients(s).Write(ctx, addInput(orgID, c.CampaignID, email))
			added[i] = err == nil
			if err != nil && gifting.ErrorCode(err) != gifting.CodeConflict {
				t.Errorf("add %s: %v", email, err)
			}
		}()
	}
	wg.Wait()
	n := 0
	for _, ok := range added {
		if ok {
			n++
		}
	}
	if n != len(emails)-1 {
		t.Fatalf("%d recipients added, want %d (one of the repeated email is a conflict)", n, len(emails)-1)
	}
	assertTotal := func(t *testing.T, want int) {
		t.Helper()
		page, total, err := contact.NewApp(s, nil).Contacts(ctx, orgID, "", gifting.PageRequest{Page: 1, Limit: 100})
		if err != nil || total != want || len(page) != want {
			t.Fatalf("contacts page: %d of %d, %v; want %d", len(page), total, err, want)
		}
		if _, total, err := contact.NewApp(s, nil).Contacts(ctx, orgID, "", gifting.PageRequest{Page: 2, Limit: 5}); err != nil || total != want {
			t.Errorf("a deeper page counts %d, %v; want %d", total, err, want)
		}
	}
	t.Run("each new contact counted once", func(t *testing.T) {
		assertTotal(t, 3+9)
	})
	t.Run("a delete is counted", func(t *testing.T) {
		page, _, err := contact.NewApp(s, nil).Contacts(ctx, orgID, "new0", gifting.PageRequest{Page: 1, Limit: 1})
		if err != nil || len(page) != 1 {
			t.Fatalf("search: %v, %v", page, err)
		}
		if err := contact.NewApp(s, nil).DeleteContact(ctx, orgID, page[0].ContactID); err != nil {
			t.Fatal(err)
		}
		assertTotal(t, 3+9-1)
	})
	t.Run("the recount agrees", func(t *testing.T) {
		res, err := s.Migrate(ctx, orgID, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if len(r.Fixed) != 0 || len(r.Problems) != 0 {
				t.Errorf("migration step %+v: want nothing to fix", r)
			}
		}
		assertTotal(t, 3+9-1)
	})
	assertWallet(t, s, orgID, 1000-10*int64(n), 1+n)
}
