package main

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Statement is one statement of an IAM policy, its intrinsics resolved.
type Statement struct {
	// Policy names the inline policy that holds it.
	Policy    string
	Allow     bool
	Actions   []string
	Resources []string
	// Conditional says the statement has a Condition, which the check
	// does not evaluate: it takes the condition as holding (the code's
	// calls are made to meet it, such as a KMS key's alias) and says so
	// in its notes.
	Conditional bool
}

// matches reports whether s speaks of action on arn: grants it, or for a
// Deny takes it away.
func (s Statement) matches(action, arn string) bool {
	return s.matchesAction(action) && s.matchesResource(arn)
}

func (s Statement) matchesAction(action string) bool {
	for _, a := range s.Actions {
		if actionMatches(a, action) {
			return true
		}
	}
	return false
}

func (s Statement) matchesResource(arn string) bool {
	for _, r := range s.Resources {
		if resourceMatches(r, arn) {
			return true
		}
	}
	return false
}

// allowed reports whether statements let action on arn happen: an Allow
// matches and no Deny does.
func allowed(statements []Statement, action, arn string) bool {
	ok := false
	for _, s := range statements {
		if s.matches(action, arn) {
			if !s.Allow {
				return false
			}
			ok = true
		}
	}
	return ok
}

// actionMatches applies IAM's rule for an Action pattern: the service
// prefix and the action name compared without regard to case, * matching
// any run of characters and ? any one.
func actionMatches(pattern, action string) bool {
	return glob(strings.ToLower(pattern), strings.ToLower(action))
}

// resourceMatches applies IAM's rule for a Resource pattern: * matches
// any run of characters within an ARN segment (the parts between colons)
// and ? any one character but a colon; a * that ends a segment may also
// reach past the colons after it. Case matters.
func resourceMatches(pattern, arn string) bool {
	re, ok := resourcePatterns.Load(pattern)
	if !ok {
		var b strings.Builder
		b.WriteString("^")
		for i := 0; i < len(pattern); i++ {
			switch c := pattern[i]; {
			case c == '*' && (i+1 == len(pattern) || pattern[i+1] == ':'):
				b.WriteString(".*")
			case c == '*':
				b.WriteString("[^:]*")
			case c == '?':
				b.WriteString("[^:]")
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
		b.WriteString("$")
		re, _ = resourcePatterns.LoadOrStore(pattern, regexp.MustCompile(b.String()))
	}
	return re.(*regexp.Regexp).MatchString(arn)
}

// resourcePatterns caches each Resource pattern's regular expression.
var resourcePatterns sync.Map

// glob matches s against a pattern of literal characters, * (any run,
// the empty one too) and ? (any one character).
func glob(pattern, s string) bool {
	// The classic two-pointer match, backtracking to the last *.
	p, i, star, mark := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p, i = p+1, i+1
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p, mark = star+1, mark+1
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// statements reads a resolved policy document.
func statements(policy string, doc any) ([]Statement, error) {
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("policy %s: not a document", policy)
	}
	raw := m["Statement"]
	list, ok := raw.([]any)
	if !ok {
		list = []any{raw}
	}
	var out []Statement
	for i, e := range list {
		st, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("policy %s, statement %d: not an object", policy, i)
		}
		// NotAction and NotResource turn a statement inside out: the check
		// refuses them rather than guess.
		for _, k := range []string{"NotAction", "NotResource"} {
			if _, has := st[k]; has {
				return nil, fmt.Errorf("policy %s, statement %d: %s is not supported by the check", policy, i, k)
			}
		}
		_, conditional := st["Condition"]
		s := Statement{Policy: policy, Allow: st["Effect"] == "Allow", Conditional: conditional}
		var err error
		if s.Actions, err = strings1(st["Action"]); err != nil {
			return nil, fmt.Errorf("policy %s, statement %d, Action: %w", policy, i, err)
		}
		if s.Resources, err = strings1(st["Resource"]); err != nil {
			return nil, fmt.Errorf("policy %s, statement %d, Resource: %w", policy, i, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// strings1 reads a string or a list of strings.
func strings1(v any) ([]string, error) {
	switch v := v.(type) {
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("not a string: %v", e)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("not a string or list: %v", v)
}
