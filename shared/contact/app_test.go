package contact_test

import (
	"context"
	"testing"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// The use cases against the real storage (DynamoDB Local; skipped with
// one message when none runs, make test starts one). The decisions they
// run are tested without it (the other tests of this package); the
// storage of contacts, its items and costs, in shared/dynamo and through
// the API in shared/httpapi.

// TestConcurrentEditsAreAllKept: edits of different fields of one contact
// made at once each commit on the version they read, or read again and
// decide again, so none is lost.
func TestConcurrentEditsAreAllKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, _ := testenv.Org(t, s, "acme", 0)
	app := contact.NewApp(s, nil)
	l, err := app.CreateList(ctx, orgID, "user-acme", "Leads", "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := app.AddToList(ctx, orgID, l.ListID, []contact.Input{{MailID: "ada@example.com"}}, contact.Source{Type: contact.SourceImport})
	if err != nil || res.Created != 1 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	id := res.Items[0].ContactID
	patches := []contact.Patch{
		{FirstName: ref("Ada")}, {JobTitle: ref("CTO")}, {PhoneNumber: ref("+44 1")}, {CompanyID: ref("co-1")},
		{Notes: ref("met at the fair")}, {CompanyName: ref("Engines")}, {Tags: []string{"vip"}},
		{Address: &contact.Address{Line1: "1 Main St", City: "London"}},
	}
	done := make(chan error, len(patches))
	for _, p := range patches {
		go func() {
			_, err := app.UpdateContact(ctx, orgID, id, p)
			done <- err
		}()
	}
	for range patches {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	c, err := app.Contact(ctx, orgID, id)
	if err != nil {
		t.Fatal(err)
	}
	if c.FirstName != "Ada" || c.JobTitle != "CTO" || c.PhoneNumber != "+44 1" || c.CompanyID != "co-1" || c.Notes != "met at the fair" ||
		c.CompanyName != "Engines" || len(c.Tags) != 1 || c.Address.City != "London" || c.Stored.Version != int64(len(patches)+1) {
		t.Errorf("after %d concurrent edits: %+v; want every one kept, version %d", len(patches), c, len(patches)+1)
	}
	if _, total, err := app.Members(ctx, orgID, l.ListID, "", gifting.PageRequest{Page: 1, Limit: 10}); err != nil || total != 1 {
		t.Errorf("the list holds %d, %v; want the contact once", total, err)
	}
}
