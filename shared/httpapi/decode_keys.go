package httpapi

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/giftcampaign/service/shared/gifting"
)

// exactKeys reports a field of body whose name matches a field of v only
// when letter case is ignored. encoding/json matches names that way
// ({"nAme": …} fills Name), while the API document, and so every client
// generated from it, knows only the exact names: a misspelt field must be
// refused like any other unknown field, not silently accepted.
func exactKeys(body []byte, v any) error {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil // the real decode reports it
	}
	if field := inexactKey(doc, reflect.TypeOf(v), ""); field != "" {
		var p gifting.Problems
		p.Add(field, "is not a field of this request (field names are case-sensitive)")
		return p.Err()
	}
	return nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// inexactKey walks the decoded value along type t and returns the path of
// the first object key that names a field of t only case-insensitively.
func inexactKey(value any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return ""
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := value.(map[string]any)
		if !ok {
			return ""
		}
		fields := jsonFields(t)
		for key, v := range obj {
			if f, ok := fields[key]; ok {
				if bad := inexactKey(v, f, join(path, key)); bad != "" {
					return bad
				}
				continue
			}
			for name := range fields {
				if strings.EqualFold(name, key) {
					return join(path, key)
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if items, ok := value.([]any); ok {
			for i, v := range items {
				if bad := inexactKey(v, t.Elem(), path+"["+strconv.Itoa(i)+"]"); bad != "" {
					return bad
				}
			}
		}
	case reflect.Map:
		if obj, ok := value.(map[string]any); ok {
			for key, v := range obj {
				if bad := inexactKey(v, t.Elem(), join(path, key)); bad != "" {
					return bad
				}
			}
		}
	}
	return ""
}

// jsonFields maps the JSON names of a struct's fields, those of embedded
// structs included, to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-":
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			for n, ft := range jsonFields(f.Type) {
				out[n] = ft
			}
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
