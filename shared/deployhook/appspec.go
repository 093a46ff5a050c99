// Package deployhook is the canary's check of a new function version: the
// CodeDeploy lifecycle hooks of every function's deployment (template.yaml's
// PreTrafficHookFunction and PostTrafficHookFunction, both
// functions/deployhook). CodeDeploy names only the deployment; the hook reads
// which function and version it moves from the deployment's AppSpec, invokes
// that version through its smoke probes, and reports Succeeded or Failed,
// which lets the deployment go on or rolls it back.
package deployhook

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Target is what a Lambda deployment does: move Function's Alias from
// CurrentVersion to TargetVersion.
type Target struct {
	Function, Alias, CurrentVersion, TargetVersion string
}

// appSpec is a Lambda deployment's AppSpec: a list of one-entry maps of a
// resource name to the resource.
type appSpec struct {
	Resources []map[string]struct {
		Type       string `yaml:"Type"`
		Properties struct {
			Name           string `yaml:"Name"`
			Alias          string `yaml:"Alias"`
			CurrentVersion string `yaml:"CurrentVersion"`
			TargetVersion  string `yaml:"TargetVersion"`
		} `yaml:"Properties"`
	} `yaml:"Resources"`
}

// ParseAppSpec returns the target of a Lambda deployment's AppSpec (JSON, as
// CloudFormation writes it, or YAML). A deployment of the stack moves one
// function; anything else is refused, since the hook would not know which
// version to check.
func ParseAppSpec(content string) (Target, error) {
	var spec appSpec
	if err := yaml.Unmarshal([]byte(content), &spec); err != nil {
		return Target{}, fmt.Errorf("read the AppSpec: %w", err)
	}
	var targets []Target
	for _, entry := range spec.Resources {
		for name, r := range entry {
			if r.Type != "AWS::Lambda::Function" {
				return Target{}, fmt.Errorf("the AppSpec's resource %s is a %q, not a Lambda function", name, r.Type)
			}
			p := r.Properties
			if p.Name == "" || p.Alias == "" || p.TargetVersion == "" {
				return Target{}, fmt.Errorf("the AppSpec's resource %s lacks its Name, Alias or TargetVersion", name)
			}
			targets = append(targets, Target{Function: p.Name, Alias: p.Alias, CurrentVersion: p.CurrentVersion, TargetVersion: p.TargetVersion})
		}
	}
	switch len(targets) {
	case 1:
		return targets[0], nil
	case 0:
		return Target{}, errors.New("the AppSpec names no Lambda function")
	default:
		return Target{}, fmt.Errorf("the AppSpec names %d functions, want one", len(targets))
	}
}
