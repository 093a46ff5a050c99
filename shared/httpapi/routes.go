package httpapi

import (
	"net/http"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// route is one endpoint: a ServeMux pattern and its handler. Public routes
// need no API key.
type route struct {
	pattern string
	handle  func(w http.ResponseWriter, r *http.Request) error
	public  bool
	// rate is the per-organization budget an expensive route draws on
	// (Server.limit); the zero class: only the HTTP API's default route
	// throttling (template.yaml) limits it.
	rate gifting.RateClass
	// scope is what a key must hold to call the route ("": read for a GET,
	// write for the others; routeScope).
	scope gifting.Scope
	// operator routes are the operator API's: no API key, but the
	// operator's authentication (operatorAuth), and no scope.
	operator bool
}

// routeScope is the scope a key must hold to call rt: its own, else read
// for a GET and write for any other method.
func routeScope(rt route) gifting.Scope {
	switch {
	case rt.scope != "":
		return rt.scope
	case strings.HasPrefix(rt.pattern, "GET "):
		return gifting.ScopeRead
	}
	return gifting.ScopeWrite
}

// RouteScopes returns the scope each "METHOD /path" of g needs (public
// routes need none and are left out).
func RouteScopes(g Group) map[string]gifting.Scope {
	out := map[string]gifting.Scope{}
	for _, rt := range (&Server{}).routes(g) {
		if !rt.public && !rt.operator {
			out[rt.pattern] = routeScope(rt)
		}
	}
	return out
}

// routes returns the endpoints of a group (none for the zero Group).
func (s *Server) routes(g Group) []route {
	if g.routes == nil {
		return nil
	}
	return g.routes(s)
}

// Routes returns the "METHOD /path" patterns a group serves, as template.yaml
// must declare them.
func Routes(g Group) []string {
	var out []string
	for _, rt := range (&Server{}).routes(g) {
		out = append(out, rt.pattern)
	}
	return out
}
