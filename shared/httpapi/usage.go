package httpapi

import (
	"context"
	"log/slog"
	"net/http"
)

// usageRoutes are the organization's metered usage (read scope).
func (s *Server) usageRoutes() []route {
	return []route{{pattern: "GET /api/campaigns/usage", handle: s.usage}}
}

// usage serves GET /usage?month=YYYY-MM (the current month when absent):
// the organization's counters of that month (the OpenAPI schema Usage).
func (s *Server) usage(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	month, _ := q.typed("month")
	if err := q.err(); err != nil {
		return err
	}
	u, err := s.access.Usage(r.Context(), principal(r.Context()).OrgID, month)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusOK, "usage of "+u.Month, u)
	return nil
}

// countCall counts an authenticated call in its organization's usage of
// the month: one UpdateItem, made while the call is served, and waited
// for (the returned func) before the endpoint returns, so the count costs
// the call no latency of its own and is written before a Lambda instance
// can be frozen. A failed count is logged, never the call's failure:
// metering must not take the API down.
func (s *Server) countCall(r *http.Request, orgID string) (wait func()) {
	ctx := context.WithoutCancel(r.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := s.access.CountCall(ctx, orgID); err != nil {
			loggerFrom(ctx).WarnContext(ctx, "api call not counted", slog.String("error", err.Error()))
		}
	}()
	return func() { <-done }
}
