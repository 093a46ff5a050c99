// Package template reads the stack as a deploy creates it: template.yaml
// converted to plain CloudFormation by the SAM translator (convert.py, run
// with the lint venv's Python, which `make tools` installs), where the
// functions' versions, live aliases, roles, event source mappings,
// permissions and CodeDeploy deployment groups exist as resources. `make
// converted-template` writes the converted template to
// .aws-sam/converted.json; the tests convert into a directory of their own.
//
// Nothing here is deployed: the tests of the template and the IAM check
// read the converted template through it.
package template

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
)

// ErrNoTranslator means the lint venv, which holds the SAM translator and
// cfn-lint, is not installed.
var ErrNoTranslator = errors.New("the SAM translator is not installed (.tools/lint-venv): run `make tools` (make lint installs it too)")

// LintVenv returns the lint venv's bin directory under root (the
// repository), or ErrNoTranslator.
func LintVenv(root string) (string, error) {
	bin := filepath.Join(root, ".tools", "lint-venv", "bin")
	if _, err := os.Stat(filepath.Join(bin, "python")); err != nil {
		return "", ErrNoTranslator
	}
	return bin, nil
}

// Convert converts the SAM template src into plain CloudFormation JSON at
// dst, as convert.py does, with params ("Name=Value") over its deploy-like
// parameter values.
func Convert(ctx context.Context, root, src, dst string, params ...string) error {
	bin, err := LintVenv(root)
	if err != nil {
		return err
	}
	args := append([]string{filepath.Join(root, "infra", "template", "convert.py"), src, dst}, params...)
	out, err := exec.CommandContext(ctx, filepath.Join(bin, "python"), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("convert %s: %w: %s", src, err, out)
	}
	return nil
}

// Template is a CloudFormation template, as much of it as the checks read.
type Template struct {
	Parameters map[string]Parameter `json:"Parameters"`
	Resources  map[string]Resource  `json:"Resources"`
}

// Parameter is a template parameter.
type Parameter struct {
	Type           string `json:"Type"`
	Default        any    `json:"Default"`
	AllowedPattern string `json:"AllowedPattern"`
}

// Resource is a template resource. Properties keep their JSON shape:
// intrinsic functions are one-key objects ({"Ref": id},
// {"Fn::GetAtt": [id, attribute]}, {"Fn::Sub": ...}).
type Resource struct {
	Type         string         `json:"Type"`
	Condition    string         `json:"Condition"`
	Properties   map[string]any `json:"Properties"`
	UpdatePolicy map[string]any `json:"UpdatePolicy"`
}

// Load reads a converted template.
func Load(path string) (*Template, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t Template
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return &t, nil
}

// OfType returns the logical ids of the resources of a type, sorted.
func (t *Template) OfType(typ string) []string {
	var ids []string
	for id, r := range t.Resources {
		if r.Type == typ {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// Ref returns the logical id v refers to with {"Ref": id}.
func Ref(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) != 1 {
		return "", false
	}
	id, ok := m["Ref"].(string)
	return id, ok
}

// GetAtt returns the logical id and attribute of {"Fn::GetAtt": [id, attribute]}.
func GetAtt(v any) (id, attribute string, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) != 1 {
		return "", "", false
	}
	parts, isList := m["Fn::GetAtt"].([]any)
	if !isList || len(parts) != 2 {
		return "", "", false
	}
	id, ok1 := parts[0].(string)
	attribute, ok2 := parts[1].(string)
	return id, attribute, ok1 && ok2
}

// Path follows map keys from v; nil when one is missing.
func Path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
