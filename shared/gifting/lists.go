package gifting

import (
	"cmp"
	"strings"
)

// ListQuery is what every list of personas, audiences and events takes
// besides its own filter: free-text search, sort and page.
type ListQuery struct {
	// Search keeps the items whose text (see each resource's SearchText)
	// contains every word of it, case-insensitively.
	Search string
	// SortBy is one of the resource's sorts; "" means createdAt.
	SortBy string
	Order  SortOrder
	Page   PageRequest
}

// DefaultOrder reports whether q lists in creation order with no search:
// the order a list can serve from its counter and the Slim index, O(page).
func (q ListQuery) DefaultOrder() bool {
	return q.Search == "" && (q.SortBy == "" || q.SortBy == SortCreatedAt)
}

// Sort fields shared by the lists.
const (
	SortCreatedAt = "createdAt"
	SortUpdatedAt = "updatedAt"
	SortName      = "name"
)

// Sort fields of the persona and audience lists, default first (the event
// list's are shared/event's).
var (
	PersonaSorts  = []string{SortCreatedAt, SortUpdatedAt, SortName}
	AudienceSorts = []string{SortCreatedAt, SortUpdatedAt, SortName, "totalMatch"}
)

// AudienceStatuses are the states of an audience list.
var AudienceStatuses = []string{string(AudienceBuilding), string(AudienceReady), string(AudienceFailed)}

// PersonaFilter selects personas; empty fields do not filter.
type PersonaFilter struct {
	Status string
}

// AudienceFilter selects audience lists; empty fields do not filter.
type AudienceFilter struct {
	Status AudienceStatus
	ICPID  string
}

// Empty reports whether f keeps every persona.
func (f PersonaFilter) Empty() bool { return f == PersonaFilter{} }

// Empty reports whether f keeps every audience.
func (f AudienceFilter) Empty() bool { return f == AudienceFilter{} }

// Keeps reports whether f keeps p.
func (f PersonaFilter) Keeps(p ICPPersona) bool { return f.Status == "" || p.Status == f.Status }

// Keeps reports whether f keeps a.
func (f AudienceFilter) Keeps(a AudienceList) bool {
	return (f.Status == "" || a.Status == f.Status) && (f.ICPID == "" || a.ICPID == f.ICPID)
}

// MatchesSearch reports whether text holds every word of search,
// case-insensitively; an empty search matches everything.
func MatchesSearch(text, search string) bool {
	text = strings.ToLower(text)
	for _, w := range strings.Fields(strings.ToLower(search)) {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// SearchText is what the persona list's search matches: the persona's
// name, description and tags.
func (icp ICPPersona) SearchText() string {
	return strings.Join(append([]string{icp.Persona.Name, icp.Persona.Description}, icp.Metadata.Tags...), "\n")
}

// SearchText is what the audience list's search matches: name,
// description and tags.
func (a AudienceList) SearchText() string {
	return strings.Join(append([]string{a.Name, a.Description}, a.Tags...), "\n")
}

// CompareBy orders two items of a list by sortBy (named fields through
// field, createdAt and updatedAt through the times), ties by id, in order.
func CompareBy(order SortOrder, by int, idA, idB string) int {
	if by == 0 {
		by = cmp.Compare(idA, idB)
	}
	if order == Desc {
		return -by
	}
	return by
}

// CompareText orders two names case-insensitively.
func CompareText(a, b string) int { return cmp.Compare(strings.ToLower(a), strings.ToLower(b)) }

// JobAudiencePurge is the job kind that removes a deleted audience's
// members in slices. The deleted audience's tombstone is due under it, so
// the scheduler tick finishes the purge if its message is lost.
const JobAudiencePurge = "audience.purge"

// JobAudienceBuild is the job kind that builds an audience's members in
// slices. A list-building audience is due under it, so the scheduler tick
// finishes the build if its message is lost.
const JobAudienceBuild = "audience.build"

// JobAudienceContactList is the job kind that fills a contact list with an
// audience's members in slices (its ref the audience, its cursor the
// list). The copy's own due item is due under it, so the scheduler tick
// finishes the copy if its message is lost.
const JobAudienceContactList = "audience.contactlist"
