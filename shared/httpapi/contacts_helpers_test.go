package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/testenv"
)

// bulkResponse is the body of a bulk add.
type bulkResponse struct {
	Success    bool              `json:"success"`
	StatusCode int               `json:"statusCode"`
	Message    string            `json:"message"`
	Code       string            `json:"code"`
	Details    map[string]string `json:"details"`
	Data       struct {
		ListID   string `json:"listId"`
		Received int    `json:"received"`
		bulkResult
	} `json:"data"`
}

// bulkResult is a bulk add's outcome as the API answers it.
type bulkResult struct {
	Items []struct {
		Index     int               `json:"index"`
		Status    string            `json:"status"`
		ContactID string            `json:"contactId"`
		MailID    string            `json:"mailId"`
		Reason    string            `json:"reason"`
		Details   map[string]string `json:"details"`
	} `json:"results"`
	Created   int `json:"created"`
	Merged    int `json:"merged"`
	Added     int `json:"added"`
	Unchanged int `json:"unchanged"`
	Failed    int `json:"failed"`
}

// contactsPage is the body of GET /contacts.
type contactsPage struct {
	Items      []gifting.Contact `json:"items"`
	Total      int               `json:"total"`
	Page       int               `json:"page"`
	Limit      int               `json:"limit"`
	TotalPages int               `json:"totalPages"`
}

// newContactsAPI returns an API for a fresh organization "acme".
func newContactsAPI(t *testing.T) (*testenv.API, *dynamo.Store) {
	t.Helper()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "acme", 0)
	return testenv.NewAPI(t, s, key), s
}

// createList creates a contact list and returns its id.
func createList(t *testing.T, api *testenv.API, name string) string {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/contact-lists", map[string]any{"name": name, "description": "for " + name})
	if res.Status != http.StatusCreated {
		t.Fatalf("create list: %d %s", res.Status, res.Body)
	}
	var body struct {
		Data gifting.ContactList `json:"data"`
	}
	res.JSON(t, &body)
	return body.Data.ListID
}

// bulkAdd posts body to a list's contacts and decodes the answer.
func bulkAdd(t *testing.T, api *testenv.API, listID string, body any) (int, bulkResponse) {
	t.Helper()
	res := api.Do("POST", "/api/campaigns/contact-lists/"+listID+"/contacts", body)
	var out bulkResponse
	res.JSON(t, &out)
	return res.Status, out
}

// importContacts adds contacts to a list and fails unless all succeed.
func importContacts(t *testing.T, api *testenv.API, listID string, contacts ...map[string]any) bulkResponse {
	t.Helper()
	status, out := bulkAdd(t, api, listID, map[string]any{"contacts": contacts})
	if status != http.StatusOK {
		t.Fatalf("import: status %d, %+v", status, out)
	}
	return out
}

// people returns n bulk-add contacts person<from>..person<from+n-1>.
func people(from, n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		k := from + i
		out[i] = map[string]any{
			"mailId": fmt.Sprintf("person%d@example.com", k), "firstName": fmt.Sprintf("First%d", k),
			"lastName": "Person", "companyName": "Company" + fmt.Sprint(k%3),
		}
	}
	return out
}

// listContacts reads GET /contacts with a query.
func listContacts(t *testing.T, api *testenv.API, query string) contactsPage {
	t.Helper()
	res := api.Do("GET", "/api/campaigns/contacts?"+query, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("list contacts %q: %d %s", query, res.Status, res.Body)
	}
	var p contactsPage
	res.JSON(t, &p)
	return p
}

// getList reads a contact list.
func getList(t *testing.T, api *testenv.API, listID string) gifting.ContactList {
	t.Helper()
	res := api.Do("GET", "/api/campaigns/contact-lists/"+listID, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get list: %d %s", res.Status, res.Body)
	}
	var body struct {
		Data gifting.ContactList `json:"data"`
	}
	res.JSON(t, &body)
	return body.Data
}

// getContact reads a contact, failing unless it exists.
func getContact(t *testing.T, api *testenv.API, id string) gifting.Contact {
	t.Helper()
	res := api.Do("GET", "/api/campaigns/contacts/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get contact: %d %s", res.Status, res.Body)
	}
	var body struct {
		Data gifting.Contact `json:"data"`
	}
	res.JSON(t, &body)
	return body.Data
}

// enrichmentBody is the data of POST /enrichment/enrich.
type enrichmentBody struct {
	Matched   bool   `json:"matched"`
	MatchedBy string `json:"matchedBy"`
	Provider  string `json:"provider"`
	Person    *struct {
		ContactID    string `json:"contact_id"`
		FirstName    string `json:"firstname"`
		LastName     string `json:"lastname"`
		FullName     string `json:"full_name"`
		Email        string `json:"email"`
		CompanyName  string `json:"company_name"`
		JobTitle     string `json:"job_title"`
		PhoneNumber  string `json:"phone_number"`
		LinkedinURL  string `json:"linkedin_url"`
		ProfileImage string `json:"profile_image"`
	} `json:"person"`
}

// contactsInList counts the contacts of org that are still members of
// listID (their listIds name it), whatever holds the membership: a
// test-only read of every contact item.
func contactsInList(t *testing.T, s *dynamo.Store, orgID, listID string) int {
	t.Helper()
	table := s.Table()
	p := dynamodb.NewQueryPaginator(testenv.Client(t), &dynamodb.QueryInput{
		TableName:              &table,
		KeyConditionExpression: aws.String("PK = :pk AND begins_with(SK, :contact)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: "ORG#" + orgID}, ":contact": &types.AttributeValueMemberS{Value: "CONTACT#"},
		},
		ConsistentRead: aws.Bool(true),
	})
	n := 0
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range out.Items {
			lists, _ := it["listIds"].(*types.AttributeValueMemberL)
			if lists != nil && slices.ContainsFunc(lists.Value, func(v types.AttributeValue) bool {
				s, ok := v.(*types.AttributeValueMemberS)
				return ok && s.Value == listID
			}) {
				n++
			}
		}
	}
	return n
}
