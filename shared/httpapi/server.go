// Package httpapi is the HTTP adapter: one http.Handler per resource group,
// built the same way for the Lambda functions, the local server and the
// tests. Handlers read the organization only from the request context, where
// the authentication middleware put it.
package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/audience"
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/fulfilment"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httplog"
	"github.com/giftcampaign/service/shared/lambdafn"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/sandbox"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/suppression"
	"github.com/giftcampaign/service/shared/wallet"
	"github.com/giftcampaign/service/shared/webhook"
)

// A Group is a resource group: one Lambda function serves each. A group
// carries its own routes, so a function's binary links its group's handlers
// and what they call, not every group's: a switch over all groups would link
// them all (and the store methods and use cases behind them) into each.
type Group struct {
	name   string
	routes func(*Server) []route
}

// String returns the group's name, e.g. "catalog": its function is
// functions/<name> and <Name>Function in template.yaml.
func (g Group) String() string { return g.name }

// The resource groups of the service.
var (
	Catalog    = Group{"catalog", (*Server).catalogRoutes}
	Contacts   = Group{"contacts", (*Server).contactsRoutes}
	Campaigns  = Group{"campaigns", (*Server).campaignRoutes}
	Recipients = Group{"recipients", (*Server).recipientRoutes}
	Audiences  = Group{"audiences", (*Server).audienceRoutes}
	Events     = Group{"events", (*Server).eventRoutes}
	// Webhooks serves the webhook endpoints and the change feed.
	Webhooks = Group{"webhooks", (*Server).webhookRoutes}
)

// Groups lists every group. Its elements are written out rather than
// copied from the variables above: the compiler lays a literal out as data,
// which only a binary that uses Groups links, but copies variables in the
// package's init, which every binary runs, and that would link every
// group's handlers into each function again.
var Groups = []Group{
	{"catalog", (*Server).catalogRoutes},
	{"contacts", (*Server).contactsRoutes},
	{"campaigns", (*Server).campaignRoutes},
	{"recipients", (*Server).recipientRoutes},
	{"audiences", (*Server).audienceRoutes},
	{"events", (*Server).eventRoutes},
	{"webhooks", (*Server).webhookRoutes},
}

// Config holds what the handlers need besides the store and the use cases.
type Config struct {
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// KeyCacheTTL is how long a resolved API key is trusted without a read,
	// and how long a key that resolved to nothing is refused without one: a
	// revoked key stops working, and a key that was unknown when tried
	// starts working, within it. Zero means 30 seconds; negative turns both
	// caches off.
	KeyCacheTTL time.Duration
	// OperatorToken, when set, is the token the operator API's routes
	// accept in x-operator-token (the local runner's); unset, they accept
	// only requests API Gateway's AWS_IAM authorizer let through.
	OperatorToken string
	// Docs serves GET /api/campaigns/openapi.json and /api/campaigns/docs
	// (shared/apidocs); nil answers them 404.
	Docs Docs
}

// Server holds the dependencies of the handlers.
type Server struct {
	store Store
	svc   *service.Service
	// The slices' use cases, over store.
	wallets *wallet.App
	catalog *catalog.App
	// campaigns is built by the service, with its job queue and
	// email code.
	campaigns *campaign.App
	events    *event.App
	// access resolves keys and counts requests (the access slice).
	access *access.App
	// recipients is the recipient slice's use cases (svc.Recipients).
	recipients *recipient.App
	// contacts is built by the service, with its job queue (over store
	// alone when there is no service).
	contacts *contact.App
	cfg      Config
	log      *slog.Logger
	keys     *expirable.LRU[string, gifting.Principal]
	// unknownKeys remembers the hashes of keys that resolved to nothing
	// (unknown or revoked), so repeating one costs no read.
	unknownKeys *expirable.LRU[string, struct{}]
	orgs        *expirable.LRU[string, gifting.Organization] // profiles, for rate limits (ratelimit.go)

	// suppressions is the suppression list's use cases, over store.
	suppressions *suppression.App
	// webhooks is the webhook slice's use cases (svc.Webhooks).
	webhooks *webhook.App
	// audiences is the audience slice's use cases (svc.Audiences).
	audiences *audience.App
	// easypost is the EasyPost integration's use cases (svc.EasyPost).
	easypost *fulfilment.EasyPost
	// sandbox is the sandbox's own use cases (reset, captured emails).
	sandbox *sandbox.App
}

// keyCacheSize bounds each key cache: 10,000 hashes are about 2 MB, and a
// flood of distinct garbage keys only evicts older entries.
const keyCacheSize = 10_000

// NewServer returns a Server whose handlers read and write store directly,
// run the use cases with rules through svc, and those of the slices through
// their application layers, built here over store (wallet.NewApp,
// catalog.NewApp, event.NewApp) or with the service (Service.Webhooks:
// its sealer and sender are the service's; Service.Audiences: its job
// queue and contact lists are; Service.Contacts: its job queue is).
func NewServer(store Store, svc *service.Service, cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.KeyCacheTTL == 0 {
		cfg.KeyCacheTTL = 30 * time.Second
	}
	s := &Server{store: store, svc: svc, cfg: cfg, log: cfg.Logger,
		wallets: wallet.NewApp(store), catalog: catalog.NewApp(store), events: event.NewApp(store), access: access.NewApp(store)}
	s.contacts = contact.NewApp(store, nil)
	s.suppressions = suppression.NewApp(store)
	if svc != nil {
		s.webhooks, s.campaigns, s.recipients, s.audiences = svc.Webhooks(), svc.Campaigns(), svc.Recipients(), svc.Audiences()
		s.contacts, s.easypost = svc.Contacts(), svc.EasyPost()
	}
	s.sandbox = sandbox.NewApp(store, s.wallets, s.recipients)
	if cfg.KeyCacheTTL > 0 {
		s.keys = expirable.NewLRU[string, gifting.Principal](keyCacheSize, nil, cfg.KeyCacheTTL)
		s.unknownKeys = expirable.NewLRU[string, struct{}](keyCacheSize, nil, cfg.KeyCacheTTL)
		s.orgs = expirable.NewLRU[string, gifting.Organization](keyCacheSize, nil, cfg.KeyCacheTTL)
	}
	return s
}

// Handler returns the http.Handler serving the given groups. A Lambda
// function serves one group; the local server serves them all, choosing
// between overlapping patterns of different groups as API Gateway does.
func (s *Server) Handler(groups ...Group) http.Handler {
	var muxes []*http.ServeMux
	var names []string // the function of each mux's group
	for _, g := range groups {
		var own []*http.ServeMux
		for _, rt := range s.routes(g) {
			own = register(own, rt.pattern, s.endpoint(rt))
		}
		for _, mux := range own {
			// A mux that has no route for a request answers with noRoute:
			// without it, ServeMux works out which methods the path has
			// (for its own 405) on every mux that does not serve the
			// request, which was most of the routing's time over several
			// groups.
			mux.Handle(noRoute, http.NotFoundHandler())
			muxes, names = append(muxes, mux), append(names, g.name)
		}
	}
	return s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var best *http.ServeMux
		bestPattern, function := "", ""
		for i, mux := range muxes {
			_, pattern := mux.Handler(r)
			if pattern != noRoute && (best == nil || MoreSpecific(pattern, bestPattern)) {
				best, bestPattern, function = mux, pattern, names[i]
			}
		}
		if best == nil {
			if allow := allowedMethods(muxes, r); len(allow) > 0 {
				w.Header().Set("Allow", strings.Join(allow, ", "))
				writeError(w, r, gifting.Errorf(gifting.CodeMethodNotAllowed, "%s is not allowed on %s; use %s",
					gifting.Clip(r.Method, 16), loggedPath(r.URL.Path), strings.Join(allow, ", ")))
				return
			}
			writeError(w, r, gifting.Errorf(gifting.CodeNotFound, "no route for %s %s", gifting.Clip(r.Method, 16), loggedPath(r.URL.Path)))
			return
		}
		// The route's group is the function that serves the request in
		// AWS, whose role its calls need (lambdafn).
		best.ServeHTTP(w, r.WithContext(lambdafn.With(r.Context(), function)))
	}))
}

// register adds pattern to the first of muxes it does not conflict with,
// or to a new one. ServeMux refuses two patterns that overlap with neither
// more specific (GET /api/campaigns/{campaignId}/recipients and GET
// /api/campaigns/orders/{orderId} both match …/orders/recipients), which
// API Gateway serves, and so does Handler across muxes, by its rule
// (MoreSpecific).
func register(muxes []*http.ServeMux, pattern string, h http.Handler) []*http.ServeMux {
	for _, mux := range muxes {
		if tryHandle(mux, pattern, h) {
			return muxes
		}
	}
	mux := http.NewServeMux()
	mux.Handle(pattern, h)
	return append(muxes, mux)
}

// tryHandle registers pattern on mux, false when it conflicts with one
// there (ServeMux panics; a malformed pattern panics again on a new mux).
func tryHandle(mux *http.ServeMux, pattern string, h http.Handler) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	mux.Handle(pattern, h)
	return true
}

// noRoute is the pattern of the fallback of each group's mux: it matches
// every request no route of the group matches. No route is "/".
const noRoute = "/"

// routeMethods are the methods the service's routes use, in the order an
// Allow header lists them.
var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// allowedMethods returns the methods some route of muxes serves on r's
// path, when r's own method has none: a known path asked with the wrong
// method is a 405 naming them, not a 404. Only the routes of the most
// specific matching path count (API Gateway's rule, as in Handler): on
// /api/campaigns/contacts that is GET, not the PATCH of
// /api/campaigns/{campaignId}. GET routes also answer HEAD.
func allowedMethods(muxes []*http.ServeMux, r *http.Request) []string {
	type match struct{ method, path string }
	var found []match
	best := ""
	for _, m := range routeMethods {
		probe := r.Clone(r.Context())
		probe.Method = m
		for _, mux := range muxes {
			if _, pattern := mux.Handler(probe); pattern != noRoute {
				path := patternPath(pattern)
				found = append(found, match{m, path})
				if best == "" || MoreSpecific(path, best) {
					best = path
				}
			}
		}
	}
	var out []string
	for _, f := range found {
		if f.path != best || slices.Contains(out, f.method) {
			continue
		}
		out = append(out, f.method)
		if f.method == http.MethodGet {
			out = append(out, http.MethodHead)
		}
	}
	return out
}

// MoreSpecific reports whether pattern (or path template) a wins over b
// under API Gateway's rule: compared segment by segment, a literal beats a path variable.
func MoreSpecific(a, b string) bool {
	as := strings.Split(patternPath(a), "/")
	bs := strings.Split(patternPath(b), "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		av, bv := strings.HasPrefix(as[i], "{"), strings.HasPrefix(bs[i], "{")
		if av != bv {
			return bv
		}
	}
	return false
}

// pathParams returns the names of a pattern's path variables; every one
// of them is an id.
func pathParams(pattern string) []string {
	var out []string
	for _, seg := range strings.Split(patternPath(pattern), "/") {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			out = append(out, strings.TrimSuffix(strings.Trim(seg, "{}"), "..."))
		}
	}
	return out
}

func patternPath(p string) string {
	if _, path, ok := strings.Cut(p, " "); ok {
		return path
	}
	return p
}

// endpoint wraps a route with authentication, the check of its path ids
// and error writing.
func (s *Server) endpoint(rt route) http.Handler {
	params := pathParams(rt.pattern)
	scope := routeScope(rt)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.operator {
			if err := s.operatorAuth(r); err != nil {
				writeError(w, r, err)
				return
			}
		} else if !rt.public {
			p, err := s.authenticate(r)
			if err != nil {
				writeError(w, r, err)
				return
			}
			r = r.WithContext(withPrincipal(r.Context(), p))
			defer s.countCall(r, p.OrgID)()
			// A key outside its scopes does nothing, not even spend the
			// organization's rate budget.
			if !p.Holds(scope) {
				writeError(w, r, gifting.InsufficientScope(scope))
				return
			}
		}
		for _, name := range params {
			// A value that cannot be an id names nothing: 404 without a
			// read (DynamoDB would refuse a key that long anyway).
			if v := r.PathValue(name); !gifting.ValidID(v) {
				writeError(w, r, gifting.NotFound(name, gifting.Clip(v, 64)))
				return
			}
		}
		// Only a request that could do work spends the organization's
		// budget of an expensive endpoint.
		if !rt.public && !rt.operator && rt.rate != "" {
			if err := s.limit(w, r, rt.rate); err != nil {
				writeError(w, r, err)
				return
			}
		}
		if err := rt.handle(w, r); err != nil {
			writeError(w, r, err)
		}
	})
}

// middleware adds the request id, the headers that keep answers out of
// caches, and the request log, strips headers a
// client could use to spoof the Lambda proxy context, and turns a panic
// into a 500.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		for name := range r.Header {
			if len(name) >= len(proxyHeaderPrefix) && strings.EqualFold(name[:len(proxyHeaderPrefix)], proxyHeaderPrefix) {
				r.Header.Del(name)
			}
		}
		id := requestID(r.Context())
		log := s.log.With(slog.String("requestId", id))
		ctx := context.WithValue(r.Context(), ctxRequestID, id)
		ctx = service.WithLogger(ctx, log)
		// An empty principal the endpoint fills in (withPrincipal), so the
		// request log below, which holds this context, names the caller.
		ctx = context.WithValue(ctx, ctxPrincipal, &gifting.Principal{})
		r = r.WithContext(ctx)
		rec := &httplog.StatusRecorder{ResponseWriter: w}
		rec.Header().Set("X-Request-Id", id)
		// Answers hold one organization's data, and the key that chose
		// the organization is a header no cache keys on: nothing may be
		// stored by a browser, proxy or CDN (the public docs set their own
		// Cache-Control), nor read as anything but its Content-Type.
		rec.Header().Set("Cache-Control", "no-store")
		rec.Header().Set("X-Content-Type-Options", "nosniff")
		defer func() {
			if v := recover(); v != nil {
				writeError(rec, r, fmt.Errorf("panic: %v", v))
			}
			attrs := []any{
				slog.String("method", gifting.Clip(r.Method, 16)),
				slog.String("path", requestLogPath(r.URL.Path)),
				slog.Int("status", rec.Status),
				slog.Duration("duration", time.Since(start)),
			}
			if p, ok := r.Context().Value(ctxPrincipal).(*gifting.Principal); ok && p.OrgID != "" {
				attrs = append(attrs, slog.String("organizationId", p.OrgID))
			}
			log.InfoContext(r.Context(), "request", attrs...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// proxyHeaderPrefix starts the headers in which aws-lambda-go-api-proxy
// passes the Lambda proxy context; a client must not send its own.
const proxyHeaderPrefix = "x-golambdaproxy-"

// loggedPath is a request path as logs and messages may quote it: a
// client must not decide the size of a log line, so each segment is clipped
// to 64 bytes (longer than any id a path of the API holds), past the 16th
// segment the rest counts as one, and the whole is clipped to 320.
func loggedPath(path string) string {
	return clippedPath(path, false)
}

// requestLogPath is the path as the request log keeps it: loggedPath,
// with each segment that holds a character no id or route has (an '@', a
// space, …) replaced by its size. A client that puts an email address or a
// name in a path (GET /api/campaigns/contacts/ada@example.com) must not
// write it into the log; the answer, which goes back to that client only,
// may still quote it.
func requestLogPath(path string) string {
	return clippedPath(path, true)
}

// clippedPath is loggedPath, with segments that are not id characters
// replaced by their size when sized.
func clippedPath(path string, sized bool) string {
	segs := strings.SplitN(path, "/", 16)
	for i, seg := range segs {
		if sized && !gifting.IDCharacters(seg) {
			segs[i] = "…(" + strconv.Itoa(len(seg)) + " bytes)"
			continue
		}
		segs[i] = gifting.Clip(seg, 64)
	}
	return gifting.Clip(strings.Join(segs, "/"), 320)
}

// requestID is API Gateway's request id when running behind it, else a new
// id.
func requestID(ctx context.Context) string {
	if rc, ok := core.GetAPIGatewayV2ContextFromContext(ctx); ok && rc.RequestID != "" {
		return rc.RequestID
	}
	return gifting.NewID()
}

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxPrincipal
)

func withPrincipal(ctx context.Context, p gifting.Principal) context.Context {
	// A pointer, so the request log (which holds the outer context) can
	// still see who called: the middleware fills it in place.
	if holder, ok := ctx.Value(ctxPrincipal).(*gifting.Principal); ok {
		*holder = p
		return ctx
	}
	return context.WithValue(ctx, ctxPrincipal, &p)
}

// principal returns the authenticated caller. Only authenticated routes
// call it, so it is always set there.
func principal(ctx context.Context) gifting.Principal {
	if p, ok := ctx.Value(ctxPrincipal).(*gifting.Principal); ok {
		return *p
	}
	return gifting.Principal{}
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// loggerFrom is the request's logger (service.Logger: the use cases log
// through the same one).
func loggerFrom(ctx context.Context) *slog.Logger { return service.Logger(ctx) }
