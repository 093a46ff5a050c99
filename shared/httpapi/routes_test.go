package httpapi_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/pages"
)

// TestTemplateRoutesMatchHandlers keeps template.yaml and the handlers one
// set: a route only one of them knows is either unreachable when deployed
// or a 404 from API Gateway.
func TestTemplateRoutesMatchHandlers(t *testing.T) {
	t.Parallel()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	declared, err := localstack.TemplateRoutes(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// The operator API's group is its own function too, only created when
	// the stack turns it on (docs/operator.md).
	for _, g := range append(slices.Clone(httpapi.Groups), httpapi.Operator) {
		name := g.String()
		id := strings.ToUpper(name[:1]) + name[1:] + "Function"
		t.Run(name, func(t *testing.T) {
			fromTemplate, ok := declared[id]
			if !ok {
				t.Fatalf("template.yaml has no function %s", id)
			}
			served := httpapi.Routes(g)
			slices.Sort(fromTemplate)
			slices.Sort(served)
			for _, r := range served {
				if !slices.Contains(fromTemplate, r) {
					t.Errorf("%s serves %q, which template.yaml does not route to it", id, r)
				}
			}
			for _, r := range fromTemplate {
				if !slices.Contains(served, r) {
					t.Errorf("template.yaml routes %q to %s, which does not serve it", r, id)
				}
			}
		})
		delete(declared, id)
	}
	// The recipient pages are their own function, outside the API's
	// groups.
	t.Run("pages", func(t *testing.T) {
		fromTemplate, served := declared["PagesFunction"], pages.Routes()
		slices.Sort(fromTemplate)
		slices.Sort(served)
		if !slices.Equal(fromTemplate, served) {
			t.Errorf("template.yaml routes %q to PagesFunction, which serves %q", fromTemplate, served)
		}
	})
	delete(declared, "PagesFunction")
	// The worker runs background jobs from the queue, and the canary's
	// hooks run in deployments (CodeDeploy invokes them): none serves a
	// route.
	for _, id := range []string{"WorkerFunction", "PreTrafficHookFunction", "PostTrafficHookFunction"} {
		if routes := declared[id]; len(routes) != 0 {
			t.Errorf("%s must serve no HTTP route, declares %v", id, routes)
		}
		delete(declared, id)
	}
	for id := range declared {
		t.Errorf("template.yaml declares function %s that belongs to no group", id)
	}
}
