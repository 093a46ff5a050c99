package httpapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/wire"
)

// recipientList is the bare response of the recipient lists. Recipients is
// an array, or with groupBy=true an object mapping each status to the
// page's recipients in it. Organization and Campaign appear on the
// campaign recipients endpoint only.
type recipientList struct {
	Recipients                any                               `json:"recipients"`
	Pagination                gifting.Pagination                `json:"pagination"`
	CampaignID                string                            `json:"campaignId"`
	OrganizationID            string                            `json:"organizationId"`
	StatusCounts              map[gifting.RecipientStatus]int64 `json:"statusCounts"`
	TotalRecipientsInCampaign int64                             `json:"totalRecipientsInCampaign"`
	Filters                   map[string]any                    `json:"filters"`
	Organization              *gifting.Organization             `json:"organization,omitempty"`
	Campaign                  *wire.Campaign                    `json:"campaign,omitempty"`
	// NextCursor starts the next page ("" on the last page, and in an
	// order no key follows: recipient.Query.Keyed, cursor.go).
	NextCursor string `json:"nextCursor"`
}

// recipientBinding is the cursor binding of rq's list of campaignID's
// recipients: every parameter that decides its items and order (search
// and userId have no cursor).
func recipientBinding(orgID, campaignID string, rq recipient.Query) string {
	statuses := slices.Sorted(slices.Values(statusNames(rq.Statuses)))
	fb := ""
	if rq.Feedback != nil {
		fb = strconv.FormatBool(*rq.Feedback)
	}
	return gifting.Binding(orgID, "recipients", campaignID, rq.SortBy, string(rq.Order), strings.Join(statuses, ","), fb,
		strconv.FormatBool(rq.GroupByStatus))
}

// campaignRecipients serves GET /campaigns/{campaignId}/recipients with every
// query parameter of the original interface (docs/api.md).
func (s *Server) campaignRecipients(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	rq := recipient.Query{
		Page:     q.page(12),
		Search:   q.search(maxSearch),
		Statuses: recipientStatuses(q, gifting.RecipientStatuses),
		UserID:   q.filter("userId"),
		SortBy:   q.enum("sortBy", "createdAt", recipient.Sorts...),
		Order:    q.sortOrder(gifting.Desc),
		Feedback: q.boolean("feedback"),
		WithOrg:  true,
	}
	group := q.boolean("groupBy")
	rq.GroupByStatus = group != nil && *group
	q.cursorPage(&rq.Page, recipientBinding(principal(r.Context()).OrgID, r.PathValue("campaignId"), rq), rq.Keyed())
	if err := q.err(); err != nil {
		return err
	}
	filters := map[string]any{
		"status": statusNames(rq.Statuses), "search": rq.Search, "userId": rq.UserID, "sortBy": rq.SortBy,
		"sortOrder": rq.Order, "groupBy": rq.GroupByStatus, "feedback": rq.Feedback,
	}
	return s.writeRecipients(w, r, rq, filters, true)
}

// guideRecipients serves the guide's GET /{campaignId}/recipients: status
// (comma-separated), page and limit.
func (s *Server) guideRecipients(w http.ResponseWriter, r *http.Request) error {
	return s.simpleRecipients(w, r, 12, gifting.RecipientStatuses)
}

// expressSendRecipients serves the express-send list: page, limit (default 10)
// and status among the original interface's seven filter values and pending,
// the state every recipient starts in: refusing it hid new recipients.
func (s *Server) expressSendRecipients(w http.ResponseWriter, r *http.Request) error {
	return s.simpleRecipients(w, r, 10, gifting.RecipientStatuses)
}

func (s *Server) simpleRecipients(w http.ResponseWriter, r *http.Request, defLimit int, allowed []gifting.RecipientStatus) error {
	q := newQuery(r)
	rq := recipient.Query{Page: q.page(defLimit), Statuses: recipientStatuses(q, allowed), SortBy: "createdAt", Order: gifting.Desc}
	q.cursorPage(&rq.Page, recipientBinding(principal(r.Context()).OrgID, r.PathValue("campaignId"), rq), true)
	if err := q.err(); err != nil {
		return err
	}
	return s.writeRecipients(w, r, rq, map[string]any{"status": statusNames(rq.Statuses)}, false)
}

// recipientStatuses parses status: a comma-separated list of allowed
// states.
func recipientStatuses(q *query, allowed []gifting.RecipientStatus) []gifting.RecipientStatus {
	var out []gifting.RecipientStatus
	for _, s := range q.enums("status", statusNames(allowed)...) {
		out = append(out, gifting.RecipientStatus(s))
	}
	return out
}

// writeRecipients reads the page and writes the list. Counts come from the
// campaign's counters, never from reading its recipients.
func (s *Server) writeRecipients(w http.ResponseWriter, r *http.Request, rq recipient.Query, filters map[string]any, full bool) error {
	orgID := principal(r.Context()).OrgID
	campaignID := r.PathValue("campaignId")
	page, err := s.campaigns.Recipients(r.Context(), orgID, campaignID, rq)
	if err != nil {
		return err
	}
	c := page.Campaign
	counts := gifting.NewStatusCounts()
	for st, n := range c.LiveData.StatusCounts {
		counts[st] = n
	}
	out := recipientList{
		Recipients: wire.RecipientsOf(page.Recipients), Pagination: cursorPagination(rq.Page, page.Total),
		NextCursor: nextCursor(rq.Page, recipientBinding(orgID, campaignID, rq)),
		CampaignID: c.CampaignID, OrganizationID: orgID, StatusCounts: counts,
		TotalRecipientsInCampaign: c.TotalRecipients, Filters: filters,
	}
	if rq.GroupByStatus {
		out.Recipients = groupByStatus(page.Recipients, rq.Statuses)
	}
	if full {
		wc := wire.CampaignOf(c)
		out.Organization, out.Campaign = organizationSummary(page.Org), &wc
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// organizationSummary is the recipient list's organization object: the
// original interface's fields only, never what the service keeps beside
// them (rate limits, branding).
func organizationSummary(o gifting.Organization) *gifting.Organization {
	return &gifting.Organization{OrgID: o.OrgID, Domain: o.Domain, DisplayName: o.DisplayName, OrgName: o.OrgName,
		Budget: o.Budget, Products: o.Products, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// groupByStatus maps every status (of the filter, or all) to the
// recipients in it, [] for none, in page order.
func groupByStatus(rs []recipient.Recipient, statuses []gifting.RecipientStatus) map[gifting.RecipientStatus][]wire.Recipient {
	if len(statuses) == 0 {
		statuses = gifting.RecipientStatuses
	}
	groups := make(map[gifting.RecipientStatus][]wire.Recipient, len(statuses))
	for _, st := range statuses {
		groups[st] = []wire.Recipient{}
	}
	for _, rc := range rs {
		groups[rc.Status] = append(groups[rc.Status], wire.RecipientOf(rc))
	}
	return groups
}
