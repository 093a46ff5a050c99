package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// applyUpsert applies an upsert's items and returns the cancellation reasons
// of a failed transaction.
func applyUpsert(t *testing.T, u dynamo.ContactUpsert) []types.CancellationReason {
	t.Helper()
	_, err := testenv.Client(t).TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: u.Items})
	if err == nil {
		return nil
	}
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		t.Fatalf("transaction: %v", err)
	}
	return tce.CancellationReasons
}

func TestPrepareContactUpsert(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	src := gifting.Source{Type: gifting.SourceCampaign, Provider: contact.ProviderAPI}
	camp := &gifting.ContactCampaign{CampaignID: "c1", CampaignName: "Q3", Status: "draft"}

	first, err := s.PrepareContactUpsert(ctx, org, gifting.ContactInput{MailID: " Ada@Example.com ", FirstName: "Ada", Campaign: camp}, src)
	if err != nil {
		t.Fatal(err)
	}
	// A second add-recipient for the same new email, prepared before the
	// first is written: both plan a create.
	rival, err := s.PrepareContactUpsert(ctx, org, gifting.ContactInput{MailID: "ada@example.com", LastName: "Lovelace", Campaign: camp}, src)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || !rival.Created || first.Contact.MailID != "ada@example.com" {
		t.Fatalf("created %v, %v, mail %q; want two creates of ada@example.com", first.Created, rival.Created, first.Contact.MailID)
	}
	if reasons := applyUpsert(t, first); reasons != nil {
		t.Fatalf("first create cancelled: %v", reasons)
	}
	t.Run("a concurrent create is a conflict, then a merge", func(t *testing.T) {
		reasons := applyUpsert(t, rival)
		if reasons == nil || !rival.Conflicted(reasons) {
			t.Fatalf("rival create: reasons %v; want a conflict", reasons)
		}
		again, err := s.PrepareContactUpsert(ctx, org, gifting.ContactInput{MailID: "ada@example.com", LastName: "Lovelace", Campaign: camp}, src)
		if err != nil {
			t.Fatal(err)
		}
		if again.Created || again.Contact.ContactID != first.Contact.ContactID {
			t.Fatalf("re-prepared: created %v id %s; want a merge into %s", again.Created, again.Contact.ContactID, first.Contact.ContactID)
		}
		if reasons := applyUpsert(t, again); reasons != nil {
			t.Fatalf("merge cancelled: %v", reasons)
		}
	})
	c, err := contact.NewApp(s, nil).Contact(ctx, org, first.Contact.ContactID)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("merged record", func(t *testing.T) {
		if c.FirstName != "Ada" || c.LastName != "Lovelace" || len(c.Sources) != 2 {
			t.Errorf("got %s %s with %d sources; want Ada Lovelace, 2", c.FirstName, c.LastName, len(c.Sources))
		}
		if !slices.Equal(c.Usage.CampaignIDs, []string{"c1"}) || len(c.Campaigns) != 1 || c.Campaigns[0] != contact.Campaign(*camp) {
			t.Errorf("usage %v campaigns %+v; want c1 once", c.Usage.CampaignIDs, c.Campaigns)
		}
	})
	t.Run("a stale merge is a conflict", func(t *testing.T) {
		stale, err := s.PrepareContactUpsert(ctx, org, gifting.ContactInput{MailID: "ada@example.com", JobTitle: "CTO"}, src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := contact.NewApp(s, nil).UpdateContact(ctx, org, c.ContactID, contact.Patch{Notes: refOf("met at the fair")}); err != nil {
			t.Fatal(err)
		}
		if reasons := applyUpsert(t, stale); reasons == nil || !stale.Conflicted(reasons) {
			t.Fatalf("stale merge: reasons %v; want a conflict", reasons)
		}
		if got, _ := contact.NewApp(s, nil).Contact(ctx, org, c.ContactID); got.Notes != "met at the fair" || got.JobTitle != "" {
			t.Errorf("notes %q job %q; the stale merge must not overwrite the update", got.Notes, got.JobTitle)
		}
	})
	t.Run("invalid input", func(t *testing.T) {
		_, err := s.PrepareContactUpsert(ctx, org, gifting.ContactInput{MailID: "nope"}, src)
		if gifting.ErrorCode(err) != gifting.CodeValidation {
			t.Errorf("err = %v, want VALIDATION_FAILED", err)
		}
	})
	t.Run("counted once", func(t *testing.T) {
		_, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
		if err != nil || total != 1 {
			t.Errorf("total %d err %v; want 1", total, err)
		}
	})
}

func refOf[T any](v T) *T { return &v }

func TestContactReads(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	list := leadsList(t, s, org)
	var inputs []contact.Input
	for i := range 150 {
		inputs = append(inputs, contact.Input{MailID: fmt.Sprintf("p%03d@example.com", i)})
	}
	res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, inputs[:120], contact.Source{Type: contact.SourceImport})
	if err != nil || res.Created != 120 {
		t.Fatalf("import: %d created, err %v", res.Created, err)
	}
	var ids []string
	for _, it := range res.Items {
		ids = append(ids, it.ContactID)
	}
	// 30 contacts outside the list, then every contact into it by id.
	more, err := contact.NewApp(s, nil).AddToList(ctx, org, newOtherList(t, s, org).ListID, inputs[120:], contact.Source{Type: contact.SourceImport})
	if err != nil || more.Created != 30 {
		t.Fatalf("import: %+v, %v", more, err)
	}
	for _, it := range more.Items {
		ids = append(ids, it.ContactID)
	}
	if err := contact.NewApp(s, nil).DeleteContact(ctx, org, ids[5]); err != nil {
		t.Fatal(err)
	}

	t.Run("AddIDsToList takes more than 100", func(t *testing.T) {
		r, err := contact.NewApp(s, nil).AddIDsToList(ctx, org, list.ListID, ids)
		if err != nil {
			t.Fatal(err)
		}
		if r.Added != 30 || r.Unchanged != 119 || r.Failed != 1 || r.Items[5].Status != contact.StatusFailed || r.Items[149].Index != 149 {
			t.Errorf("added %d unchanged %d failed %d; want 30, 119, 1 (the deleted one)", r.Added, r.Unchanged, r.Failed)
		}
		if l, _ := s.ContactList(ctx, org, list.ListID); l.ContactCount != 149 {
			t.Errorf("count = %d, want 149", l.ContactCount)
		}
	})
	t.Run("ListContactIDs returns every member in a stable order", func(t *testing.T) {
		got, err := contact.NewApp(s, nil).MemberIDs(ctx, org, list.ListID)
		if err != nil {
			t.Fatal(err)
		}
		// The members whose first list it is, newest first, then those
		// that joined it as a later list, in id order.
		first := slices.Delete(slices.Clone(ids[:120]), 5, 6)
		slices.Reverse(first)
		later := slices.Sorted(slices.Values(ids[120:]))
		want := append(first, later...)
		if !slices.Equal(got, want) {
			t.Errorf("got %d ids, want the %d members in listMemberPage's order", len(got), len(want))
		}
		if _, err := contact.NewApp(s, nil).MemberIDs(ctx, org, "01NOSUCH"); gifting.ErrorCode(err) != gifting.CodeNotFound {
			t.Errorf("unknown list: %v", err)
		}
	})
	t.Run("ContactsByID keeps order and skips missing and deleted", func(t *testing.T) {
		got, err := s.ContactsByID(ctx, org, []string{ids[7], "01NOSUCH", ids[5], ids[3], ids[7]})
		if err != nil {
			t.Fatal(err)
		}
		var mails []string
		for _, c := range got {
			mails = append(mails, c.MailID)
		}
		if !slices.Equal(mails, []string{"p007@example.com", "p003@example.com", "p007@example.com"}) {
			t.Errorf("got %v", mails)
		}
	})
}

func newOtherList(t *testing.T, s *dynamo.Store, org string) gifting.ContactList {
	t.Helper()
	l, err := s.CreateContactList(context.Background(), org, "u", "Other", "")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mailFailingDB refuses every write of the contact with one address (a put
// on its own or in a transaction), as a fault DynamoDB Local cannot
// produce on demand.
type mailFailingDB struct {
	dynamo.DB
	mail string
}

func (f mailFailingDB) writes(it map[string]types.AttributeValue) bool {
	m, ok := it["mailId"].(*types.AttributeValueMemberS)
	return ok && m.Value == f.mail
}

func (f mailFailingDB) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	if f.writes(in.Item) {
		return nil, &types.InternalServerError{Message: refOf("injected failure")}
	}
	return f.DB.PutItem(ctx, in, opts...)
}

func (f mailFailingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	for _, it := range in.TransactItems {
		if it.Put != nil && f.writes(it.Put.Item) {
			return nil, &types.InternalServerError{Message: refOf("injected failure")}
		}
	}
	return f.DB.TransactWriteItems(ctx, in, opts...)
}

// BatchExecuteStatement runs the batch on DynamoDB Local but for the
// insert of the failing email, which it answers as failed (DynamoDB
// reports a failed statement in the batch's answer).
func (f mailFailingDB) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	var keep []types.BatchStatementRequest
	var failed []int
	for i, st := range in.Statements {
		if it, ok := dynamo.InsertedItem(st); ok && f.writes(it) {
			failed = append(failed, i)
			continue
		}
		keep = append(keep, st)
	}
	out := &dynamodb.BatchExecuteStatementOutput{}
	if len(keep) > 0 {
		cp := *in
		cp.Statements = keep
		var err error
		if out, err = f.DB.(*dynamodb.Client).BatchExecuteStatement(ctx, &cp, opts...); err != nil {
			return nil, err
		}
	}
	for _, i := range failed {
		out.Responses = slices.Insert(out.Responses, i, types.BatchStatementResponse{Error: &types.BatchStatementError{
			Code: types.BatchStatementErrorCodeEnumInternalServerError, Message: refOf("injected failure")}})
	}
	return out, nil
}

// TestBulkAddItemFailsAlone checks that an item whose write fails leaves
// nothing behind, and does not stop the items around it.
func TestBulkAddItemFailsAlone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	table := testenv.Table(t)
	s := dynamo.New(mailFailingDB{DB: testenv.Client(t), mail: "bad@example.com"}, table)
	healthy := dynamo.New(testenv.Client(t), table)
	org, _ := testenv.Org(t, s, "acme", 0)
	list := leadsList(t, s, org)
	res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, []contact.Input{
		{MailID: "a@example.com"}, {MailID: "BAD@example.com", FirstName: "Bad"}, {MailID: "c@example.com"},
	}, contact.Source{Type: contact.SourceImport})
	if err != nil {
		t.Fatal(err)
	}
	if res.Created != 2 || res.Failed != 1 || res.Items[1].Status != contact.StatusFailed ||
		!strings.Contains(res.Items[1].Reason, "retry") || strings.Contains(res.Items[1].Reason, "injected") {
		t.Fatalf("result %+v; want 2 created and item 1 failed with a retry hint, without internal text", res)
	}
	contacts, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
	if err != nil || total != 2 || len(contacts) != 2 {
		t.Fatalf("total %d, %d contacts, err %v; want 2", total, len(contacts), err)
	}
	if _, n, _ := contact.NewApp(s, nil).Contacts(ctx, org, "bad", gifting.PageRequest{Page: 1, Limit: 10}); n != 0 {
		t.Errorf("search finds %d half-written contacts", n)
	}
	if l, _ := s.ContactList(ctx, org, list.ListID); l.ContactCount != 2 {
		t.Errorf("list count = %d, want 2", l.ContactCount)
	}
	// Nothing holds the email: it imports as a new contact.
	again, err := contact.NewApp(healthy, nil).AddToList(ctx, org, list.ListID, []contact.Input{{MailID: "bad@example.com"}}, contact.Source{Type: contact.SourceImport})
	if err != nil || again.Items[0].Status != contact.StatusCreated {
		t.Errorf("re-import: %+v, %v; want created", again, err)
	}
}

// listDeletingDB deletes a contact list just before the batch that moves
// its count: the list is deleted while an import into it runs.
type listDeletingDB struct {
	dynamo.DB
	client *dynamodb.Client
	list   map[string]types.AttributeValue
}

func (f listDeletingDB) BatchExecuteStatement(ctx context.Context, in *dynamodb.BatchExecuteStatementInput, opts ...func(*dynamodb.Options)) (*dynamodb.BatchExecuteStatementOutput, error) {
	for _, st := range in.Statements {
		if k, ok := dynamo.UpdatedKey(st); ok && attrEq(k["SK"], f.list["SK"]) {
			table := strings.Split(aws.ToString(st.Statement), `"`)[1]
			if _, err := f.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: f.list}); err != nil {
				return nil, err
			}
		}
	}
	return f.client.BatchExecuteStatement(ctx, in, opts...)
}

func attrEq(a, b types.AttributeValue) bool {
	x, ok1 := a.(*types.AttributeValueMemberS)
	y, ok2 := b.(*types.AttributeValueMemberS)
	return ok1 && ok2 && x.Value == y.Value
}

// TestImportIntoListDeletedMeanwhile: when the list goes while an import
// into it runs, the contacts the import created stay, counted, but in no
// list, and each reports the list NOT_FOUND.
func TestImportIntoListDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	healthy := testenv.Store(t)
	org, _ := testenv.Org(t, healthy, "acme", 0)
	list := leadsList(t, healthy, org)
	s := dynamo.New(listDeletingDB{DB: testenv.Client(t), client: testenv.Client(t),
		list: dynamo.ItemKey("ORG#"+org, "LIST#"+list.ListID)}, healthy.Table())
	res, err := contact.NewApp(s, nil).AddToList(ctx, org, list.ListID, []contact.Input{{MailID: "a@example.com"}, {MailID: "b@example.com"}}, importSource)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Status != contact.StatusFailed || !strings.Contains(it.Reason, "not found") {
			t.Errorf("item %+v; want the list reported not found", it)
		}
	}
	contacts, total, err := contact.NewApp(healthy, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10})
	if err != nil || total != 2 || len(contacts) != 2 {
		t.Fatalf("%d contacts (total %d), %v; want the 2 created", len(contacts), total, err)
	}
	for _, c := range contacts {
		if len(c.ListIDs) != 0 {
			t.Errorf("contact %s is in lists %v; want none", c.MailID, c.ListIDs)
		}
	}
}

// leadsList creates the contact list "Leads" of org.
func leadsList(t *testing.T, s *dynamo.Store, org string) gifting.ContactList {
	t.Helper()
	list, err := s.CreateContactList(context.Background(), org, "u", "Leads", "")
	if err != nil {
		t.Fatal(err)
	}
	return list
}
