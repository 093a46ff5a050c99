package localstack

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// runtimeVariables are set by the Lambda runtime itself; a template cannot
// and need not declare them.
var runtimeVariables = []string{"AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}

// templateResources parses template.yaml and returns its Resources mapping:
// logical id → resource node. yaml.Node keeps CloudFormation's tags (!Ref,
// !Sub), which the checks below read.
func templateResources(t *testing.T) map[string]*yaml.Node {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testRoot(t), templateFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("parse template: %v", err)
	}
	resources := mappingValue(doc.Content[0], "Resources")
	if resources == nil {
		t.Fatal("template has no Resources")
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		out[resources.Content[i].Value] = resources.Content[i+1]
	}
	return out
}

// ofType returns the logical ids of the resources of a CloudFormation type, sorted.
func ofType(resources map[string]*yaml.Node, typ string) []string {
	var ids []string
	for id, res := range resources {
		if n := mappingValue(res, "Type"); n != nil && n.Value == typ {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// path follows mapping keys from n; nil when one is missing.
func path(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil {
			return nil
		}
		n = mappingValue(n, k)
	}
	return n
}

// isRef reports whether n is "!Ref target".
func isRef(n *yaml.Node, target string) bool {
	return n != nil && n.Tag == "!Ref" && n.Value == target
}

// TestTemplateFunctionsHaveLogGroupsWithRetention: every function writes to
// a log group of the stack, named in its LoggingConfig, with the stack's
// retention. The group is the function's own (no two share one), and it has
// no fixed name: a rolled-back create deletes it and leaves nothing for the
// next create to collide with.
func TestTemplateFunctionsHaveLogGroupsWithRetention(t *testing.T) {
	resources := templateResources(t)
	functions := ofType(resources, "AWS::Serverless::Function")
	if len(functions) == 0 {
		t.Fatal("no functions in the template")
	}
	owner := map[string]string{}
	for _, fn := range functions {
		t.Run(fn, func(t *testing.T) {
			ref := path(resources[fn], "Properties", "LoggingConfig", "LogGroup")
			if ref == nil || ref.Tag != "!Ref" {
				t.Fatalf("no LoggingConfig.LogGroup: !Ref <a log group of the stack>")
			}
			group := resources[ref.Value]
			if n := path(group, "Type"); n == nil || n.Value != "AWS::Logs::LogGroup" {
				t.Fatalf("LoggingConfig.LogGroup names %s, not a log group of the template", ref.Value)
			}
			if !isRef(path(group, "Properties", "RetentionInDays"), "LogRetentionDays") {
				t.Errorf("log group %s has no RetentionInDays: !Ref LogRetentionDays", ref.Value)
			}
			if path(group, "Properties", "LogGroupName") != nil {
				t.Errorf("log group %s has a fixed LogGroupName: a failed create's retry would collide with it", ref.Value)
			}
			if other, ok := owner[ref.Value]; ok {
				t.Errorf("log group %s is also %s's", ref.Value, other)
			}
			owner[ref.Value] = fn
		})
	}
	t.Run("API access log", func(t *testing.T) {
		dest := path(resources["HttpApi"], "Properties", "AccessLogSettings", "DestinationArn")
		if dest == nil || dest.Tag != "!GetAtt" {
			t.Fatalf("HttpApi has no access log destination")
		}
		group := strings.TrimSuffix(dest.Value, ".Arn")
		if !isRef(path(resources[group], "Properties", "RetentionInDays"), "LogRetentionDays") {
			t.Errorf("access log group %s has no RetentionInDays: !Ref LogRetentionDays", group)
		}
	})
}

func TestTemplateAlarmsNotifyTheTopic(t *testing.T) {
	resources := templateResources(t)
	alarms := ofType(resources, "AWS::CloudWatch::Alarm")
	if len(alarms) < 2*len(ofType(resources, "AWS::Serverless::Function")) {
		t.Fatalf("%d alarms; want at least errors and throttles for each function", len(alarms))
	}
	for _, id := range alarms {
		t.Run(id, func(t *testing.T) {
			actions := path(resources[id], "Properties", "AlarmActions")
			if actions == nil || !slices.ContainsFunc(actions.Content, func(n *yaml.Node) bool { return isRef(n, "AlarmTopic") }) {
				t.Errorf("AlarmActions do not include !Ref AlarmTopic")
			}
		})
	}
}

func TestTemplateProtectsTheTable(t *testing.T) {
	table := templateResources(t)[tableLogicalID]
	for _, c := range []struct{ key, want string }{
		{"DeletionPolicy", "Retain"},
		{"UpdateReplacePolicy", "Retain"},
	} {
		t.Run(c.key, func(t *testing.T) {
			if got := path(table, c.key); got == nil || got.Value != c.want {
				t.Errorf("Table %s is not %s", c.key, c.want)
			}
		})
	}
	t.Run("DeletionProtectionEnabled", func(t *testing.T) {
		if got := path(table, "Properties", "DeletionProtectionEnabled"); got == nil || got.Value != "true" {
			t.Errorf("Table has no DeletionProtectionEnabled: true")
		}
	})
}

func TestTemplateDeclaresEveryVariableTheCodeReads(t *testing.T) {
	resources := templateResources(t)
	raw, err := os.ReadFile(filepath.Join(testRoot(t), templateFile))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	addVariables := func(vars *yaml.Node) {
		for i := 0; vars != nil && i+1 < len(vars.Content); i += 2 {
			declared[vars.Content[i].Value] = true
		}
	}
	addVariables(path(doc.Content[0], "Globals", "Function", "Environment", "Variables"))
	for _, fn := range ofType(resources, "AWS::Serverless::Function") {
		addVariables(path(resources[fn], "Properties", "Environment", "Variables"))
	}
	read := variablesRead(t, filepath.Join(testRoot(t), "functions"), filepath.Join(testRoot(t), "shared"))
	if len(read) == 0 {
		t.Fatal("found no os.Getenv call in the functions' code")
	}
	for _, name := range read {
		t.Run(name, func(t *testing.T) {
			if !declared[name] && !slices.Contains(runtimeVariables, name) {
				t.Errorf("the code reads %s but template.yaml does not declare it: SAM drops it, sam local cannot set it", name)
			}
		})
	}
}

// variablesRead returns the names passed as string literals to os.Getenv or
// os.LookupEnv in the non-test Go files under dirs, sorted, except in
// shared/testenv (test-only code that never runs in a function).
func variablesRead(t *testing.T, dirs ...string) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testenv" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			file, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 1 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "os" {
					return true
				}
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if name, err := strconv.Unquote(lit.Value); err == nil {
						seen[name] = true
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for name := range seen {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
