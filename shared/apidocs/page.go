package apidocs

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
)

// The docs page is rendered on the server from the document, once, and is
// self-contained: no script, no font, nothing fetched from elsewhere, so it
// reads the same offline. It is written with html.EscapeString rather than
// html/template, which would add about a megabyte to every Lambda binary;
// every text that comes from the document goes through esc.

const pageStyle = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2328;display:flex}
nav{width:17rem;flex:none;height:100vh;overflow:auto;position:sticky;top:0;background:#f6f8fa;padding:1rem;box-sizing:border-box;font-size:13px}
nav ul{list-style:none;padding-left:.5rem;margin:.2rem 0 .8rem}nav a{color:#1f2328;text-decoration:none}nav a:hover{text-decoration:underline}
main{padding:1rem 2rem 4rem;max-width:70rem;min-width:0}
h2{border-bottom:1px solid #d0d7de;padding-bottom:.3rem;margin-top:2.5rem}
section{border:1px solid #d0d7de;border-radius:6px;padding:.2rem 1rem 1rem;margin:1rem 0}
.m{display:inline-block;min-width:3.5rem;text-align:center;border-radius:4px;color:#fff;font-size:12px;font-weight:600;padding:1px 6px;margin-right:.4rem}
.get{background:#0969da}.post{background:#1a7f37}.put,.patch{background:#9a6700}.delete{background:#cf222e}
table{border-collapse:collapse;margin:.4rem 0;width:100%}th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td table{margin:.3rem 0 0}code,pre{font:13px ui-monospace,monospace}
pre{background:#f6f8fa;padding:.6rem;border-radius:6px;overflow:auto;max-height:30rem}
.req{color:#cf222e}.muted{color:#59636e}.s2{color:#1a7f37}.s4{color:#9a6700}.s5{color:#cf222e}`

func renderPage(root *docNode) []byte {
	p := &pageWriter{root: root}
	title := root.str("info", "title")
	p.raw(`<!doctype html><html lang="en"><head><meta charset="utf-8">`)
	p.raw(`<meta name="viewport" content="width=device-width,initial-scale=1"><title>`)
	p.esc(title + " API")
	p.raw(`</title><style>` + pageStyle + `</style></head><body>`)
	ops := p.operations()
	p.nav(ops)
	p.raw(`<main><h1>`)
	p.esc(title)
	p.raw(` <small class="muted">`)
	p.esc(root.str("info", "version"))
	p.raw(`</small></h1>`)
	p.text(root.str("info", "summary"))
	p.text(root.str("info", "description"))
	p.raw(`<p>The machine-readable document: <a href="openapi.json">openapi.json</a> (OpenAPI `)
	p.esc(root.str("openapi"))
	p.raw(`).</p><h2 id="authentication">Authentication</h2>`)
	if schemes := root.get("components", "securitySchemes"); schemes != nil {
		for _, name := range schemes.keys {
			s := schemes.fields[name]
			p.raw(`<p>`)
			p.esc(s.str("type") + " ")
			p.raw(`<code>`)
			p.esc(s.str("name"))
			p.raw(`</code> in `)
			p.esc(s.str("in"))
			p.raw(`.</p>`)
			p.text(s.str("description"))
		}
	}
	for _, tag := range p.tags(ops) {
		p.raw(`<h2 id="tag-`)
		p.esc(tag.name)
		p.raw(`">`)
		p.esc(tag.name)
		p.raw(`</h2>`)
		p.text(tag.description)
		for _, op := range ops {
			if op.tag == tag.name {
				p.operation(op)
			}
		}
	}
	p.schemas()
	p.raw(`</main></body></html>`)
	return p.b.Bytes()
}

type pageWriter struct {
	b    bytes.Buffer
	root *docNode
}

func (p *pageWriter) raw(s string) { p.b.WriteString(s) }
func (p *pageWriter) esc(s string) { p.b.WriteString(html.EscapeString(s)) }

// text writes a description: paragraphs split on blank lines, `code` and
// **strong** marked up, everything else escaped.
func (p *pageWriter) text(s string) {
	for _, para := range strings.Split(strings.TrimSpace(s), "\n\n") {
		if para == "" {
			continue
		}
		p.raw(`<p>`)
		p.inline(para)
		p.raw(`</p>`)
	}
}

func (p *pageWriter) inline(s string) {
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			p.raw(`<code>`)
			p.esc(part)
			p.raw(`</code>`)
			continue
		}
		for j, bit := range strings.Split(part, "**") {
			if j%2 == 1 {
				p.raw(`<strong>`)
				p.esc(bit)
				p.raw(`</strong>`)
			} else {
				p.esc(bit)
			}
		}
	}
}

// operation is one method of one path.
type operation struct {
	method, path, tag string
	node              *docNode
}

func (op operation) anchor() string {
	if id := op.node.str("operationId"); id != "" {
		return "op-" + id
	}
	return "op-" + op.method + "-" + op.path
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func (p *pageWriter) operations() []operation {
	var out []operation
	paths := p.root.get("paths")
	if paths == nil {
		return nil
	}
	for _, path := range paths.keys {
		item := paths.fields[path]
		for _, m := range methods {
			if n := item.get(m); n != nil {
				tag := "Other"
				if t := n.get("tags"); t != nil && len(t.items) > 0 {
					tag, _ = t.items[0].scalar.(string)
				}
				out = append(out, operation{method: m, path: path, tag: tag, node: n})
			}
		}
	}
	return out
}

type pageTag struct{ name, description string }

// tags lists the document's tags in order, then any tag an operation uses
// that the document does not declare.
func (p *pageWriter) tags(ops []operation) []pageTag {
	var out []pageTag
	seen := map[string]bool{}
	if t := p.root.get("tags"); t != nil {
		for _, it := range t.items {
			name := it.str("name")
			out = append(out, pageTag{name, it.str("description")})
			seen[name] = true
		}
	}
	for _, op := range ops {
		if !seen[op.tag] {
			out = append(out, pageTag{name: op.tag})
			seen[op.tag] = true
		}
	}
	return out
}

func (p *pageWriter) nav(ops []operation) {
	p.raw(`<nav><strong><a href="#">`)
	p.esc(p.root.str("info", "title"))
	p.raw(`</a></strong><ul><li><a href="#authentication">Authentication</a></li></ul>`)
	for _, tag := range p.tags(ops) {
		var mine []operation
		for _, op := range ops {
			if op.tag == tag.name {
				mine = append(mine, op)
			}
		}
		if len(mine) == 0 {
			continue
		}
		p.raw(`<a href="#tag-`)
		p.esc(tag.name)
		p.raw(`"><strong>`)
		p.esc(tag.name)
		p.raw(`</strong></a><ul>`)
		for _, op := range mine {
			p.raw(`<li><a href="#`)
			p.esc(op.anchor())
			p.raw(`"><span class="m `)
			p.esc(op.method)
			p.raw(`">`)
			p.esc(strings.ToUpper(op.method))
			p.raw(`</span>`)
			// Every path starts with /api/campaigns; the rest tells them apart.
			short := strings.TrimPrefix(op.path, "/api/campaigns")
			if short == "" {
				short = op.path
			}
			p.esc(short)
			p.raw(`</a></li>`)
		}
		p.raw(`</ul>`)
	}
	p.raw(`<a href="#schemas"><strong>Schemas</strong></a></nav>`)
}

// resolve follows a local $ref to the component it names.
func (p *pageWriter) resolve(n *docNode) *docNode {
	for i := 0; n != nil && i < 10; i++ {
		ref := n.str("$ref")
		if !strings.HasPrefix(ref, "#/") {
			return n
		}
		n = p.root.get(strings.Split(strings.TrimPrefix(ref, "#/"), "/")...)
	}
	return n
}

func (p *pageWriter) operation(op operation) {
	n := op.node
	p.raw(`<section id="`)
	p.esc(op.anchor())
	p.raw(`"><h3><span class="m `)
	p.esc(op.method)
	p.raw(`">`)
	p.esc(strings.ToUpper(op.method))
	p.raw(`</span><code>`)
	p.esc(op.path)
	p.raw(`</code></h3><p><strong>`)
	p.esc(n.str("summary"))
	p.raw(`</strong>`)
	if sec := n.get("security"); sec != nil && len(sec.items) == 0 {
		p.raw(` <span class="muted">(public: no API key)</span>`)
	}
	p.raw(`</p>`)
	p.text(n.str("description"))
	if params := n.get("parameters"); params != nil && len(params.items) > 0 {
		p.raw(`<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type and bounds</th><th>description</th></tr>`)
		for _, raw := range params.items {
			prm := p.resolve(raw)
			p.raw(`<tr><td><code>`)
			p.esc(prm.str("name"))
			p.raw(`</code>`)
			if b, _ := prm.get("required").scalarValue().(bool); b {
				p.raw(` <span class="req">required</span>`)
			}
			p.raw(`</td><td>`)
			p.esc(prm.str("in"))
			p.raw(`</td><td>`)
			p.schema(prm.get("schema"))
			p.raw(`</td><td>`)
			p.inline(prm.str("description"))
			if ex := prm.get("example"); ex != nil {
				p.raw(` <span class="muted">Example: </span><code>`)
				p.esc(compactJSON(ex))
				p.raw(`</code>`)
			}
			p.raw(`</td></tr>`)
		}
		p.raw(`</table>`)
	}
	if body := p.resolve(n.get("requestBody")); body != nil {
		p.raw(`<h4>Request body`)
		if b, _ := body.get("required").scalarValue().(bool); b {
			p.raw(` <span class="req">required</span>`)
		}
		p.raw(`</h4>`)
		p.text(body.str("description"))
		p.content(body.get("content"))
	}
	if res := n.get("responses"); res != nil {
		p.raw(`<h4>Responses</h4>`)
		for _, status := range res.keys {
			r := p.resolve(res.fields[status])
			p.raw(`<p><strong class="s`)
			p.esc(status[:1])
			p.raw(`">`)
			p.esc(status)
			p.raw(`</strong> `)
			p.inline(r.str("description"))
			p.raw(`</p>`)
			p.headers(r.get("headers"))
			p.content(r.get("content"))
		}
	}
	p.raw(`</section>`)
}

// headers writes the headers a response declares (Retry-After,
// RateLimit, Idempotent-Replayed): a client acts on them, so the page shows
// them beside the response, as the document does.
func (p *pageWriter) headers(h *docNode) {
	if h == nil || len(h.keys) == 0 {
		return
	}
	p.raw(`<table><tr><th>header</th><th>type</th><th>description</th></tr>`)
	for _, name := range h.keys {
		hd := p.resolve(h.fields[name])
		p.raw(`<tr><td><code>`)
		p.esc(name)
		p.raw(`</code></td><td>`)
		p.schema(hd.get("schema"))
		p.raw(`</td><td>`)
		p.inline(hd.str("description"))
		p.raw(`</td></tr>`)
	}
	p.raw(`</table>`)
}

// content writes each media type's schema and example.
func (p *pageWriter) content(c *docNode) {
	if c == nil {
		return
	}
	for _, mt := range c.keys {
		m := c.fields[mt]
		p.raw(`<div><span class="muted">`)
		p.esc(mt)
		p.raw(`</span>: `)
		p.schema(m.get("schema"))
		p.raw(`</div>`)
		if ex := m.get("example"); ex != nil {
			p.example(ex)
		}
		if exs := m.get("examples"); exs != nil {
			for _, name := range exs.keys {
				e := p.resolve(exs.fields[name])
				p.raw(`<div class="muted">Example `)
				p.esc(name)
				if s := e.str("summary"); s != "" {
					p.esc(": " + s)
				}
				p.raw(`</div>`)
				p.example(e.get("value"))
			}
		}
	}
}

func (p *pageWriter) example(ex *docNode) {
	if ex == nil {
		return
	}
	var out bytes.Buffer
	if err := json.Indent(&out, []byte(compactJSON(ex)), "", "  "); err != nil {
		return
	}
	p.raw(`<pre>`)
	p.esc(out.String())
	p.raw(`</pre>`)
}

func compactJSON(n *docNode) string {
	var buf bytes.Buffer
	if err := n.writeJSON(&buf); err != nil {
		return ""
	}
	return buf.String()
}

func (n *docNode) scalarValue() any {
	if n == nil {
		return nil
	}
	return n.scalar
}
