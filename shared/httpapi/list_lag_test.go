package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/testenv"
)

// counterLostDB loses the writes that count work done by other writes: a
// launch slice's count (the transaction led by its LAUNCH# record) and an
// import's counters (COUNT#CONTACT, a list's contactCount), as a process
// that dies between its writes and its count does. DynamoDB Local cannot
// fail them on demand.
type counterLostDB struct{ dynamo.DB }

var errDied = errors.New("the process died before counting")

func (d counterLostDB) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, opts ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if u := in.TransactItems[0].Update; u != nil && strings.HasPrefix(sortKey(u.Key), "LAUNCH#") {
		return nil, errDied
	}
	return d.DB.TransactWriteItems(ctx, in, opts...)
}

func (d counterLostDB) UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error) {
	// An import's opening of the contacts count (ADD pend, before its
	// writes) goes through: the process dies after the writes.
	opening := strings.HasPrefix(aws.ToString(in.UpdateExpression), "ADD pend ")
	if sk := sortKey(in.Key); !opening && (strings.HasPrefix(sk, "COUNT#") || strings.HasPrefix(sk, "LIST#")) {
		return nil, errDied
	}
	return d.DB.UpdateItem(ctx, in, opts...)
}

func sortKey(k map[string]types.AttributeValue) string {
	if v, ok := k["SK"].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// TestRecipientListWhileASliceIsUncounted reads a campaign's recipients
// while a launch slice's recipients are written and not yet counted (the
// run that wrote them died before its count): following hasNext, and
// within totalPages, every page of the list is reached and every recipient
// is listed once; the total never says the list ends before it does.
func TestRecipientListWhileASliceIsUncounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "lagging-recipients", 1_000_000)
	api := testenv.NewAPI(t, s, key)
	_, gifts := campaignCatalogRefs(t)
	const n = 57
	listID, _ := listWithContacts(t, s, orgID, n)
	c := launchReady(t, api, gifts[1], listID)
	dying := dynamo.New(counterLostDB{testenv.Client(t)}, s.Table())
	if _, err := testenv.LaunchCampaign(ctx, dying, orgID, c.CampaignID, "user-1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := testenv.Campaigns(dying).LaunchSlice(ctx, orgID, c.CampaignID, ""); !errors.Is(err, errDied) {
		t.Fatalf("slice: %v, want it to die before its count", err)
	}
	if got := fetchCampaign(t, api, c.CampaignID); got.TotalRecipients != 0 {
		t.Fatalf("the campaign counts %d recipients, want 0: the slice was not counted", got.TotalRecipients)
	}
	for _, query := range []string{"?limit=10", "?limit=10&status=pending", "?limit=10&sortOrder=asc"} {
		seen := map[string]int{}
		for page := 1; ; page++ {
			p := listRecipients(t, api, c.CampaignID, fmt.Sprintf("%s&page=%d", query, page))
			for _, r := range p.Recipients {
				seen[r.RecipientID]++
			}
			if p.Pagination.TotalPages < page || p.Pagination.Total < len(seen) {
				t.Errorf("%s page %d: totalPages %d, total %d with %d recipients seen up to it", query, page, p.Pagination.TotalPages, p.Pagination.Total, len(seen))
			}
			if !p.Pagination.HasNext {
				break
			}
		}
		if len(seen) != n {
			t.Errorf("%s: %d recipients reached by following hasNext, want %d", query, len(seen), n)
		}
		for id, k := range seen {
			if k != 1 {
				t.Errorf("%s: recipient %s listed %d times", query, id, k)
			}
		}
	}
}

// TestContactListsWhileAnImportIsUncounted reads the contacts and a list's
// members after an import wrote them and died before moving the counters:
// paging up to totalPages reaches every contact.
func TestContactListsWhileAnImportIsUncounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgID, key := testenv.Org(t, s, "lagging-contacts", 0)
	api := testenv.NewAPI(t, s, key)
	l, err := s.CreateContactList(ctx, orgID, "user-1", "list", "")
	if err != nil {
		t.Fatal(err)
	}
	dying := dynamo.New(counterLostDB{testenv.Client(t)}, s.Table())
	const n = 33
	in := make([]contact.Input, n)
	for i := range in {
		in[i] = contact.Input{MailID: fmt.Sprintf("c%d@example.com", i), FirstName: "C"}
	}
	if _, err := contact.NewApp(dying, nil).AddToList(ctx, orgID, l.ListID, in, contact.Source{Type: "test"}); !errors.Is(err, errDied) {
		t.Fatalf("import: %v, want it to die before its counts", err)
	}
	for _, path := range []string{"/api/campaigns/contacts", "/api/campaigns/contact-lists/" + l.ListID + "/contacts"} {
		seen := map[string]bool{}
		for page := 1; page <= 20; page++ {
			res := api.Do("GET", fmt.Sprintf("%s?limit=10&page=%d", path, page), nil)
			if res.Status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, res.Status, res.Body)
			}
			var p contactsPage
			res.JSON(t, &p)
			for _, c := range p.Items {
				seen[c.ContactID] = true
			}
			if p.TotalPages < page && len(p.Items) > 0 {
				t.Errorf("%s page %d holds %d contacts, but totalPages is %d", path, page, len(p.Items), p.TotalPages)
			}
			if page >= p.TotalPages {
				if p.Total < len(seen) {
					t.Errorf("%s: total %d on the last page, %d contacts listed", path, p.Total, len(seen))
				}
				break
			}
		}
		if len(seen) != n {
			t.Errorf("%s: %d contacts reached within totalPages, want %d", path, len(seen), n)
		}
	}
}

// TestLaunchOfAListWhoseImportDiedBeforeCounting: a list whose import
// wrote its members and died before moving its contactCount is launched
// for every member, paid for each, and each becomes a recipient.
func TestLaunchOfAListWhoseImportDiedBeforeCounting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	const credits = 100_000
	orgID, key := testenv.Org(t, s, "lagging-launch", credits)
	api := testenv.NewAPI(t, s, key)
	_, gifts := campaignCatalogRefs(t)
	listID, _ := listWithContacts(t, s, orgID, 4) // counted
	dying := dynamo.New(counterLostDB{testenv.Client(t)}, s.Table())
	in := make([]contact.Input, 26)
	for i := range in {
		in[i] = contact.Input{MailID: fmt.Sprintf("late%d@example.com", i), FirstName: "Late"}
	}
	if _, err := contact.NewApp(dying, nil).AddToList(ctx, orgID, listID, in, contact.Source{Type: "test"}); !errors.Is(err, errDied) {
		t.Fatalf("import: %v, want it to die before its counts", err)
	}
	c := launchReady(t, api, gifts[1], listID)
	res := api.Do("POST", "/api/campaigns/"+c.CampaignID+"/launch", nil)
	if res.Status != http.StatusAccepted {
		t.Fatalf("launch: %d %s", res.Status, res.Body)
	}
	var l launchEnvelope
	res.JSON(t, &l)
	api.Jobs.Wait()
	price := l.Data.CreditsPerRecipient
	if l.Data.Contacts != 30 {
		t.Errorf("the launch paid for %d contacts, want the list's 30 members", l.Data.Contacts)
	}
	assertLaunchEnded(t, api, s, orgID, c.CampaignID, credits, 30, 30, price)
}
