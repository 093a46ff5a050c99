// Package pages is the HTML adapter of the recipient's pages: the landing
// page (/gift/{pageId}), the claim page (/claim/{pageId}) and the
// unsubscribe page (/unsubscribe/{token}), public and server-rendered, where the page id in the URL is the only credential.
// It decodes form posts, calls the recipient page use cases (Service) and
// renders their answers; it never reads storage itself.
package pages

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/httplog"
	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/lambdafn"
	"github.com/giftcampaign/service/shared/recipient"
)

// Service is what the pages need: the recipient page use cases
// (service.RecipientPages). Errors carry gifting codes: NOT_FOUND, GONE,
// CONFLICT, VALIDATION_FAILED; anything else is internal.
type Service interface {
	Landing(ctx context.Context, pageID string) (recipient.Page, error)
	ClaimForm(ctx context.Context, pageID string) (recipient.Page, error)
	Claim(ctx context.Context, pageID string, in recipient.ClaimInput) (recipient.Page, error)
	Acknowledge(ctx context.Context, pageID string) error
	Feedback(ctx context.Context, pageID, rating, text string) error
	Decline(ctx context.Context, pageID string) (recipient.Page, error)
	Meeting(ctx context.Context, pageID string) (string, error)
	UnsubscribeForm(ctx context.Context, token string) (recipient.Page, error)
	Unsubscribe(ctx context.Context, token string) (recipient.Page, error)
}

// MaxBody is the largest form body a page accepts (413 beyond it).
const MaxBody = 16 << 10

//go:embed assets/style.css
var css string

//go:embed assets/pages.html
var pagesHTML string

// giftImages are the demo catalog's pictures (infra/seed/catalog.json
// names them /assets/gifts/<name>.png): small flat PNGs, so a new
// stack's pages and emails show its gifts without any image host.
//
//go:embed assets/gifts/*.png
var giftImages embed.FS

var (
	tmpl = template.Must(template.New("pages").Funcs(template.FuncMap{"t": i18n.Lang{}.T}).Parse(pagesHTML))
	// csp allows no script at all, the embedded style sheet by its hash,
	// gift images from https hosts only (an http one could be swapped in
	// transit: secureImage asks for it over https), and forms posting only
	// to the pages themselves.
	csp = cspWith("")
)

// cspWith is the pages' Content-Security-Policy, allowing besides the
// style sheet the style element brand (none when ""). Images load from
// https hosts and from the pages' own host, which serves the demo
// catalog's images (/assets/gifts/…).
func cspWith(brand string) string {
	styles := "'sha256-" + hashOf(css) + "'"
	if brand != "" {
		styles += " 'sha256-" + hashOf(brand) + "'"
	}
	return "default-src 'none'; style-src " + styles + "; img-src 'self' https:; " +
		"form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

// hsts keeps browsers on https for the pages' host for two years once
// they have seen it over https (over http, as `make run` serves them,
// browsers ignore it): a claim form carries a home address.
const hsts = "max-age=63072000; includeSubDomains"

// retryAfter is the Retry-After of a 503 page, in seconds: the store has
// already retried with backoff, so the recipient's browser should leave
// it a moment.
const retryAfter = "5"

// statusClientClosed is the request log's status of a request whose
// client went away before the answer (nginx's 499): nobody receives an
// answer, and the service did nothing wrong.
const statusClientClosed = 499

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// routes are the page routes, as template.yaml declares them.
var routes = []string{
	"GET /gift/{pageId}",
	"POST /gift/{pageId}/acknowledge",
	"POST /gift/{pageId}/feedback",
	"GET /claim/{pageId}",
	"POST /claim/{pageId}",
	"GET /unsubscribe/{token}",
	"POST /unsubscribe/{token}",
	"POST /gift/{pageId}/decline",
	"GET /assets/gifts/{name}",
	"GET /gift/{pageId}/meeting",
}

// Routes returns the "METHOD /path" patterns the pages serve.
func Routes() []string { return append([]string(nil), routes...) }

// Handler serves the recipient pages.
type Handler struct {
	svc Service
	log *slog.Logger
	mux *http.ServeMux
}

// New returns the pages handler over svc; log receives one line per
// request (method, route, status; never the page id, which is a
// credential) and internal errors. A nil log means slog.Default().
func New(svc Service, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.Default()
	}
	h := &Handler{svc: svc, log: log, mux: http.NewServeMux()}
	handlers := []http.HandlerFunc{h.landing, h.acknowledge, h.feedback, h.claimForm, h.claim, h.unsubscribeForm, h.unsubscribe, h.decline, h.giftImage, h.meeting}
	for i, pattern := range routes {
		h.mux.Handle(pattern, handlers[i])
	}
	return h
}

// ServeHTTP sets the headers every page needs and routes the request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	hd := w.Header()
	hd.Set("Content-Security-Policy", csp)
	hd.Set("Strict-Transport-Security", hsts)
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Robots-Tag", "noindex, nofollow")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	rec := &httplog.StatusRecorder{ResponseWriter: w}
	defer func() {
		if v := recover(); v != nil {
			h.log.ErrorContext(r.Context(), "page panic", slog.Any("panic", v))
			h.problem(rec, r, http.StatusInternalServerError, nil)
		}
		h.log.InfoContext(r.Context(), "page", slog.String("method", r.Method), slog.String("route", routeOf(r)),
			slog.Int("status", rec.Status), slog.Duration("duration", time.Since(start)))
	}()
	if _, pattern := h.mux.Handler(r); pattern == "" {
		h.problem(rec, r, http.StatusNotFound, nil)
		return
	}
	h.mux.ServeHTTP(rec, r.WithContext(lambdafn.With(r.Context(), lambdafn.Pages)))
}

// routeOf is the route of r without its page id.
func routeOf(r *http.Request) string {
	if r.Pattern != "" {
		return r.Pattern
	}
	return r.Method + " (no route)"
}

func (h *Handler) landing(w http.ResponseWriter, r *http.Request) {
	p, err := h.svc.Landing(r.Context(), r.PathValue("pageId"))
	if err != nil {
		h.fail(w, r, p, err)
		return
	}
	l := h.lang(r, p)
	v := h.landingView(p, l)
	switch r.URL.Query().Get("done") {
	case "claimed":
		v.Notice = l.T("Thank you! Your address is confirmed and your gift will be on its way soon.")
		if v.Code != nil {
			v.Notice = l.T("Thank you! Your gift is ready: its code is below, and on this page whenever you come back.")
		}
	case "feedback":
		v.FeedbackGiven = true
	}
	h.render(w, r, http.StatusOK, v)
}

func (h *Handler) acknowledge(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r) {
		return
	}
	id := r.PathValue("pageId")
	if err := h.svc.Acknowledge(r.Context(), id); err != nil {
		h.fail(w, r, recipient.Page{}, err)
		return
	}
	http.Redirect(w, r, "/gift/"+id, http.StatusSeeOther)
}

func (h *Handler) feedback(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r) {
		return
	}
	id := r.PathValue("pageId")
	rating, text := r.PostForm.Get("rating"), strings.TrimSpace(r.PostForm.Get("message"))
	err := h.svc.Feedback(r.Context(), id, rating, text)
	if gifting.ErrorCode(err) == gifting.CodeValidation {
		p, perr := h.svc.Landing(r.Context(), id)
		if perr != nil {
			h.fail(w, r, p, perr)
			return
		}
		l := h.lang(r, p)
		v := h.landingView(p, l)
		v.Errors, v.Rating, v.FeedbackText = fieldErrors(l, err, map[string]string{"message.text": "message"}), rating, text
		v.Alert = l.T("Please check the feedback form.")
		h.render(w, r, http.StatusBadRequest, v)
		return
	}
	if err != nil {
		h.fail(w, r, recipient.Page{}, err)
		return
	}
	http.Redirect(w, r, "/gift/"+id+"?done=feedback", http.StatusSeeOther)
}

// decline is the landing page's "No thanks" button: a form post like
// the others (the page id in the path is the credential; the pages' CSP
// lets forms post only to the pages themselves), then the landing page's
// end state. A second post changes nothing.
func (h *Handler) decline(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r) {
		return
	}
	id := r.PathValue("pageId")
	if p, err := h.svc.Decline(r.Context(), id); err != nil {
		h.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, "/gift/"+id, http.StatusSeeOther)
}

// meeting is the landing page's meeting link: it records the first click
// and sends the recipient on with a 303 to the link's stored URL, and
// nowhere else (no part of the request names the target).
func (h *Handler) meeting(w http.ResponseWriter, r *http.Request) {
	target, err := h.svc.Meeting(r.Context(), r.PathValue("pageId"))
	if err != nil {
		h.fail(w, r, recipient.Page{}, err)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func (h *Handler) claimForm(w http.ResponseWriter, r *http.Request) {
	p, err := h.svc.ClaimForm(r.Context(), r.PathValue("pageId"))
	if gifting.ErrorCode(err) == gifting.CodeConflict && (p.Recipient.Claimed() || p.Recipient.Status == gifting.RecipientDeclined || p.MeetingDue()) {
		// The claim is done: the landing page follows the gift (and takes
		// the feedback the later emails' claim page links ask for). Or a
		// meeting comes first: the landing page says so and links it.
		http.Redirect(w, r, "/gift/"+p.Recipient.LandingPageID, http.StatusSeeOther)
		return
	}
	if err != nil {
		h.fail(w, r, p, err)
		return
	}
	h.render(w, r, http.StatusOK, h.claimView(p, recipient.ClaimInput{}, nil, h.lang(r, p)))
}

func (h *Handler) claim(w http.ResponseWriter, r *http.Request) {
	if !h.readForm(w, r) {
		return
	}
	f := r.PostForm
	in := recipient.ClaimInput{GiftID: f.Get("giftId"), VariantID: f.Get("variantId"), ShippingAddress: recipient.ShippingAddress{
		Line1: f.Get("line1"), Line2: f.Get("line2"), City: f.Get("city"), State: f.Get("state"),
		Zip: f.Get("zip"), Country: f.Get("country"), PhoneNumber: f.Get("phoneNumber"),
	}}
	p, err := h.svc.Claim(r.Context(), r.PathValue("pageId"), in)
	var de *gifting.Error
	if errors.As(err, &de) && len(de.Details) > 0 && (de.Code == gifting.CodeValidation || de.Code == gifting.CodeConflict) {
		// The form again, with each problem beside its field and the
		// values as entered.
		status := http.StatusBadRequest
		if de.Code == gifting.CodeConflict {
			status = http.StatusConflict
		}
		h.render(w, r, status, h.claimView(p, in, de, h.lang(r, p)))
		return
	}
	if err != nil {
		h.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, "/gift/"+p.Recipient.LandingPageID+"?done=claimed", http.StatusSeeOther)
}

func (h *Handler) unsubscribeForm(w http.ResponseWriter, r *http.Request) {
	p, err := h.svc.UnsubscribeForm(r.Context(), r.PathValue("token"))
	if err != nil {
		h.fail(w, r, p, err)
		return
	}
	h.render(w, r, http.StatusOK, unsubscribeView(p, false, h.lang(r, p)))
}

// unsubscribe serves both the page's button and a mail client's RFC 8058
// one-click POST (body List-Unsubscribe=One-Click, which carries nothing
// to check): the body is bounded and otherwise ignored, and the answer is
// the done page itself, not a redirect.
func (h *Handler) unsubscribe(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, http.MaxBytesReader(w, r.Body, MaxBody)); err != nil {
		h.problem(w, r, http.StatusRequestEntityTooLarge, nil)
		return
	}
	p, err := h.svc.Unsubscribe(r.Context(), r.PathValue("token"))
	if err != nil {
		h.fail(w, r, p, err)
		return
	}
	h.render(w, r, http.StatusOK, unsubscribeView(p, true, h.lang(r, p)))
}

// readForm parses a form post of at most MaxBody bytes; on failure it
// writes the error page and returns false.
func (h *Handler) readForm(w http.ResponseWriter, r *http.Request) bool {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "application/x-www-form-urlencoded" {
		h.problem(w, r, http.StatusUnsupportedMediaType, nil)
		return false
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.problem(w, r, http.StatusRequestEntityTooLarge, nil)
		} else {
			h.problem(w, r, http.StatusBadRequest, nil)
		}
		return false
	}
	return true
}

// fail writes the page of a use case's error. p, when set, is the page the
// error is about (a second claim leads to its landing page). A storage
// that cannot serve now is a 503 with Retry-After; a client that went away
// before the answer is a quiet line, not an internal error.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, p recipient.Page, err error) {
	if errors.Is(r.Context().Err(), context.Canceled) {
		h.log.DebugContext(r.Context(), "page: the client went away before the answer", slog.String("route", routeOf(r)))
		w.WriteHeader(statusClientClosed)
		return
	}
	switch gifting.ErrorCode(err) {
	case gifting.CodeUnavailable:
		h.log.WarnContext(r.Context(), "page: storage unavailable", slog.String("route", routeOf(r)), slog.String("error", err.Error()))
		w.Header().Set("Retry-After", retryAfter)
		h.problem(w, r, http.StatusServiceUnavailable, nil)
	case gifting.CodeNotFound:
		h.problem(w, r, http.StatusNotFound, nil)
	case gifting.CodeGone:
		if p.Recipient.Status == gifting.RecipientExpired && !p.Erased {
			h.problem(w, r, http.StatusGone, &p, gifting.ErrorMessage(err))
			return
		}
		h.problem(w, r, http.StatusGone, nil)
	case gifting.CodeConflict:
		h.problem(w, r, http.StatusConflict, &p, gifting.ErrorMessage(err))
	case gifting.CodeValidation:
		h.problem(w, r, http.StatusBadRequest, nil)
	default:
		h.log.ErrorContext(r.Context(), "page failed", slog.String("route", routeOf(r)), slog.String("error", err.Error()))
		h.problem(w, r, http.StatusInternalServerError, nil)
	}
}
