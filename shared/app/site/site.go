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
	"github.com/giftcampaign/service/shared/campaign"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/pages"
	"github.com/giftcampaign/service/shared/service"
)

// New returns the recipient pages (landing and claim) over store.
func New(store *dynamo.Store, log *slog.Logger) http.Handler {
	return pages.New(service.NewRecipientPages(narrow(store)), log)
}

// pageStore is the store as the pages' use cases see it: the methods
// they call, as method values, so that the pages function links only
// those store methods and what they use, not every method of *dynamo.Store.
type pageStore struct {
	recipientPage        func(ctx context.Context, pageID string) (campaign.RecipientPage, error)
	markPageViewed       func(ctx context.Context, orgID, campaignID, recipientID string) error
	claimGift            func(ctx context.Context, orgID, campaignID, recipientID string, in gifting.ClaimInput) (gifting.Recipient, error)
	moveRecipient        func(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (gifting.Recipient, error)
	addRecipientFeedback func(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *gifting.FeedbackMessage) (gifting.Recipient, error)
	stopEmails           func(ctx context.Context, orgID, campaignID, recipientID, kind, failure string) (gifting.Recipient, error)
	suppress             func(ctx context.Context, orgID, email, reason string) error
}

var _ service.PageStore = pageStore{}

func narrow(s *dynamo.Store) pageStore {
	return pageStore{s.RecipientPage, s.MarkPageViewed, s.ClaimGift, s.MoveRecipient, s.AddRecipientFeedback, s.StopEmails, s.Suppress}
}

func (p pageStore) RecipientPage(ctx context.Context, pageID string) (campaign.RecipientPage, error) {
	return p.recipientPage(ctx, pageID)
}

func (p pageStore) MarkPageViewed(ctx context.Context, orgID, campaignID, recipientID string) error {
	return p.markPageViewed(ctx, orgID, campaignID, recipientID)
}

func (p pageStore) ClaimGift(ctx context.Context, orgID, campaignID, recipientID string, in gifting.ClaimInput) (gifting.Recipient, error) {
	return p.claimGift(ctx, orgID, campaignID, recipientID, in)
}

func (p pageStore) MoveRecipient(ctx context.Context, orgID, campaignID, recipientID string, to gifting.RecipientStatus) (gifting.Recipient, error) {
	return p.moveRecipient(ctx, orgID, campaignID, recipientID, to)
}

func (p pageStore) AddRecipientFeedback(ctx context.Context, orgID, campaignID, recipientID, rating string, msg *gifting.FeedbackMessage) (gifting.Recipient, error) {
	return p.addRecipientFeedback(ctx, orgID, campaignID, recipientID, rating, msg)
}

func (p pageStore) StopEmails(ctx context.Context, orgID, campaignID, recipientID, kind, failure string) (gifting.Recipient, error) {
	return p.stopEmails(ctx, orgID, campaignID, recipientID, kind, failure)
}

func (p pageStore) Suppress(ctx context.Context, orgID, email, reason string) error {
	return p.suppress(ctx, orgID, email, reason)
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
	store := dynamo.New(narrowClient(db), cfg.TableName)
	return New(store, app.NewLogger(cfg.LogLevel)), nil
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
