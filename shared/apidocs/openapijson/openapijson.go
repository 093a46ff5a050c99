// Package openapijson converts the API document from the YAML it is
// written in (shared/httpapi/openapi.yaml) to the compact JSON the catalog
// function embeds and serves (shared/httpapi/openapi.json), keys in the
// order they are written. It runs at generation time (make client) and in
// the drift test, so no Lambda binary links the YAML parser.
package openapijson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"gopkg.in/yaml.v3"
)

// Convert returns the YAML document src as compact JSON, keys in document
// order, <, > and & unescaped (the document holds HTML examples).
func Convert(src []byte) ([]byte, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		return nil, fmt.Errorf("parse openapi.yaml: %w", err)
	}
	if n.Kind != yaml.DocumentNode || len(n.Content) != 1 {
		return nil, fmt.Errorf("openapi.yaml: want one document, got %d", len(n.Content))
	}
	var buf bytes.Buffer
	if err := write(&buf, n.Content[0]); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func write(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.AliasNode:
		return write(buf, n.Alias)
	case yaml.MappingNode:
		seen := map[string]bool{}
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if seen[k] {
				return fmt.Errorf("openapi.yaml line %d: key %q repeated", n.Content[i].Line, k)
			}
			seen[k] = true
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeScalar(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := write(buf, n.Content[i+1]); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := write(buf, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		v, err := scalar(n)
		if err != nil {
			return err
		}
		return writeScalar(buf, v)
	}
	return fmt.Errorf("openapi.yaml line %d: unexpected YAML node", n.Line)
}

func scalar(n *yaml.Node) (any, error) {
	switch n.ShortTag() {
	case "!!null":
		return nil, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("openapi.yaml line %d: %w", n.Line, err)
		}
		switch v := v.(type) {
		case bool:
			return v, nil
		case int:
			return json.Number(strconv.Itoa(v)), nil
		case float64:
			return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), nil
		}
		return nil, fmt.Errorf("openapi.yaml line %d: %q is not a JSON number", n.Line, n.Value)
	}
	// Strings, and anything else YAML resolves (timestamps), stay text:
	// JSON has nothing else to hold them.
	return n.Value, nil
}

// writeScalar writes v as JSON without escaping <, > and &: the document
// holds HTML examples, which read better as written, and is served as
// application/json, where they are harmless.
func writeScalar(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}
