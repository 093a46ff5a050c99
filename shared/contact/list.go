package contact

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// maxDescriptionLen bounds a list's description.
const maxDescriptionLen = 2000

// NewList builds org's new, empty list named name, created by userID, with
// id: name and description are trimmed and checked (checkList).
func NewList(id, orgID, userID, name, description string, now time.Time) (List, error) {
	if err := checkList(&name, &description); err != nil {
		return List{}, err
	}
	return List{ListID: id, OrganizationID: orgID, Name: name, Description: description,
		CreatedBy: userID, CreatedAt: now, UpdatedAt: now}, nil
}

// checkList normalizes and checks the fields a caller sets on a list: a
// name (required, at most 200 characters) and a description (at most
// 2,000). Errors: VALIDATION_FAILED naming each field at fault.
func checkList(name, description *string) error {
	var p gifting.Problems
	*name, *description = strings.TrimSpace(*name), strings.TrimSpace(*description)
	if *name == "" {
		p.Add("name", "is required")
	} else {
		p.AtMost("name", *name, maxNameLen)
	}
	p.AtMost("description", *description, maxDescriptionLen)
	return p.Err()
}

// ListPatch is a partial update of a list: its name and description.
type ListPatch struct {
	Name        *string
	Description *string
}

// Apply checks the patched list as a new list is checked and, when it is
// valid, applies it to l and moves l's updatedAt to now. It returns
// VALIDATION_FAILED and leaves l unchanged otherwise.
func (p ListPatch) Apply(l *List, now time.Time) error {
	name, desc := l.Name, l.Description
	if p.Name != nil {
		name = *p.Name
	}
	if p.Description != nil {
		desc = *p.Description
	}
	if err := checkList(&name, &desc); err != nil {
		return err
	}
	l.Name, l.Description, l.UpdatedAt = name, desc, now
	return nil
}

// ListSorts are the sort fields of GET /contact-lists, default first.
var ListSorts = []string{"createdAt", "updatedAt", "name", "contactCount"}

// ListQuery selects a page of an organization's lists: those whose name or
// description holds every word of Search ("" keeps them all), sorted by
// SortBy (one of ListSorts; ties by id) in Order.
type ListQuery struct {
	Search string
	SortBy string
	Order  gifting.SortOrder
	Page   gifting.PageRequest
}

// SelectLists returns the page of lists q selects and how many it keeps.
// An organization has tens to hundreds of lists, not millions: they are
// read whole and sorted here.
func SelectLists(lists []List, q ListQuery) ([]List, int) {
	kept := slices.DeleteFunc(slices.Clone(lists), func(l List) bool {
		return !gifting.MatchesSearch(l.Name+"\n"+l.Description, q.Search)
	})
	slices.SortStableFunc(kept, func(a, b List) int {
		var c int
		switch q.SortBy {
		case "name":
			c = cmp.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
		case "updatedAt":
			c = a.UpdatedAt.Compare(b.UpdatedAt)
		case "contactCount":
			c = cmp.Compare(a.ContactCount, b.ContactCount)
		default:
			c = a.CreatedAt.Compare(b.CreatedAt)
		}
		return gifting.CompareBy(q.Order, c, a.ListID, b.ListID)
	})
	lo, hi := q.Page.Window(len(kept))
	return kept[lo:hi], len(kept)
}

// maxSearchTerms bounds the words of a contacts search; storage looks for
// each one in every contact's search text.
const maxSearchTerms = 8

// SearchTerms are the words a contacts search looks for, lower-cased:
// every word of search, the first maxSearchTerms of them. None means no
// search.
func SearchTerms(search string) []string {
	terms := strings.Fields(strings.ToLower(search))
	return terms[:min(len(terms), maxSearchTerms)]
}

// Members keeps the contacts of matched (in their order) that are members
// of a list (members, in any order): a search within a list.
func Members(matched, members []string) []string {
	in := make(map[string]bool, len(members))
	for _, id := range members {
		in[id] = true
	}
	return slices.DeleteFunc(slices.Clone(matched), func(id string) bool { return !in[id] })
}
