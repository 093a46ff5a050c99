package main

import (
	"testing"

	"github.com/giftcampaign/service/shared/testenv"
)

// TestOperatorAPICommands: the CLI's commands that the operator API serves
// too, through the same use cases: a first admin key (once), suspension
// shown in the list and lifted, rate limits checked and set, the month's
// usage (the opening credits a top-up).
func TestOperatorAPICommands(t *testing.T) {
	t.Setenv("TABLE_NAME", testenv.Table(t))
	admin(t, 0, "create-org", "-id", "initech", "-name", "Initech", "-credits", "300")
	key := admin(t, 0, "first-key", "-org", "initech", "-user", "peter")
	if s, _ := key["apiKey"].(string); len(s) < 20 || field(key, "key", "userId") != "peter" {
		t.Fatalf("first-key printed %v", key)
	}
	admin(t, 1, "first-key", "-org", "initech") // it has an admin key now
	admin(t, 1, "suspend-org", "-org", "nobody")

	admin(t, 0, "suspend-org", "-org", "initech")
	if o := listed(t, "initech"); o == nil || o["suspended"] != true {
		t.Errorf("list-orgs shows %v; want initech suspended", o)
	}
	admin(t, 0, "resume-org", "-org", "initech")
	o := listed(t, "initech")
	if o == nil || o["suspended"] != false || field(o, "usage", "creditsToppedUp") != float64(300) {
		t.Errorf("list-orgs shows %v; want initech resumed, 300 credits topped up this month", o)
	}

	admin(t, 0, "set-rate-limits", "-org", "initech", "-limits", "launch=3,bulk-add=4")
	admin(t, 2, "set-rate-limits", "-org", "initech", "-limits", "launch=0")
	admin(t, 2, "set-rate-limits", "-org", "initech", "-limits", "launch")
	shown := admin(t, 0, "show-org", "-org", "initech")
	if field(shown, "organization", "rateLimits", "launch") != float64(3) || field(shown, "organization", "rateLimits", "bulk-add") != float64(4) {
		t.Errorf("show-org printed %v; want launch 3, bulk-add 4", shown)
	}
	u := admin(t, 0, "usage", "-org", "initech")
	if u["organizationId"] != "initech" || u["creditsToppedUp"] != float64(300) || u["apiCalls"] != float64(0) {
		t.Errorf("usage printed %v", u)
	}
	admin(t, 2, "usage", "-org", "initech", "-month", "2026-13")
}

// listed is organization orgID as list-orgs prints it.
func listed(t *testing.T, orgID string) map[string]any {
	t.Helper()
	items, _ := admin(t, 0, "list-orgs")["items"].([]any)
	for _, it := range items {
		if o, _ := it.(map[string]any); field(o, "organization", "orgId") == orgID {
			return o
		}
	}
	return nil
}
