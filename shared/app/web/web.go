// Package web wires the HTTP adapter (shared/httpapi) onto the Core of
// shared/app: the Lambda functions of the resource groups and the local
// server build their handlers through it.
package web

import (
	"context"
	"net/http"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
)

// The store implements what the handlers read and write directly.
var _ httpapi.Store = (*dynamo.Store)(nil)

// An Option adds an optional part to a function's Core or server; its main
// names the parts its routes use, and its binary links only those.
type Option func(*parts)

type parts struct {
	core []app.Option
	docs httpapi.Docs
}

// Core adds the Core's optional adapters (app.WithQueue, app.WithMailer).
func Core(opts ...app.Option) Option {
	return func(p *parts) { p.core = append(p.core, opts...) }
}

// Docs has the server serve the API document d (shared/apidocs).
func Docs(d httpapi.Docs) Option {
	return func(p *parts) { p.docs = d }
}

// NewServer returns the HTTP server over c, serving the API document docs
// (nil: none).
func NewServer(c *app.Core, docs httpapi.Docs) *httpapi.Server {
	return httpapi.NewServer(c.Store, c.Service, httpapi.Config{Logger: c.Log, Docs: docs})
}

// Handler builds the handler of one group from the environment, with the
// optional parts opts name; a Lambda function's main calls it.
func Handler(ctx context.Context, g httpapi.Group, opts ...Option) (http.Handler, error) {
	var p parts
	for _, o := range opts {
		o(&p)
	}
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	c, err := app.New(ctx, cfg, p.core...)
	if err != nil {
		return nil, err
	}
	return NewServer(c, p.docs).Handler(g), nil
}
