package apidocs

import (
	"slices"
	"strings"
)

// schemas writes the components' schemas, each as a table of its fields.
func (p *pageWriter) schemas() {
	p.raw(`<h2 id="schemas">Schemas</h2>`)
	all := p.root.get("components", "schemas")
	if all == nil {
		return
	}
	for _, name := range all.keys {
		s := all.fields[name]
		p.raw(`<section id="schema-`)
		p.esc(name)
		p.raw(`"><h3>`)
		p.esc(name)
		p.raw(`</h3>`)
		p.text(s.str("description"))
		if s.get("properties") == nil {
			p.raw(`<p>`)
			p.schema(s)
			p.raw(`</p>`)
		} else {
			p.fields(s)
		}
		if ex := s.get("example"); ex != nil {
			p.example(ex)
		}
		p.raw(`</section>`)
	}
}

// schema writes a schema in a line: a link to a named schema, or its type
// with its bounds, followed by a table of its fields when it has any.
func (p *pageWriter) schema(s *docNode) {
	if s == nil {
		p.raw(`<span class="muted">any</span>`)
		return
	}
	if ref := s.str("$ref"); ref != "" {
		name := ref[strings.LastIndexByte(ref, '/')+1:]
		p.raw(`<a href="#schema-`)
		p.esc(name)
		p.raw(`">`)
		p.esc(name)
		p.raw(`</a>`)
		p.bounds(s)
		return
	}
	for _, comb := range []struct{ key, sep string }{{"allOf", " and "}, {"anyOf", " or "}, {"oneOf", " or "}} {
		if parts := s.get(comb.key); parts != nil {
			for i, part := range parts.items {
				if i > 0 {
					p.esc(comb.sep)
				}
				if part.get("properties") != nil && part.get("type") == nil && part.get("$ref") == nil {
					p.raw(`with:`)
					p.fields(part)
					continue
				}
				p.schema(part)
			}
			return
		}
	}
	if c := s.get("const"); c != nil {
		p.raw(`<code>`)
		p.esc(compactJSON(c))
		p.raw(`</code>`)
		return
	}
	typ := ""
	if t := s.get("type"); t != nil {
		// A string, or in OpenAPI 3.1 a list such as ["string", "null"].
		typ, _ = t.scalar.(string)
		if typ == "" {
			typ = compactJSON(t)
		}
	}
	switch {
	case typ == "array":
		p.esc("array of ")
		p.schema(s.get("items"))
	case typ == "object" && s.get("properties") == nil && s.get("additionalProperties") != nil &&
		s.get("additionalProperties").kind == 'o':
		p.esc("map of ")
		if names := s.get("propertyNames"); names != nil {
			p.schema(names)
		} else {
			p.esc("string")
		}
		p.esc(" to ")
		p.schema(s.get("additionalProperties"))
	case typ == "":
		if s.get("properties") == nil && s.get("enum") == nil {
			p.raw(`<span class="muted">any</span>`)
		}
	default:
		p.esc(typ)
	}
	p.bounds(s)
	if s.get("properties") != nil {
		p.fields(s)
	}
}

// bounds writes a schema's enum, range, length, pattern, format and default.
func (p *pageWriter) bounds(s *docNode) {
	var notes []string
	if e := s.get("enum"); e != nil {
		var vals []string
		for _, it := range e.items {
			vals = append(vals, compactJSON(it))
		}
		notes = append(notes, "one of "+strings.Join(vals, ", "))
	}
	num := func(k string) string {
		if v := s.get(k); v != nil {
			return compactJSON(v)
		}
		return ""
	}
	rangeNote := func(lo, hi, unit string) {
		switch l, h := num(lo), num(hi); {
		case l != "" && h != "":
			notes = append(notes, unit+l+".."+h)
		case l != "":
			notes = append(notes, unit+"≥ "+l)
		case h != "":
			notes = append(notes, unit+"≤ "+h)
		}
	}
	rangeNote("minimum", "maximum", "")
	rangeNote("minLength", "maxLength", "length ")
	rangeNote("minItems", "maxItems", "items ")
	if f := s.str("format"); f != "" {
		notes = append(notes, "format "+f)
	}
	if pat := s.str("pattern"); pat != "" {
		notes = append(notes, "pattern "+pat)
	}
	if d := s.get("default"); d != nil {
		notes = append(notes, "default "+compactJSON(d))
	}
	if len(notes) > 0 {
		p.raw(` <span class="muted">(`)
		p.esc(strings.Join(notes, "; "))
		p.raw(`)</span>`)
	}
}

// fields writes the properties of an object schema as a table.
func (p *pageWriter) fields(s *docNode) {
	props := s.get("properties")
	var required []string
	if r := s.get("required"); r != nil {
		for _, it := range r.items {
			if name, ok := it.scalar.(string); ok {
				required = append(required, name)
			}
		}
	}
	p.raw(`<table><tr><th>field</th><th>type</th><th>description</th></tr>`)
	for _, name := range props.keys {
		f := props.fields[name]
		p.raw(`<tr><td><code>`)
		p.esc(name)
		p.raw(`</code>`)
		if slices.Contains(required, name) {
			p.raw(` <span class="req">required</span>`)
		}
		p.raw(`</td><td>`)
		p.schema(f)
		p.raw(`</td><td>`)
		p.inline(f.str("description"))
		p.raw(`</td></tr>`)
	}
	p.raw(`</table>`)
	if ap := s.get("additionalProperties"); ap != nil && ap.scalar == false {
		p.raw(`<div class="muted">No other fields.</div>`)
	}
}
