package httpapi

import (
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/metrics"
)

// limit counts an authenticated request to a rate-limited route against
// its organization's budget (dynamo.Store.CountRequest: shared by every
// Lambda instance, a write per block of requests each process leases) and
// sets the IETF RateLimit-Policy and RateLimit headers; RateLimit's r counts
// the requests other processes have leased as spent. Over the budget it
// sets Retry-After and returns RATE_LIMITED.
// When the counter cannot be written the request goes through: a counter
// outage must not take the API down with it.
func (s *Server) limit(w http.ResponseWriter, r *http.Request, class gifting.RateClass) error {
	ctx := r.Context()
	orgID := principal(ctx).OrgID
	org, err := s.orgProfile(r, orgID)
	if err != nil {
		loggerFrom(ctx).WarnContext(ctx, "rate limit not checked", slog.String("error", err.Error()))
		return nil
	}
	limit := org.RateLimit(class)
	used, err := s.access.CountRequest(ctx, orgID, class, limit)
	if err != nil {
		loggerFrom(ctx).WarnContext(ctx, "rate limit not checked", slog.String("error", err.Error()))
		return nil
	}
	reset := int64(math.Ceil(used.Reset.Sub(s.store.Now()).Seconds()))
	remaining := max(int64(limit)-used.Count, 0)
	h := w.Header()
	h.Set("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", class, limit, int(gifting.RateWindow.Seconds())))
	h.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", class, remaining, reset))
	if used.Count <= int64(limit) {
		return nil
	}
	h.Set("Retry-After", strconv.FormatInt(reset, 10))
	metrics.Count(orgID, map[string]int64{metrics.RateLimited: 1})
	return gifting.Errorf(gifting.CodeRateLimited,
		"this organization may make %d %s requests a minute; retry after %d seconds", limit, class, reset)
}

// orgProfile returns the organization's profile, cached as long as a
// resolved API key (Config.KeyCacheTTL): a changed limit applies within it.
func (s *Server) orgProfile(r *http.Request, orgID string) (gifting.Organization, error) {
	if s.orgs != nil {
		if org, ok := s.orgs.Get(orgID); ok {
			return org, nil
		}
	}
	org, err := s.access.Org(r.Context(), orgID)
	if err != nil {
		return org, err
	}
	if s.orgs != nil {
		s.orgs.Add(orgID, org)
	}
	return org, nil
}
