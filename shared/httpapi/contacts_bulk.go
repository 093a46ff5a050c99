package httpapi

import (
	"fmt"
	"net/http"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

// bulkAddInput is the body of POST /contact-lists/{listId}/contacts: new
// contacts, or the ids of existing ones. Wrong JSON types and unknown fields
// refuse the whole request (400), as everywhere; what is wrong with a
// well-formed contact (its email, a length, a URL) fails that item alone.
type bulkAddInput struct {
	Contacts   []bulkContact `json:"contacts"`
	ContactIDs []string      `json:"contactIds"`
}

// bulkContact is one contact of a bulk add (the original interface). email is
// accepted as an alias of mailId, as the quick-start guide writes it.
type bulkContact struct {
	MailID       string       `json:"mailId"`
	Email        string       `json:"email"`
	FirstName    string       `json:"firstName"`
	LastName     string       `json:"lastName"`
	FullName     string       `json:"fullName"`
	CompanyName  string       `json:"companyName"`
	JobTitle     string       `json:"jobTitle"`
	PhoneNumber  string       `json:"phoneNumber"`
	LinkedinURL  string       `json:"linkedinUrl"`
	ProfileImage string       `json:"profileImage"`
	Locale       string       `json:"locale"`
	Tags         []string     `json:"tags"`
	Address      *bulkAddress `json:"address"`
}

// bulkAddress is the address of a bulk-add contact.
type bulkAddress struct {
	Street  string `json:"street"`
	City    string `json:"city"`
	State   string `json:"state"`
	ZipCode string `json:"zipCode"`
	Country string `json:"country"`
}

// input converts a decoded contact into the slice's input, or reports why
// it cannot be one (contact.MailIDOf).
func (c bulkContact) input() (contact.Input, error) {
	mail, err := contact.MailIDOf(c.MailID, c.Email)
	if err != nil {
		return contact.Input{}, err
	}
	in := contact.Input{
		MailID: mail, FirstName: c.FirstName, LastName: c.LastName, FullName: c.FullName,
		CompanyName: c.CompanyName, JobTitle: c.JobTitle, PhoneNumber: c.PhoneNumber,
		LinkedinURL: c.LinkedinURL, ProfileImage: c.ProfileImage, Locale: c.Locale, Tags: c.Tags,
	}
	if a := c.Address; a != nil {
		in.Address = contact.Address{Line1: a.Street, City: a.City, State: a.State, Zip: a.ZipCode, Country: a.Country}
	}
	return in, nil
}

// bulkAddData is the data of a bulk-add response.
type bulkAddData struct {
	ListID   string `json:"listId"`
	Received int    `json:"received"`
	bulkResultDTO
}

// bulkAddFailed is the response when every item failed: the error shape
// with each item's problems in details, plus the per-item results.
type bulkAddFailed struct {
	ErrorBody
	Data bulkAddData `json:"data"`
}

func (s *Server) addContactsToList(w http.ResponseWriter, r *http.Request) error {
	var body bulkAddInput
	if err := decode(w, r, &body); err != nil {
		return err
	}
	if err := contact.CheckBulk(body.Contacts != nil, body.ContactIDs != nil, len(body.Contacts), len(body.ContactIDs)); err != nil {
		return err
	}
	ctx, orgID, listID := r.Context(), principal(r.Context()).OrgID, r.PathValue("listId")
	var (
		res   contact.BulkResult
		err   error
		field = "contacts"
	)
	if body.ContactIDs != nil {
		field = "contactIds"
		res, err = s.contacts.AddIDsToList(ctx, orgID, listID, body.ContactIDs)
	} else {
		res, err = s.bulkAddContacts(r, orgID, listID, body.Contacts)
	}
	if err != nil {
		return err
	}
	data := bulkAddData{ListID: listID, Received: len(res.Items), bulkResultDTO: toBulkResultDTO(res)}
	switch {
	case res.Failed == 0:
		writeEnvelope(w, http.StatusOK, "All contacts added to the list", data)
	case res.Failed < len(res.Items):
		writeJSON(w, http.StatusMultiStatus, Envelope{Success: false, StatusCode: http.StatusMultiStatus,
			Message: fmt.Sprintf("%d of %d contacts could not be added; see data.results", res.Failed, len(res.Items)), Data: data})
	default:
		details := map[string]string{}
		for _, it := range res.Items {
			details[fmt.Sprintf("%s[%d]", field, it.Index)] = it.Reason
		}
		writeJSON(w, http.StatusBadRequest, bulkAddFailed{
			ErrorBody: ErrorBody{StatusCode: http.StatusBadRequest, Message: messageOf[http.StatusBadRequest],
				Error: "no contact was added: every item failed; see details", Code: gifting.CodeValidation, Details: details},
			Data: data,
		})
	}
	return nil
}

// bulkAddContacts converts the contacts and adds them through the slice's
// shared bulk add (contact.App.AddCandidates), as a CSV import's batches do.
func (s *Server) bulkAddContacts(r *http.Request, orgID, listID string, contacts []bulkContact) (contact.BulkResult, error) {
	cands := make([]contact.Candidate, len(contacts))
	for i, c := range contacts {
		cands[i].Input, cands[i].Err = c.input()
	}
	src := contact.Source{Type: contact.SourceImport, Provider: contact.ProviderAPI}
	return s.contacts.AddCandidates(r.Context(), orgID, listID, cands, src)
}
