package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
	"github.com/giftcampaign/service/shared/wire"
)

// listStarted is the body of POST /audience-lists/{id}/contact-list.
type listStarted struct {
	StatusCode int `json:"statusCode"`
	Data       struct {
		ListID      string              `json:"listId"`
		AudienceID  string              `json:"audienceId"`
		ContactList gifting.ContactList `json:"contactList"`
		Progress    wire.ListProgress   `json:"progress"`
	} `json:"data"`
}

func TestAudienceToContactList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := testenv.Store(t)
	orgA, keyA := testenv.Org(t, s, "acme", 0)
	a, start := testenv.HeldAPI(t, s, keyA)
	ids := seedContacts(t, s, orgA, matchingPeople)
	icp := createPersona(t, a, map[string]any{"name": "sales", "departments": []string{"Sales"}})

	res := a.Do("POST", "/api/campaigns/audience-lists", map[string]any{"name": "Sales people", "icpId": icp})
	var env audienceEnvelope
	res.JSON(t, &env)
	aud := env.Data
	base := "/api/campaigns/audience-lists/" + aud.AudienceID

	t.Run("409 while list-building", func(t *testing.T) {
		assertError(t, a.Do("POST", base+"/contact-list", nil), http.StatusConflict, "CONFLICT")
		var body audienceContactsBody
		a.Do("GET", base+"/contacts", nil).JSON(t, &body)
		if body.Data.Audience.Status != string(audience.Building) || len(body.Data.Items) != 0 || body.Data.Pagination["total"] != 0 {
			t.Errorf("building audience contacts: %+v", body.Data)
		}
	})
	start()
	a.Jobs.Wait()
	want := contactIDsOf(ids, "alice@example.com", "carol@example.com", "dan@example.com", "hal@example.com")
	slices.Sort(want)
	_, contactsBefore, err := contact.NewApp(s, nil).Contacts(ctx, orgA, "", gifting.PageRequest{Page: 1, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}

	var first listStarted
	t.Run("ready audience becomes a list of the same contacts", func(t *testing.T) {
		res := a.Do("POST", base+"/contact-list", nil)
		res.JSON(t, &first)
		if res.Status != http.StatusAccepted || first.Data.ListID == "" || first.Data.ContactList.Name != "Sales people" ||
			first.Data.Progress.Status != audience.ListAdding {
			t.Fatalf("convert: %d %s", res.Status, res.Body)
		}
		a.Jobs.Wait()
		members, err := contact.NewApp(s, nil).MemberIDs(ctx, orgA, first.Data.ListID)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(members)
		if !slices.Equal(members, want) {
			t.Errorf("list members = %v, want %v", members, want)
		}
		l, err := s.ContactList(ctx, orgA, first.Data.ListID)
		if err != nil || l.ContactCount != 4 {
			t.Errorf("list contactCount = %d (%v), want 4", l.ContactCount, err)
		}
		p := getAudience(t, a, aud.AudienceID).Metadata.ContactLists[first.Data.ListID]
		if p != (wire.ListProgress{Status: audience.ListReady, Added: 4}) {
			t.Errorf("progress = %+v, want ready with 4 added", p)
		}
	})
	t.Run("no contact is duplicated", func(t *testing.T) {
		_, after, err := contact.NewApp(s, nil).Contacts(ctx, orgA, "", gifting.PageRequest{Page: 1, Limit: 1})
		if err != nil || after != contactsBefore {
			t.Errorf("contacts: %d before, %d after (%v)", contactsBefore, after, err)
		}
		c, err := contact.NewApp(s, nil).Contact(ctx, orgA, ids["alice@example.com"])
		if err != nil || !c.InList(first.Data.ListID) {
			t.Errorf("alice's listIds %v do not hold the new list (%v)", c.ListIDs, err)
		}
	})
	t.Run("a contact deleted since the build fails alone", func(t *testing.T) {
		if err := contact.NewApp(s, nil).DeleteContact(ctx, orgA, ids["dan@example.com"]); err != nil {
			t.Fatal(err)
		}
		var second listStarted
		res := a.Do("POST", base+"/contact-list", map[string]any{"name": "Sales, renamed", "description": "second"})
		res.JSON(t, &second)
		if res.Status != http.StatusAccepted || second.Data.ContactList.Name != "Sales, renamed" || second.Data.ListID == first.Data.ListID {
			t.Fatalf("second convert: %d %s", res.Status, res.Body)
		}
		a.Jobs.Wait()
		lists := getAudience(t, a, aud.AudienceID).Metadata.ContactLists
		if p := lists[second.Data.ListID]; p != (wire.ListProgress{Status: audience.ListReady, Added: 3, Failed: 1}) {
			t.Errorf("progress = %+v, want ready with 3 added and 1 failed", p)
		}
		if len(lists) != 2 {
			t.Errorf("audience records %d contact lists, want 2", len(lists))
		}
	})
	t.Run("bad name", func(t *testing.T) {
		long := make([]byte, 201)
		for i := range long {
			long[i] = 'a'
		}
		assertError(t, a.Do("POST", base+"/contact-list", map[string]any{"name": string(long)}), http.StatusBadRequest, "VALIDATION_FAILED")
	})
}

// failingContacts is a DynamoDB client whose queries of the contacts
// partition fail, as a throttled or unreachable table would.
type failingContacts struct{ dynamo.DB }

func (f failingContacts) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	if p, ok := in.ExpressionAttributeValues[":prefix"].(*types.AttributeValueMemberS); ok && p.Value == "CONTACT#" && in.IndexName == nil {
		return nil, errors.New("injected: contacts unavailable")
	}
	return f.DB.Query(ctx, in, opts...)
}

func TestAudienceBuildFails(t *testing.T) {
	t.Parallel()
	s := dynamo.New(failingContacts{testenv.Client(t)}, testenv.Table(t))
	_, key := testenv.Org(t, s, "acme", 0)
	a := testenv.NewAPI(t, s, key)
	icp := createPersona(t, a, map[string]any{"name": "sales", "departments": []string{"Sales"}})
	aud := buildAudience(t, a, map[string]any{"name": "doomed", "icpId": icp, "creditsPerContact": 10})
	if aud.Status != string(audience.Failed) || aud.Metadata.Error == "" || aud.Metadata.BuildFinishedAt == nil {
		t.Fatalf("audience = %+v; want failed with a reason", aud)
	}
	assertError(t, a.Do("POST", "/api/campaigns/audience-lists/"+aud.AudienceID+"/contact-list", nil), http.StatusConflict, "CONFLICT")
}
