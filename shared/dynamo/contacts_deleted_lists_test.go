package dynamo_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// A contact of a list whose deletion job has not reached it yet (the list
// is gone, its memberships not yet dropped) can be deleted at once: the
// other lists' counts and the contacts total drop, and the deletion job
// then finishes without tripping on it.
func TestDeleteContactOfDeletedList(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := testenv.Store(t)
	org, _ := testenv.Org(t, s, "acme", 0)
	leads, vips := leadsList(t, s, org), newOtherList(t, s, org)
	add := func(list string, emails ...string) []string {
		t.Helper()
		var in []contact.Input
		for _, e := range emails {
			in = append(in, contact.Input{MailID: e})
		}
		res, err := contact.NewApp(s, nil).AddToList(ctx, org, list, in, importSource)
		if err != nil || res.Failed > 0 {
			t.Fatalf("import into %s: %+v, %v", list, res, err)
		}
		var ids []string
		for _, it := range res.Items {
			ids = append(ids, it.ContactID)
		}
		return ids
	}
	// a: Leads first (on the item), VIPs later; b: VIPs first, Leads later
	// (a MEMBER# item).
	a := add(leads.ListID, "a@example.com")[0]
	b := add(vips.ListID, "b@example.com")[0]
	add(vips.ListID, "a@example.com")
	add(leads.ListID, "b@example.com")
	if err := contact.NewApp(s, nil).DeleteList(ctx, org, leads.ListID); err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]string{"first list": a, "later list": b} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			if err := contact.NewApp(s, nil).DeleteContact(ctx, org, id); err != nil {
				t.Fatalf("delete contact after %v: %v", time.Since(start).Round(time.Millisecond), err)
			}
			if _, err := contact.NewApp(s, nil).Contact(ctx, org, id); gifting.ErrorCode(err) != gifting.CodeNotFound {
				t.Errorf("deleted contact read: %v; want NOT_FOUND", err)
			}
		})
	}
	if l, err := s.ContactList(ctx, org, vips.ListID); err != nil || l.ContactCount != 0 {
		t.Errorf("VIPs count %d, %v; want 0", l.ContactCount, err)
	}
	if _, total, err := contact.NewApp(s, nil).Contacts(ctx, org, "", gifting.PageRequest{Page: 1, Limit: 10}); err != nil || total != 0 {
		t.Errorf("contacts total %d, %v; want 0", total, err)
	}
	for range 5 {
		done, err := contact.NewApp(s, nil).RunListDelete(ctx, org, leads.ListID)
		if err != nil {
			t.Fatalf("list deletion job: %v", err)
		}
		if done {
			return
		}
	}
	t.Error("the list deletion job did not finish")
}

// txnListDeletingDB deletes the list (as a concurrent DELETE of it would)
// just before the first transaction it is given, then passes every call on
// to DynamoDB Local.
type txnListDeletingDB struct {
	dynamo.DB
	once   *sync.Once
	delete func()
}

func (d txnListDeletingDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	d.once.Do(d.delete)
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

// Removing a contact from a list that is deleted at that moment answers
// NOT_FOUND (the list is gone) at once, not after a minute of retries of
// a count update that can never succeed.
func TestRemoveFromListDeletedMeanwhile(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	table := testenv.Table(t)
	plain := dynamo.New(testenv.Client(t), table)
	org, _ := testenv.Org(t, plain, "acme", 0)
	list := leadsList(t, plain, org)
	res, err := contact.NewApp(plain, nil).AddToList(ctx, org, list.ListID, []contact.Input{{MailID: "ada@example.com"}}, importSource)
	if err != nil || res.Failed > 0 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	s := dynamo.New(txnListDeletingDB{DB: testenv.Client(t), once: &sync.Once{}, delete: func() {
		if err := contact.NewApp(plain, nil).DeleteList(ctx, org, list.ListID); err != nil {
			t.Errorf("delete the list: %v", err)
		}
	}}, table)
	start := time.Now()
	err = contact.NewApp(s, nil).RemoveFromList(ctx, org, list.ListID, res.Items[0].ContactID)
	if gifting.ErrorCode(err) != gifting.CodeNotFound {
		t.Fatalf("remove from a list deleted meanwhile: %v, want NOT_FOUND", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the answer took %v", took)
	}
}
