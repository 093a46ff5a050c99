package audience

import (
	"strings"

	contacts "github.com/giftcampaign/service/shared/contact"
)

// ListNames are the name and description of a contact list made from
// audience a: those given, or the audience's name and a description naming
// it when blank.
func ListNames(a Audience, name, description string) (string, string) {
	if strings.TrimSpace(name) == "" {
		name = a.Name
	}
	if strings.TrimSpace(description) == "" {
		description = "Contacts of audience list " + a.Name
	}
	return name, description
}

// CopyStarted is the progress of a copy into a contact list as it starts.
func CopyStarted() ListProgress { return ListProgress{Status: ListAdding} }

// CopyStep is what one slice of a copy into contact list ListID records:
// the members it added, counted by outcome, and where the copy is after
// it. It is committed conditioned on the copy still adding at From, so a
// slice that runs twice counts once.
type CopyStep struct {
	ListID string
	// From is the cursor as read ("" none yet); To the contact id of the
	// last member the slice processed.
	From, To                 string
	Added, Unchanged, Failed int64
	// Last ends the copy: its list is ready.
	Last bool
}

// NextCopy is the step of the slice of the copy into listID (its progress
// p) that processed ids, the members after p's cursor, with result added;
// last when no member follows them.
func NextCopy(listID string, p ListProgress, ids []string, added contacts.BulkResult, last bool) CopyStep {
	s := CopyStep{ListID: listID, From: p.Cursor, Added: int64(added.Added), Unchanged: int64(added.Unchanged),
		Failed: int64(added.Failed), Last: last}
	if !last {
		s.To = ids[len(ids)-1]
	}
	return s
}

// Copying reports whether a's copy into listID is still adding, and its
// progress.
func Copying(a Audience, listID string) (ListProgress, bool) {
	p, ok := a.Meta.ContactLists[listID]
	return p, ok && p.Status == ListAdding
}
