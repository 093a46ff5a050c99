// Package site wires the recipient pages (shared/pages) onto the store: the
// pages function and the local server build them through it. It is apart
// from shared/app so that the pages function links neither the API's HTTP
// adapter nor the job queue, and the API functions never link the pages.
package site

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/service"
)

// The store implements what the recipient pages' use cases need.
var _ service.PageStore = (*dynamo.Store)(nil)

// New returns the recipient pages (landing and claim) over store.
func New(store *dynamo.Store, log *slog.Logger) http.Handler {
	return pages.New(service.NewRecipientPages(store), log)
}

// Handler builds the recipient pages from the environment; the pages
// function's main calls it.
func Handler(ctx context.Context) (http.Handler, error) {
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	store, err := app.NewStore(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return New(store, app.NewLogger(cfg.LogLevel)), nil
}

// With serves the recipient pages beside api on one port, as the HTTP API
// routes them in AWS: the page routes go to pagesHandler, everything else
// to api.
func With(api, pagesHandler http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", api)
	for _, pattern := range pages.Routes() {
		mux.Handle(pattern, pagesHandler)
	}
	return mux
}
