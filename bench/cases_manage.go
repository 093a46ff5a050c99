package main

import (
	"context"
	"fmt"
)

// The lists, edits and deletes of personas, audiences and events (issue
// 16). Lists are measured in their default order over 20 items, so a page
// of 12 is a real page.

func preparePersonaList(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	for range 20 {
		if _, err := e.createPersona(ctx, t); err != nil {
			return nil, err
		}
	}
	return same("GET", "/api/campaigns/icp-personas", nil), nil
}

func prepareEventList(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	for i := range 20 {
		if _, err := e.createdID(ctx, t, "/api/campaigns/events", "id", eventBody(i)); err != nil {
			return nil, err
		}
	}
	return same("GET", "/api/campaigns/events", nil), nil
}

// prepareAudienceList lists the audiences of the contacts fixture (one
// built audience: the page holds it).
var prepareAudienceList = fromContacts("GET", func(contactsFixture) string { return "/api/campaigns/audience-lists" }, nil)

func preparePatchPersona(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	id, err := e.createPersona(ctx, t)
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/icp-personas/" + id,
			body: map[string]any{"persona": map[string]any{"description": fmt.Sprintf("Edit %d", i)}}}
	}, err
}

func preparePatchEvent(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	id, err := e.createdID(ctx, t, "/api/campaigns/events", "id", eventBody(0))
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/events/" + id, body: map[string]any{"description": fmt.Sprintf("Edit %d", i)}}
	}, err
}

func preparePatchAudience(ctx context.Context, e *env, _ tenant, _ int) (func(int) call, error) {
	fx, err := contacts(ctx, e)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/audience-lists/" + fx.audienceID,
			body: map[string]any{"description": fmt.Sprintf("Edit %d", i)}, as: &fx.t}
	}, nil
}

// prepareDeletePersona and prepareDeleteEvent create n items and delete
// one per call.
func prepareDeletePersona(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids := make([]string, n)
	for i := range n {
		var err error
		if ids[i], err = e.createPersona(ctx, t); err != nil {
			return nil, err
		}
	}
	return func(i int) call { return call{method: "DELETE", path: "/api/campaigns/icp-personas/" + ids[i]} }, nil
}

func prepareDeleteEvent(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids := make([]string, n)
	for i := range n {
		var err error
		if ids[i], err = e.createdID(ctx, t, "/api/campaigns/events", "id", eventBody(i)); err != nil {
			return nil, err
		}
	}
	return func(i int) call { return call{method: "DELETE", path: "/api/campaigns/events/" + ids[i]} }, nil
}
