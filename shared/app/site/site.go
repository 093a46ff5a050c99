// Package site wires the recipient pages (shared/pages) onto the store: the
// pages function and the local server build them through it. It is apart
// from shared/app so that the pages function links neither the API's HTTP
// adapter nor the job queue, and the API functions never link the pages.
package site

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/kmssecrets"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/recipient"
)

// New returns the recipient pages (landing and claim) over store: the
// recipient slice's page use cases, with no mailer (the pages send no
// email) and no job queue.
func New(store *dynamo.Store, log *slog.Logger) http.Handler {
	return NewWithCodes(store, log, nil)
}

// NewWithCodes is New with the opener of digital gifts' codes, which the
// landing page of a recipient who claimed one reveals (nil: such a page
// is a 503).
func NewWithCodes(store *dynamo.Store, log *slog.Logger, codes recipient.CodeOpener) http.Handler {
	return pages.New(recipient.NewPages(recipient.NewApp(store, recipient.Config{Codes: codes})), log)
}

// Handler builds the recipient pages from the environment; the pages
// function's main calls it.
func Handler(ctx context.Context) (http.Handler, error) {
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	db, err := app.NewDynamoDB(ctx, cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	// The unsubscribe page suppresses the address: the store keys it
	// with the stack's suppression key, as every function's does.
	var opts []dynamo.Option
	if cfg.KMSKeyID != "" {
		key, err := kmssecrets.NewSuppression(cfg)
		if err != nil {
			return nil, err
		}
		opts = append(opts, dynamo.WithSuppressionKey(key))
	}
	store := dynamo.New(narrowClient(db), cfg.TableName, opts...)
	// The landing page reveals a digital gift's code: the pages open codes
	// (in their own KMS encryption context), and no other secret.
	var codes recipient.CodeOpener
	if cfg.KMSKeyID != "" {
		box, err := kmssecrets.NewCodes(cfg)
		if err != nil {
			return nil, err
		}
		codes = box
	}
	return NewWithCodes(store, app.NewLogger(cfg.LogLevel), codes), nil
}

// With serves the recipient pages beside api on one port, as the HTTP API
// routes them in AWS: every path under a page route's first segment
// (/gift/, /claim/, /unsubscribe/) goes to pagesHandler, everything else
// to api. So a request there that no page route serves (another method, a
// trailing slash or segment) gets the pages' 404 page: in AWS API Gateway
// answers it without a function, and the API's request log, which keeps
// paths, must not receive a page id (a credential).
func With(api, pagesHandler http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", api)
	prefixes := map[string]bool{}
	for _, pattern := range pages.Routes() {
		_, path, _ := strings.Cut(pattern, " ")
		first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		prefixes["/"+first+"/"] = true
	}
	for prefix := range prefixes {
		mux.Handle(prefix, pagesHandler)
	}
	return mux
}
