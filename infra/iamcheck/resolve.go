package main

import (
	"fmt"
	"regexp"
	"strings"
)

// noValue is what AWS::NoValue resolves to: the value is left out of the
// list or object that holds it.
type noValue struct{}

// resolver resolves the intrinsic functions of a template for one
// scenario: Ref, Fn::GetAtt, Fn::Sub, Fn::If, Fn::Join, Fn::Select and the
// condition functions, as CloudFormation does; physical names and ARNs
// are those CloudFormation gives the resources (from their names).
type resolver struct {
	t     *Template
	sc    Scenario
	conds map[string]bool
}

func newResolver(t *Template, sc Scenario) *resolver {
	return &resolver{t: t, sc: sc, conds: map[string]bool{}}
}

// param returns a parameter's value: the scenario's, else its default.
func (r *resolver) param(name string) (string, bool) {
	if v, ok := r.sc.Params[name]; ok {
		return v, true
	}
	p, ok := r.t.Parameters[name]
	if !ok {
		return "", false
	}
	if p.Default == nil {
		return "", true
	}
	return fmt.Sprint(p.Default), true
}

// condition evaluates a named condition of the template.
func (r *resolver) condition(name string) (bool, error) {
	if v, ok := r.conds[name]; ok {
		return v, nil
	}
	expr, ok := r.t.Conditions[name]
	if !ok {
		return false, fmt.Errorf("no condition %q", name)
	}
	v, err := r.boolean(expr)
	if err != nil {
		return false, fmt.Errorf("condition %s: %w", name, err)
	}
	r.conds[name] = v
	return v, nil
}

// exists reports whether a resource is created in this scenario.
func (r *resolver) exists(res Resource) (bool, error) {
	if res.Condition == "" {
		return true, nil
	}
	return r.condition(res.Condition)
}

func (r *resolver) boolean(expr any) (bool, error) {
	m, ok := expr.(map[string]any)
	if !ok || len(m) != 1 {
		return false, fmt.Errorf("not a condition: %v", expr)
	}
	for fn, arg := range m {
		args, _ := arg.([]any)
		switch fn {
		case "Condition":
			name, _ := arg.(string)
			return r.condition(name)
		case "Fn::Equals":
			if len(args) != 2 {
				return false, fmt.Errorf("Fn::Equals needs two values")
			}
			a, err := r.str(args[0])
			if err != nil {
				return false, err
			}
			b, err := r.str(args[1])
			return a == b, err
		case "Fn::Not", "Fn::And", "Fn::Or":
			all, any := true, false
			for _, a := range args {
				v, err := r.boolean(a)
				if err != nil {
					return false, err
				}
				all, any = all && v, any || v
			}
			switch fn {
			case "Fn::Not":
				return !all, nil
			case "Fn::And":
				return all, nil
			}
			return any, nil
		}
		return false, fmt.Errorf("unsupported condition function %s", fn)
	}
	return false, nil
}

// str resolves v and requires a string.
func (r *resolver) str(v any) (string, error) {
	out, err := r.value(v)
	if err != nil {
		return "", err
	}
	s, ok := out.(string)
	if !ok {
		return "", fmt.Errorf("not a string: %v", out)
	}
	return s, nil
}

// value resolves every intrinsic function in v.
func (r *resolver) value(v any) (any, error) {
	switch v := v.(type) {
	case []any:
		out := make([]any, 0, len(v))
		for _, e := range v {
			x, err := r.value(e)
			if err != nil {
				return nil, err
			}
			if _, gone := x.(noValue); !gone {
				out = append(out, x)
			}
		}
		return out, nil
	case map[string]any:
		if len(v) == 1 {
			for k, arg := range v {
				if k == "Ref" || strings.HasPrefix(k, "Fn::") {
					return r.intrinsic(k, arg)
				}
			}
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			x, err := r.value(e)
			if err != nil {
				return nil, err
			}
			if _, gone := x.(noValue); !gone {
				out[k] = x
			}
		}
		return out, nil
	}
	return v, nil
}

func (r *resolver) intrinsic(fn string, arg any) (any, error) {
	args, _ := arg.([]any)
	switch fn {
	case "Ref":
		name, _ := arg.(string)
		return r.ref(name)
	case "Fn::GetAtt":
		var res, attr string
		switch a := arg.(type) {
		case string:
			res, attr, _ = strings.Cut(a, ".")
		case []any:
			if len(a) == 2 {
				res, _ = a[0].(string)
				attr, _ = a[1].(string)
			}
		}
		return r.getAtt(res, attr)
	case "Fn::Sub":
		return r.sub(arg)
	case "Fn::If":
		if len(args) != 3 {
			return nil, fmt.Errorf("Fn::If needs three values")
		}
		name, _ := args[0].(string)
		ok, err := r.condition(name)
		if err != nil {
			return nil, err
		}
		if ok {
			return r.value(args[1])
		}
		return r.value(args[2])
	case "Fn::Join", "Fn::Select":
		if len(args) != 2 {
			return nil, fmt.Errorf("%s needs two values", fn)
		}
		list, err := r.value(args[1])
		if err != nil {
			return nil, err
		}
		items, _ := list.([]any)
		if fn == "Fn::Join" {
			return join(args[0], items), nil
		}
		var i int
		if _, err := fmt.Sscan(fmt.Sprint(args[0]), &i); err != nil || i < 0 || i >= len(items) {
			return nil, fmt.Errorf("Fn::Select index %v out of range", args[0])
		}
		return items[i], nil
	}
	return nil, fmt.Errorf("unsupported intrinsic function %s", fn)
}

// join is Fn::Join of items with the delimiter sep.
func join(sep any, items []any) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = fmt.Sprint(it)
	}
	d, _ := sep.(string)
	return strings.Join(parts, d)
}

var subVar = regexp.MustCompile(`\$\{(!?)([^}]*)\}`)

// sub resolves Fn::Sub: ${Param}, ${Resource}, ${Resource.Attr}, a
// pseudo parameter, or a variable of its map; ${!x} is a literal ${x}.
func (r *resolver) sub(arg any) (any, error) {
	var text string
	vars := map[string]any{}
	switch a := arg.(type) {
	case string:
		text = a
	case []any:
		if len(a) != 2 {
			return nil, fmt.Errorf("Fn::Sub needs a string and a map")
		}
		text, _ = a[0].(string)
		m, _ := a[1].(map[string]any)
		for k, v := range m {
			x, err := r.value(v)
			if err != nil {
				return nil, err
			}
			vars[k] = x
		}
	}
	var firstErr error
	out := subVar.ReplaceAllStringFunc(text, func(m string) string {
		g := subVar.FindStringSubmatch(m)
		if g[1] == "!" {
			return "${" + g[2] + "}"
		}
		var v any
		var err error
		if x, ok := vars[g[2]]; ok {
			v = x
		} else if res, attr, dotted := strings.Cut(g[2], "."); dotted {
			v, err = r.getAtt(res, attr)
		} else {
			v, err = r.ref(g[2])
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return fmt.Sprint(v)
	})
	return out, firstErr
}

func (r *resolver) ref(name string) (any, error) {
	switch name {
	case "AWS::Region":
		return region, nil
	case "AWS::AccountId":
		return account, nil
	case "AWS::Partition":
		return partition, nil
	case "AWS::StackName":
		return stackName, nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::NoValue":
		return noValue{}, nil
	}
	if v, ok := r.param(name); ok {
		return v, nil
	}
	res, ok := r.t.Resources[name]
	if !ok {
		return nil, fmt.Errorf("the Ref of %s: no such parameter or resource", name)
	}
	switch res.Type {
	case "AWS::DynamoDB::Table", "AWS::SES::ConfigurationSet", "AWS::Lambda::Function", "AWS::KMS::Key", "AWS::S3::Bucket":
		return r.name(name, res)
	case "AWS::SQS::Queue":
		n, err := r.name(name, res)
		return fmt.Sprintf("https://sqs.%s.amazonaws.com/%s/%s", region, account, n), err
	case "AWS::SNS::Topic":
		return r.arn(name, res)
	case "AWS::IAM::ManagedPolicy":
		// A policy of the stack attached to a role (the deploy hooks'
		// DeployHookPolicy): it counts among the role's managed policies,
		// which the check does not evaluate.
		return fmt.Sprintf("arn:%s:iam::%s:policy/%s", partition, account, name), nil
	}
	return nil, fmt.Errorf("the Ref of %s: resources of type %s are not resolved", name, res.Type)
}

func (r *resolver) getAtt(name, attr string) (any, error) {
	res, ok := r.t.Resources[name]
	if !ok {
		return nil, fmt.Errorf("Fn::GetAtt %s.%s: no such resource", name, attr)
	}
	switch {
	case attr == "Arn":
		return r.arn(name, res)
	case res.Type == "AWS::DynamoDB::Table" && attr == "StreamArn":
		arn, err := r.arn(name, res)
		return arn + "/stream/2000-01-01T00:00:00.000", err
	case res.Type == "AWS::SQS::Queue" && attr == "QueueName":
		return r.name(name, res)
	case res.Type == "AWS::SQS::Queue" && attr == "QueueUrl":
		return r.ref(name)
	}
	return nil, fmt.Errorf("Fn::GetAtt %s.%s: attribute of %s not resolved", name, attr, res.Type)
}
