package httpapi

import (
	"net/http"

	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/gifting"
)

func (s *Server) contactsRoutes() []route {
	return append([]route{
		{pattern: "GET /api/campaigns/contacts", handle: s.listContacts},
		{pattern: "GET /api/campaigns/contacts/{contactId}", handle: s.getContact},
		{pattern: "PATCH /api/campaigns/contacts/{contactId}", handle: s.updateContact},
		{pattern: "DELETE /api/campaigns/contacts/{contactId}", handle: s.deleteContact},
		{pattern: "GET /api/campaigns/contact-lists", handle: s.listContactLists},
		{pattern: "POST /api/campaigns/contact-lists", handle: s.createContactList},
		{pattern: "GET /api/campaigns/contact-lists/{listId}", handle: s.getContactList},
		{pattern: "PATCH /api/campaigns/contact-lists/{listId}", handle: s.updateContactList},
		{pattern: "DELETE /api/campaigns/contact-lists/{listId}", handle: s.deleteContactList},
		{pattern: "GET /api/campaigns/contact-lists/{listId}/contacts", handle: s.listMembers},
		{pattern: "GET /api/campaigns/contact-lists/{listId}/contacts/export", handle: s.exportContacts},
		{pattern: "POST /api/campaigns/contact-lists/{listId}/contacts", handle: s.addContactsToList, rate: gifting.RateBulkAdd},
		{pattern: "DELETE /api/campaigns/contact-lists/{listId}/contacts/{contactId}", handle: s.removeContactFromList},
		{pattern: "POST /api/campaigns/enrichment/enrich", handle: s.enrich, rate: gifting.RateEnrichment},
	}, append(append(s.suppressionRoutes(), s.erasureRoutes()...), s.importRoutes()...)...)
}

// contactsPageBody is the bare response of GET /contacts (the original
// interface, docs/api.md).
type contactsPageBody struct {
	Items      []contactDTO `json:"items"`
	Total      int          `json:"total"`
	Page       int          `json:"page"`
	Limit      int          `json:"limit"`
	TotalPages int          `json:"totalPages"`
	// NextCursor starts the next page ("" on the last page, and for a
	// search, whose order follows no key: cursor.go).
	NextCursor string `json:"nextCursor"`
}

// listContacts serves GET /contacts: every live contact, or with listId
// only the members of that list (as GET /contact-lists/{listId}/contacts).
func (s *Server) listContacts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	listID := q.str("listId")
	if q.v.Has("listId") && !gifting.ValidID(listID) {
		q.problems.Add("listId", "must be a contact list id")
	}
	return s.writeContacts(w, r, q, listID)
}

// listMembers serves GET /contact-lists/{listId}/contacts: the list's
// members, in GET /contacts' shape and with its parameters.
func (s *Server) listMembers(w http.ResponseWriter, r *http.Request) error {
	return s.writeContacts(w, r, newQuery(r), r.PathValue("listId"))
}

// writeContacts answers a page of contacts: the org's, or the members of
// listID when it is set.
func (s *Server) writeContacts(w http.ResponseWriter, r *http.Request, q *query, listID string) error {
	page := q.page(12)
	search := q.search(maxSearch)
	org := principal(r.Context()).OrgID
	// A search's page is kept in order in memory from the word entries
	// that match: no key to resume from, so no cursor.
	_, searching := contact.NewSearch(search, listID)
	binding := gifting.Binding(org, "contacts", listID)
	q.cursorPage(&page, binding, !searching)
	if err := q.err(); err != nil {
		return err
	}
	var items []contact.Contact
	var total int
	var err error
	if listID != "" {
		items, total, err = s.contacts.Members(r.Context(), org, listID, search, page)
	} else {
		items, total, err = s.contacts.Contacts(r.Context(), org, search, page)
	}
	if err != nil {
		return err
	}
	p := gifting.NewPagination(page, total)
	writeJSON(w, http.StatusOK, contactsPageBody{Items: convert(items, toContactDTO), Total: p.Total, Page: p.Page,
		Limit: p.Limit, TotalPages: p.TotalPages, NextCursor: nextCursor(page, binding)})
	return nil
}

func (s *Server) getContact(w http.ResponseWriter, r *http.Request) error {
	c, err := s.contacts.Contact(r.Context(), principal(r.Context()).OrgID, r.PathValue("contactId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact retrieved", toContactDTO(c))
	return nil
}

func (s *Server) updateContact(w http.ResponseWriter, r *http.Request) error {
	var body contactPatchBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	c, err := s.contacts.UpdateContact(r.Context(), principal(r.Context()).OrgID, r.PathValue("contactId"), body.patch())
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact updated", toContactDTO(c))
	return nil
}

// deletedContact is the data of a delete response.
type deletedContact struct {
	ContactID string `json:"contactId"`
	IsDeleted bool   `json:"isDeleted"`
}

func (s *Server) deleteContact(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("contactId")
	if err := s.contacts.DeleteContact(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact deleted", deletedContact{ContactID: id, IsDeleted: true})
	return nil
}

// contactListsData is the data of GET /contact-lists.
type contactListsData struct {
	Items      []contactListDTO   `json:"items"`
	Pagination gifting.Pagination `json:"pagination"`
}

func (s *Server) listContactLists(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	search := q.search(maxSearch)
	sortBy := q.enum("sortBy", "createdAt", contact.ListSorts...)
	order := q.sortOrder(gifting.Desc)
	if err := q.err(); err != nil {
		return err
	}
	lists, total, err := s.contacts.Lists(r.Context(), principal(r.Context()).OrgID,
		contact.ListQuery{Search: search, SortBy: sortBy, Order: order, Page: page})
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact lists retrieved",
		contactListsData{Items: convert(lists, toContactListDTO), Pagination: gifting.NewPagination(page, total)})
	return nil
}

func (s *Server) createContactList(w http.ResponseWriter, r *http.Request) error {
	var in newContactListBody
	if err := decode(w, r, &in); err != nil {
		return err
	}
	p := principal(r.Context())
	l, err := s.contacts.CreateList(r.Context(), p.OrgID, p.UserID, in.Name, in.Description)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "Contact list created", toContactListDTO(l))
	return nil
}

func (s *Server) getContactList(w http.ResponseWriter, r *http.Request) error {
	l, err := s.contacts.List(r.Context(), principal(r.Context()).OrgID, r.PathValue("listId"))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact list retrieved", toContactListDTO(l))
	return nil
}

func (s *Server) updateContactList(w http.ResponseWriter, r *http.Request) error {
	var body contactListPatchBody
	if err := decode(w, r, &body); err != nil {
		return err
	}
	l, err := s.contacts.UpdateList(r.Context(), principal(r.Context()).OrgID, r.PathValue("listId"), contact.ListPatch(body))
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact list updated", toContactListDTO(l))
	return nil
}

func (s *Server) deleteContactList(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("listId")
	if err := s.contacts.DeleteList(r.Context(), principal(r.Context()).OrgID, id); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact list deleted", deleted("listId", id))
	return nil
}

func (s *Server) removeContactFromList(w http.ResponseWriter, r *http.Request) error {
	listID, contactID := r.PathValue("listId"), r.PathValue("contactId")
	if err := s.contacts.RemoveFromList(r.Context(), principal(r.Context()).OrgID, listID, contactID); err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "Contact removed from list", map[string]string{"listId": listID, "contactId": contactID})
	return nil
}

func (s *Server) enrich(w http.ResponseWriter, r *http.Request) error {
	var q enrichmentQueryBody
	if err := decode(w, r, &q); err != nil {
		return err
	}
	res, err := s.contacts.Enrich(r.Context(), principal(r.Context()).OrgID, contact.Query(q))
	if err != nil {
		return err
	}
	msg := "No match found"
	if res.Matched {
		msg = "Match found"
	}
	writeEnvelope(w, http.StatusOK, msg, toEnrichmentDTO(res))
	return nil
}
