// Package apidocs renders the API document (shared/httpapi's openapi.json,
// generated from openapi.yaml by shared/apidocs/openapijson) in the two
// forms GET /api/campaigns/openapi.json and GET /api/campaigns/docs serve:
// JSON with its keys in the order they are written, and a self-contained
// HTML page. It is apart from shared/httpapi so that only the function
// serving those routes (catalog) links the renderer and the document.
package apidocs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Doc is an API document, rendered on first use rather than at process
// start, so that a cold start answering other routes does not pay for it.
type Doc struct {
	src  []byte
	page func() ([]byte, error)
}

// New returns the document whose compact JSON form (openapi.json, keys in
// the order they are written) is src.
func New(src []byte) *Doc {
	return &Doc{src: src, page: sync.OnceValues(func() ([]byte, error) {
		root, err := parseDoc(src)
		if err != nil {
			return nil, err
		}
		return renderPage(root), nil
	})}
}

// JSON returns the document as JSON, with its keys in the order they are
// written.
func (d *Doc) JSON() ([]byte, error) {
	return d.src, nil
}

// Page returns the document as a self-contained HTML page.
func (d *Doc) Page() ([]byte, error) {
	return d.page()
}

// docNode is a JSON value kept in document order, so the page lists paths,
// fields and examples in the order they are written.
type docNode struct {
	keys   []string // an object's keys, in order
	fields map[string]*docNode
	items  []*docNode // an array's items
	scalar any        // string, bool, nil or json.Number
	kind   byte       // 'o' object, 'a' array, 's' scalar
}

func parseDoc(src []byte) (*docNode, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	root, err := decodeNode(dec)
	if err != nil {
		return nil, fmt.Errorf("parse openapi.json: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("parse openapi.json: more than one value")
	}
	return root, nil
}

func decodeNode(dec *json.Decoder) (*docNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		out := &docNode{kind: 'o', fields: map[string]*docNode{}}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string) // the decoder yields only string keys
			if _, dup := out.fields[k]; dup {
				return nil, fmt.Errorf("key %q repeated", k)
			}
			v, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			out.keys = append(out.keys, k)
			out.fields[k] = v
		}
		_, err := dec.Token() // '}'
		return out, err
	case json.Delim('['):
		out := &docNode{kind: 'a', items: []*docNode{}}
		for dec.More() {
			v, err := decodeNode(dec)
			if err != nil {
				return nil, err
			}
			out.items = append(out.items, v)
		}
		_, err := dec.Token() // ']'
		return out, err
	}
	return &docNode{kind: 's', scalar: tok}, nil
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
