package main

import (
	"context"
	"fmt"
	"net/http"
)

// Cases of the list, change and delete routes of templates, gifts and
// contact lists (issue 16). Each delete call removes a thing of its own,
// made in prepare.

func prepareListTemplates(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	// A tenant with templates of its own besides the catalog's: the page
	// reads both partitions.
	for i := range 20 {
		if _, err := e.expect(ctx, t, http.StatusCreated, "POST", "/api/campaigns/templates", templateBody(i)); err != nil {
			return nil, err
		}
	}
	return same("GET", "/api/campaigns/templates?page=1&limit=12", nil), nil
}

// templateBody is a tenant's template.
func templateBody(i int) map[string]any {
	return map[string]any{"templateName": fmt.Sprintf("Bench template %d", i), "templateCategory": "outbound",
		"tags": []string{"bench"}, "successRate": 30, "description": "A template of the benchmark"}
}

// createdIDs makes n things with POST path and body(i) and returns the ids
// found at data.<idField>.
func createdIDs(ctx context.Context, e *env, t tenant, n int, path, idField string, body func(int) map[string]any) ([]string, error) {
	ids := make([]string, n)
	for i := range n {
		res, err := e.expect(ctx, t, http.StatusCreated, "POST", path, body(i))
		if err != nil {
			return nil, err
		}
		var out struct {
			Data map[string]any `json:"data"`
		}
		if err := res.decode(&out); err != nil {
			return nil, err
		}
		id, _ := out.Data[idField].(string)
		if id == "" {
			return nil, fmt.Errorf("POST %s: no data.%s", path, idField)
		}
		ids[i] = id
	}
	return ids, nil
}

func preparePatchTemplate(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	ids, err := createdIDs(ctx, e, t, 1, "/api/campaigns/templates", "templateId", templateBody)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/templates/" + ids[0], body: map[string]any{"description": fmt.Sprintf("Revision %d", i)}}
	}, nil
}

func prepareDeleteTemplate(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids, err := createdIDs(ctx, e, t, n, "/api/campaigns/templates", "templateId", templateBody)
	if err != nil {
		return nil, err
	}
	return func(i int) call { return call{method: "DELETE", path: "/api/campaigns/templates/" + ids[i]} }, nil
}

func preparePatchGift(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	ids, err := createdIDs(ctx, e, t, 1, "/api/campaigns/gifts", "giftId", giftBody)
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/gifts/" + ids[0], body: map[string]any{"price": 20 + i%30}}
	}, nil
}

func prepareDeleteGift(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids, err := createdIDs(ctx, e, t, n, "/api/campaigns/gifts", "giftId", giftBody)
	if err != nil {
		return nil, err
	}
	return func(i int) call { return call{method: "DELETE", path: "/api/campaigns/gifts/" + ids[i]} }, nil
}

func preparePatchList(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	listID, err := e.createList(ctx, t, "Rename me")
	if err != nil {
		return nil, err
	}
	return func(i int) call {
		return call{method: "PATCH", path: "/api/campaigns/contact-lists/" + listID, body: map[string]any{"name": fmt.Sprintf("Renamed %d", i)}}
	}, nil
}

// prepareDeleteList deletes lists of 10 members each: the call removes the
// list at once; the memberships go in the background job, not measured.
func prepareDeleteList(ctx context.Context, e *env, t tenant, n int) (func(int) call, error) {
	ids := make([]string, n)
	for i := range n {
		listID, err := e.createList(ctx, t, fmt.Sprintf("Delete me %d", i))
		if err != nil {
			return nil, err
		}
		if _, _, err := e.importContacts(ctx, t, listID, fmt.Sprintf("%s-del%d", t.orgID, i), 0, 10, 1); err != nil {
			return nil, err
		}
		ids[i] = listID
	}
	return func(i int) call { return call{method: "DELETE", path: "/api/campaigns/contact-lists/" + ids[i]} }, nil
}

// prepareListMembers pages through a list of 200 members, page 3 of 12: the
// list item (its count is the total), the member keys up to the page's end
// and one BatchGet of the page's contacts.
func prepareListMembers(ctx context.Context, e *env, t tenant, _ int) (func(int) call, error) {
	listID, err := e.createList(ctx, t, "Members")
	if err != nil {
		return nil, err
	}
	if _, _, err := e.importContacts(ctx, t, listID, t.orgID, 0, 200, 4); err != nil {
		return nil, err
	}
	return same("GET", "/api/campaigns/contact-lists/"+listID+"/contacts?page=3&limit=12", nil), nil
}
