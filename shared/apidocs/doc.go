// Package apidocs renders the API document (shared/httpapi's openapi.yaml)
// in the two forms GET /api/campaigns/openapi.json and GET
// /api/campaigns/docs serve: JSON with its keys in the order they are
// written, and a self-contained HTML page. It is apart from shared/httpapi
// so that only the function serving those routes (catalog) links the YAML
// parser, the renderer and the document itself.
package apidocs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"gopkg.in/yaml.v3"
)

// Doc is an API document, converted on first use rather than at process
// start, so that a cold start answering other routes does not pay for it.
type Doc struct {
	forms func() (*forms, error)
}

// forms is the document in the two forms it is served in.
type forms struct {
	json []byte
	page []byte
}

// New returns the document whose OpenAPI source (YAML) is src.
func New(src []byte) *Doc {
	return &Doc{forms: sync.OnceValues(func() (*forms, error) {
		root, err := parseDoc(src)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := root.writeJSON(&buf); err != nil {
			return nil, err
		}
		return &forms{json: buf.Bytes(), page: renderPage(root)}, nil
	})}
}

// JSON returns the document as JSON, with its keys in the order they are
// written.
func (d *Doc) JSON() ([]byte, error) {
	f, err := d.forms()
	if err != nil {
		return nil, err
	}
	return f.json, nil
}

// Page returns the document as a self-contained HTML page.
func (d *Doc) Page() ([]byte, error) {
	f, err := d.forms()
	if err != nil {
		return nil, err
	}
	return f.page, nil
}

// docNode is a YAML value kept in document order, so the JSON form and the
// page list paths, fields and examples in the order they are written.
type docNode struct {
	keys   []string // an object's keys, in order
	fields map[string]*docNode
	items  []*docNode // an array's items
	scalar any        // string, bool, nil or json.Number
	kind   byte       // 'o' object, 'a' array, 's' scalar
}

func parseDoc(src []byte) (*docNode, error) {
	var n yaml.Node
	if err := yaml.Unmarshal(src, &n); err != nil {
		return nil, fmt.Errorf("parse openapi.yaml: %w", err)
	}
	return convert(&n)
}

func convert(n *yaml.Node) (*docNode, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, fmt.Errorf("openapi.yaml: want one document, got %d", len(n.Content))
		}
		return convert(n.Content[0])
	case yaml.AliasNode:
		return convert(n.Alias)
	case yaml.MappingNode:
		out := &docNode{kind: 'o', fields: map[string]*docNode{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := out.fields[k]; dup {
				return nil, fmt.Errorf("openapi.yaml line %d: key %q repeated", n.Content[i].Line, k)
			}
			v, err := convert(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			out.keys = append(out.keys, k)
			out.fields[k] = v
		}
		return out, nil
	case yaml.SequenceNode:
		out := &docNode{kind: 'a', items: []*docNode{}}
		for _, c := range n.Content {
			v, err := convert(c)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, v)
		}
		return out, nil
	case yaml.ScalarNode:
		return convertScalar(n)
	}
	return nil, fmt.Errorf("openapi.yaml line %d: unexpected YAML node", n.Line)
}

func convertScalar(n *yaml.Node) (*docNode, error) {
	out := &docNode{kind: 's'}
	switch n.ShortTag() {
	case "!!null":
		return out, nil
	case "!!bool", "!!int", "!!float":
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("openapi.yaml line %d: %w", n.Line, err)
		}
		switch v := v.(type) {
		case bool:
			out.scalar = v
		case int:
			out.scalar = json.Number(strconv.Itoa(v))
		case float64:
			out.scalar = json.Number(strconv.FormatFloat(v, 'g', -1, 64))
		default:
			return nil, fmt.Errorf("openapi.yaml line %d: %q is not a JSON number", n.Line, n.Value)
		}
		return out, nil
	}
	// Strings, and anything else YAML resolves (timestamps), stay text:
	// JSON has nothing else to hold them.
	out.scalar = n.Value
	return out, nil
}

// writeJSON writes the node as compact JSON.
func (n *docNode) writeJSON(buf *bytes.Buffer) error {
	if n == nil {
		buf.WriteString("null")
		return nil
	}
	switch n.kind {
	case 'o':
		buf.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeScalar(buf, k); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := n.fields[k].writeJSON(buf); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
	case 'a':
		buf.WriteByte('[')
		for i, it := range n.items {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := it.writeJSON(buf); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		return writeScalar(buf, n.scalar)
	}
	return nil
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

// get follows a path of object keys; nil when any is missing.
func (n *docNode) get(path ...string) *docNode {
	for _, k := range path {
		if n == nil || n.kind != 'o' {
			return nil
		}
		n = n.fields[k]
	}
	return n
}

// str returns the string at path, "" when absent or not a string.
func (n *docNode) str(path ...string) string {
	v := n.get(path...)
	if v == nil {
		return ""
	}
	s, _ := v.scalar.(string)
	return s
}
