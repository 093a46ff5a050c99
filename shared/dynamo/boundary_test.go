package dynamo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The storage of the slices that have moved (issue 29): storage loads and
// commits, the slice decides. Each slice lists its application layer's
// files (in shared/<slice>) and its storage files here (in shared/dynamo),
// with the functions of those that may turn a cancelled condition into
// the slice's named outcome. A slice that moves adds its entry.
var movedSlices = []struct {
	slice string
	// app are the slice's files that hold its application layer, which
	// storage must never call.
	app []string
	// storage are the slice's files in shared/dynamo.
	storage []string
	// mappers are the functions of storage that read a cancellation's
	// reasons or a failed condition (ConditionalCheckFailed, txn.failed,
	// reasonCode, isConditionFailed) to map them to the slice's outcomes.
	mappers []string
}{
	{
		slice:   "access",
		app:     []string{"app.go"},
		storage: []string{"orgs.go", "apikeys.go", "ratelimit.go"},
		mappers: []string{"CreateOrg", "CreateKey", "TouchKey", "SetRateLimits", "PutBranding"},
	},
	{
		slice:   "wallet",
		app:     []string{"app.go", "apply.go"},
		storage: []string{"wallet.go", "walletlock.go", "topup.go", "ledger.go"},
		mappers: []string{"commitPlan", "walletMoved", "topUpApplied"},
	},
	{
		slice: "webhook",
		app:   []string{"app.go", "deliver.go", "secrets.go", "stream.go"},
		storage: []string{"webhooks.go", "webhook_deliveries.go", "changes.go", "changes_items.go", "changes_feed.go",
			"changes_stream.go", "migrate_webhooks.go"},
		mappers: []string{"CreateEndpoint", "UpdateEndpoint", "putEndpoint", "DeleteEndpoint", "StartDelivery",
			"sealWebhookSecrets"},
	},
	{
		slice:   "catalog",
		app:     []string{"app.go", "app_templates.go"},
		storage: []string{"catalog.go", "catalog_edit.go", "catalog_bridge.go"},
		mappers: []string{"catalogChanged", "refDeleted"},
	},
	{
		slice: "contact",
		app:   []string{"app.go", "app_lists.go", "app_bulk.go"},
		storage: []string{"contacts.go", "contacts_items.go", "contacts_commit.go", "contacts_edit.go", "contacts_page.go",
			"contactlists.go", "contactlists_edit.go", "enrich.go", "contacts_bridge.go"},
		mappers: []string{"contactChanged", "CommitContact", "CommitCounts", "CommitLeave", "CommitListEdit", "Conflicted"},
	},
	{
		slice:   "event",
		app:     []string{"app.go"},
		storage: []string{"events.go"},
		mappers: []string{"eventMoved", "CommitEvent"},
	},
	{
		slice: "campaign",
		app:   []string{"app.go", "app_launch.go", "app_slice.go"},
		storage: []string{"campaigns.go", "campaigns_lifecycle.go", "campaigns_list.go", "campaign_item.go",
			"campaign_bridge.go", "campaign_counters.go", "launch.go", "launch_job.go", "launch_write.go"},
		mappers: []string{"CommitCreate", "CommitEdit", "ScheduledLaunchFailed", "CommitMove", "deleteMoved", "launchRefused",
			"ClaimSlice", "CommitCount", "DropSlice"},
	},
	{
		slice: "recipient",
		app:   []string{"app.go", "app_add.go", "app_claim.go", "app_emails.go", "app_orders.go", "pages.go"},
		storage: []string{"addrecipient.go", "claim.go", "expiry.go", "recipientmoves.go", "emails.go", "emailsets.go",
			"recipients.go", "recipient_record.go", "recipientlist.go", "pages.go", "orders.go", "orders_page.go", "orders_commit.go"},
		mappers: []string{"addCancelled", "claimCancelled", "expiryCancelled", "updateFailed", "RewriteRecord", "MarkPage",
			"orderCancelled"},
	},
	{
		slice: "audience",
		app:   []string{"app.go", "app_audiences.go", "app_build.go", "app_copy.go"},
		storage: []string{"personas.go", "audiences.go", "audiences_build.go", "audience_members.go",
			"audience_copy.go"},
		mappers: []string{"personaChanged", "personaGone", "audienceChanged", "audienceGone", "CommitBuild",
			"notBuilding", "failedMoved", "clearingMoved", "notReady", "copyMoved"},
	},
}

// applicationLayers are the packages storage must not import at all.
var applicationLayers = []string{"shared/service", "shared/httpapi", "shared/app"}

const module = "github.com/giftcampaign/service/"

// TestStorageDecidesNothing: shared/dynamo imports no application layer
// and calls no slice's use cases; no storage file builds a domain error
// (no gifting.Errorf, NotFound, Error or Problems: the text a user reads
// is the slice's), and in a slice's storage only its named mappers read a
// cancellation's reasons.
func TestStorageDecidesNothing(t *testing.T) {
	t.Parallel()
	files := parseDir(t, ".")
	for _, s := range movedSlices {
		uses := exported(t, filepath.Join("..", s.slice), s.app)
		for name, f := range files {
			alias := importName(f, module+"shared/"+s.slice)
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && isPkg(sel.X, alias) && uses[sel.Sel.Name] {
					t.Errorf("%s: calls %s.%s, the %s slice's application layer: storage never calls back up", name, s.slice, sel.Sel.Name, s.slice)
				}
				return true
			})
		}
		for _, name := range s.storage {
			f, ok := files[name]
			if !ok {
				t.Errorf("%s: listed as the %s slice's storage but not in shared/dynamo", name, s.slice)
				continue
			}
			checkStorage(t, name, f, s.mappers)
		}
	}
	// Every storage file, a slice's or not, leaves the text a user reads
	// to the slices.
	for name, f := range files {
		checkNoDomainError(t, name, f)
	}
	for name, f := range files {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, layer := range applicationLayers {
				if path == module+layer || strings.HasPrefix(path, module+layer+"/") {
					t.Errorf("%s imports %s: storage knows no application layer", name, path)
				}
			}
		}
	}
}

// checkStorage fails on a domain error built in f, or a cancellation's
// reasons read outside mappers.
func checkStorage(t *testing.T, name string, f *ast.File, mappers []string) {
	t.Helper()
	gifting := importName(f, module+"shared/gifting")
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if isPkg(n.X, gifting) && slices.Contains(domainErrors, n.Sel.Name) {
					t.Errorf("%s: %s builds a domain error (gifting.%s): the slice says what a user reads", name, fn.Name.Name, n.Sel.Name)
				}
				if n.Sel.Name == "failed" && !slices.Contains(mappers, fn.Name.Name) {
					t.Errorf("%s: %s reads a failed condition (txn.failed) but is not a listed mapper", name, fn.Name.Name)
				}
			case *ast.BasicLit:
				if n.Value == `"ConditionalCheckFailed"` && !slices.Contains(mappers, fn.Name.Name) {
					t.Errorf("%s: %s reads a failed condition but is not a listed mapper", name, fn.Name.Name)
				}
			case *ast.Ident:
				if n.Name == "reasonCode" && !slices.Contains(mappers, fn.Name.Name) {
					t.Errorf("%s: %s reads a cancellation's reasons but is not a listed mapper", name, fn.Name.Name)
				}
				if n.Name == "isConditionFailed" && !slices.Contains(mappers, fn.Name.Name) {
					t.Errorf("%s: %s reads a failed condition (isConditionFailed) but is not a listed mapper", name, fn.Name.Name)
				}
			}
			return true
		})
	}
}

// checkNoDomainError fails on a domain error built anywhere in f.
func checkNoDomainError(t *testing.T, name string, f *ast.File) {
	t.Helper()
	gifting := importName(f, module+"shared/gifting")
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && isPkg(sel.X, gifting) && slices.Contains(domainErrors, sel.Sel.Name) {
			t.Errorf("%s: builds a domain error (gifting.%s): the slice says what a user reads", name, sel.Sel.Name)
		}
		return true
	})
}

// domainErrors are gifting's constructors of what a user reads.
var domainErrors = []string{"Errorf", "NotFound", "Error", "Problems"}

// parseDir parses the non-test Go files of dir, by file name.
func parseDir(t *testing.T, dir string) map[string]*ast.File {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	fset := token.NewFileSet()
	for _, path := range names {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(path)] = f
	}
	return files
}

// exported are the exported functions and types the files names of dir
// declare at top level (methods are reached through them).
func exported(t *testing.T, dir string, names []string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	all := parseDir(t, dir)
	for _, name := range names {
		f, ok := all[name]
		if !ok {
			t.Fatalf("%s: no file %s", dir, name)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					out[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() {
						out[ts.Name.Name] = true
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s %v declare no application layer", dir, names)
	}
	return out
}

// importName is the name f refers to the package path by, "" when f does
// not import it.
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

func isPkg(x ast.Expr, name string) bool {
	id, ok := x.(*ast.Ident)
	return ok && name != "" && id.Name == name
}
