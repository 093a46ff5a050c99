package rie

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Stack-wide values the template's intrinsics resolve to: a stack in us-east-1 of an example account.
const (
	region    = "us-east-1"
	accountID = "123456789012"
)

// Template is template.yaml read as CloudFormation would deploy it with some parameters: the functions'
// settings and environments resolved, intrinsic functions included.
type Template struct {
	root       *yaml.Node
	resources  map[string]*yaml.Node
	params     map[string]string
	conditions map[string]*yaml.Node
	decided    map[string]bool
	// refs stand in for resources whose Ref the caller knows better than a made-up physical id (the
	// table a test created).
	refs map[string]string
}

// LoadTemplate reads root's template.yaml with params over the parameters' defaults, and refs as the
// Ref of the resources they name (logical id → value).
func LoadTemplate(root string, params, refs map[string]string) (*Template, error) {
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("template.yaml: %w", err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("template.yaml is empty")
	}
	t := &Template{root: doc.Content[0], resources: map[string]*yaml.Node{}, params: map[string]string{},
		conditions: map[string]*yaml.Node{}, decided: map[string]bool{}, refs: refs}
	eachPair(lookup(t.root, "Resources"), func(k string, v *yaml.Node) { t.resources[k] = v })
	eachPair(lookup(t.root, "Conditions"), func(k string, v *yaml.Node) { t.conditions[k] = v })
	eachPair(lookup(t.root, "Parameters"), func(k string, v *yaml.Node) {
		if d := lookup(v, "Default"); d != nil {
			t.params[k] = d.Value
		}
	})
	for k, v := range params {
		if lookup(t.root, "Parameters", k) == nil {
			return nil, fmt.Errorf("template.yaml has no parameter %s", k)
		}
		t.params[k] = v
	}
	return t, nil
}

// Function is a Lambda function of the template as it would be deployed.
type Function struct {
	// LogicalID is the resource's logical id (CatalogFunction); Name is its group, the package under
	// functions/ the Makefile's build-<Group>Function target builds (catalog).
	LogicalID, Name string
	// FunctionName is the deployed function's name.
	FunctionName string
	MemoryMB     int
	Timeout      time.Duration
	// Env is the function's environment: the Globals' variables with its own over them.
	Env map[string]string
	// Routes are the HTTP API routes it serves ("GET /gift/{pageId}").
	Routes []string
	// Sources are its other event sources: "Schedule", "SQS", "DynamoDB", "SNS", or "CodeDeployHook"
	// when another function's DeploymentPreference names it as a traffic hook.
	Sources []string
	// Canaried: its DeploymentPreference shifts traffic through CodeDeploy, whose traffic hooks check
	// its new version (a function without one, as OperatorFunction, is not checked by them).
	Canaried bool
}

// Functions returns the template's functions, in the template's order.
func (t *Template) Functions() ([]Function, error) {
	var out []Function
	var err error
	eachPair(lookup(t.root, "Resources"), func(id string, res *yaml.Node) {
		if err != nil || scalar(lookup(res, "Type")) != "AWS::Serverless::Function" {
			return
		}
		var fn Function
		fn, err = t.function(id, res)
		out = append(out, fn)
	})
	return out, err
}

func (t *Template) function(id string, res *yaml.Node) (Function, error) {
	fn := Function{LogicalID: id, Name: strings.ToLower(strings.TrimSuffix(id, "Function")), Env: map[string]string{}}
	props := lookup(res, "Properties")
	setting := func(name string) *yaml.Node {
		if n := lookup(props, name); n != nil {
			return n
		}
		return lookup(t.root, "Globals", "Function", name)
	}
	var err error
	if fn.FunctionName, err = t.eval(lookup(props, "FunctionName")); err != nil {
		return fn, fmt.Errorf("%s FunctionName: %w", id, err)
	}
	if fn.MemoryMB, err = strconv.Atoi(scalar(setting("MemorySize"))); err != nil {
		return fn, fmt.Errorf("%s MemorySize: %w", id, err)
	}
	seconds, err := strconv.Atoi(scalar(setting("Timeout")))
	if err != nil {
		return fn, fmt.Errorf("%s Timeout: %w", id, err)
	}
	fn.Timeout = time.Duration(seconds) * time.Second
	for _, vars := range []*yaml.Node{
		lookup(t.root, "Globals", "Function", "Environment", "Variables"),
		lookup(props, "Environment", "Variables"),
	} {
		eachPair(vars, func(k string, v *yaml.Node) {
			if err == nil {
				fn.Env[k], err = t.eval(v)
				err = wrap(err, "%s variable %s", id, k)
			}
		})
	}
	eachPair(lookup(props, "Events"), func(_ string, ev *yaml.Node) {
		switch typ := scalar(lookup(ev, "Type")); typ {
		case "HttpApi", "Api":
			fn.Routes = append(fn.Routes, strings.ToUpper(scalar(lookup(ev, "Properties", "Method")))+" "+scalar(lookup(ev, "Properties", "Path")))
		default:
			fn.Sources = append(fn.Sources, typ)
		}
	})
	fn.Sources = append(fn.Sources, t.otherSources(id)...)
	fn.Canaried = lookup(props, "DeploymentPreference") != nil
	return fn, err
}

// otherSources are the event sources that other resources point at the function id: an SNS
// subscription whose endpoint is the function (or one of its aliases: SAM's !Ref <id>.Alias, or the
// generated <id>Alias<name>), a deployment preference's hook.
func (t *Template) otherSources(id string) []string {
	var out []string
	names := func(n *yaml.Node) bool {
		target := strings.TrimSuffix(scalar(n), ".Arn")
		return target == id || target == id+".Alias" || strings.HasPrefix(target, id+"Alias")
	}
	for _, res := range t.resources {
		switch scalar(lookup(res, "Type")) {
		case "AWS::SNS::Subscription":
			if scalar(lookup(res, "Properties", "Protocol")) == "lambda" && names(lookup(res, "Properties", "Endpoint")) {
				out = append(out, "SNS")
			}
		case "AWS::Serverless::Function":
			eachPair(lookup(res, "Properties", "DeploymentPreference", "Hooks"), func(_ string, hook *yaml.Node) {
				if names(hook) && !slices.Contains(out, "CodeDeployHook") {
					out = append(out, "CodeDeployHook")
				}
			})
		}
	}
	return out
}

// lookup follows mapping keys from n; nil when one is missing.
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// eachPair calls f with each key and value of the mapping n, in order.
func eachPair(n *yaml.Node, f func(string, *yaml.Node)) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f(n.Content[i].Value, n.Content[i+1])
	}
}

// scalar is n's value, "" for none.
func scalar(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	return n.Value
}

// describe names a node by its line in template.yaml, for messages.
func describe(n *yaml.Node) string { return fmt.Sprintf("template.yaml line %d", n.Line) }

func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}
