package localstack

import (
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// TemplateRoutes returns the HTTP API routes each function of template.yaml
// declares, keyed by the function's logical id, as "METHOD /path" strings
// (the ServeMux pattern form).
func TemplateRoutes(templatePath string) (map[string][]string, error) {
	raw, err := os.ReadFile(templatePath)
	if err != nil {
		return nil, fmt.Errorf("read template: %w", err)
	}
	// Decoding into a Node keeps CloudFormation tags (!Ref, !GetAtt) from
	// breaking the parse.
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", templatePath, err)
	}
	var tmpl struct {
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				Events map[string]struct {
					Type       string `yaml:"Type"`
					Properties struct {
						Method string `yaml:"Method"`
						Path   string `yaml:"Path"`
					} `yaml:"Properties"`
				} `yaml:"Events"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := doc.Decode(&tmpl); err != nil {
		return nil, fmt.Errorf("decode %s: %w", templatePath, err)
	}
	out := map[string][]string{}
	for id, res := range tmpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		routes := []string{}
		for _, ev := range res.Properties.Events {
			if ev.Type != "HttpApi" {
				continue
			}
			routes = append(routes, strings.ToUpper(ev.Properties.Method)+" "+ev.Properties.Path)
		}
		out[id] = routes
	}
	return out, nil
}
