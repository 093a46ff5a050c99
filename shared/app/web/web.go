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

// NewServer returns the HTTP server over c.
func NewServer(c *app.Core) *httpapi.Server {
	return httpapi.NewServer(c.Store, c.Service, httpapi.Config{Logger: c.Log})
}

// Handler builds the handler of one group from the environment; a Lambda
// function's main calls it.
func Handler(ctx context.Context, g httpapi.Group) (http.Handler, error) {
	cfg, err := app.ConfigFromEnv()
	if err != nil {
		return nil, err
	}
	c, err := app.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return NewServer(c).Handler(g), nil
}
