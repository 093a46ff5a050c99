package rie

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// eval resolves a value of the template: a plain scalar, or the intrinsic functions a function's
// settings use (Ref, Sub, If, GetAtt, Join), in the short (!Ref) or the long (Ref:, Fn::Sub:) form.
func (t *Template) eval(n *yaml.Node) (string, error) {
	if n == nil {
		return "", nil
	}
	tag, arg := intrinsic(n)
	switch tag {
	case "":
		if n.Kind != yaml.ScalarNode {
			return "", fmt.Errorf("not a string: %s", describe(n))
		}
		return n.Value, nil
	case "Ref":
		return t.ref(arg.Value)
	case "GetAtt":
		target := arg.Value
		if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
			target = arg.Content[0].Value + "." + arg.Content[1].Value
		}
		return t.getAtt(target), nil
	case "Sub":
		if arg.Kind == yaml.SequenceNode && len(arg.Content) == 2 {
			vars := map[string]string{}
			var err error
			eachPair(arg.Content[1], func(k string, v *yaml.Node) {
				if err == nil {
					vars[k], err = t.eval(v)
				}
			})
			if err != nil {
				return "", err
			}
			return t.sub(arg.Content[0].Value, vars)
		}
		return t.sub(arg.Value, nil)
	case "If":
		if arg.Kind != yaml.SequenceNode || len(arg.Content) != 3 {
			return "", fmt.Errorf("Fn::If wants [condition, then, else]: %s", describe(n))
		}
		ok, err := t.condition(arg.Content[0].Value)
		if err != nil {
			return "", err
		}
		if ok {
			return t.eval(arg.Content[1])
		}
		return t.eval(arg.Content[2])
	case "Join":
		if arg.Kind != yaml.SequenceNode || len(arg.Content) != 2 {
			return "", fmt.Errorf("Fn::Join wants [separator, list]: %s", describe(n))
		}
		var parts []string
		for _, p := range arg.Content[1].Content {
			s, err := t.eval(p)
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, arg.Content[0].Value), nil
	}
	return "", fmt.Errorf("the RIE environment cannot resolve Fn::%s (%s): teach infra/rie/intrinsics.go", tag, describe(n))
}

// intrinsic returns the name of the intrinsic function n calls (Ref, Sub, If, …) and its argument, or
// "" for a plain value.
func intrinsic(n *yaml.Node) (string, *yaml.Node) {
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		return strings.TrimPrefix(n.Tag, "!"), n
	}
	if n.Kind == yaml.MappingNode && len(n.Content) == 2 {
		if k := n.Content[0].Value; k == "Ref" || strings.HasPrefix(k, "Fn::") {
			return strings.TrimPrefix(k, "Fn::"), n.Content[1]
		}
	}
	return "", n
}

// ref is a Ref's value: a pseudo parameter, a parameter, or a resource's physical id.
func (t *Template) ref(name string) (string, error) {
	switch name {
	case "AWS::Region":
		return region, nil
	case "AWS::AccountId":
		return accountID, nil
	case "AWS::Partition":
		return "aws", nil
	case "AWS::URLSuffix":
		return "amazonaws.com", nil
	case "AWS::StackName":
		return "gift-campaigns-" + t.params["Stage"], nil
	}
	if v, ok := t.params[name]; ok {
		return v, nil
	}
	if v, ok := t.refs[name]; ok {
		return v, nil
	}
	res, ok := t.resources[name]
	if !ok {
		return "", fmt.Errorf("!Ref %s: no such parameter or resource", name)
	}
	props := lookup(res, "Properties")
	named := func(prop string) string {
		if v, err := t.eval(lookup(props, prop)); err == nil && v != "" {
			return v
		}
		return name
	}
	// What CloudFormation's Ref returns for the types a function's environment names.
	switch scalar(lookup(res, "Type")) {
	case "AWS::SQS::Queue":
		return fmt.Sprintf("https://sqs.%s.amazonaws.com/%s/%s", region, accountID, named("QueueName")), nil
	case "AWS::SNS::Topic":
		return fmt.Sprintf("arn:aws:sns:%s:%s:%s", region, accountID, named("TopicName")), nil
	case "AWS::DynamoDB::Table":
		return named("TableName"), nil
	}
	return name, nil
}

// getAtt is a stand-in for a resource's attribute ("Queue.Arn"): an ARN of the resource's logical id.
func (t *Template) getAtt(target string) string {
	id, attr, _ := strings.Cut(target, ".")
	if attr == "Arn" {
		return fmt.Sprintf("arn:aws:cloudformation:%s:%s:resource/%s", region, accountID, id)
	}
	return id + "-" + attr
}

// sub is Fn::Sub of s: ${Name} and ${Resource.Attr} resolved, from vars first; ${!x} is a literal ${x}.
func (t *Template) sub(s string, vars map[string]string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.Index(s[i:], "}")
		if j < 0 {
			return "", fmt.Errorf("Fn::Sub %q: unclosed ${", s)
		}
		b.WriteString(s[:i])
		name := s[i+2 : i+j]
		switch v, ok := vars[name]; {
		case strings.HasPrefix(name, "!"):
			b.WriteString("${" + name[1:] + "}")
		case ok:
			b.WriteString(v)
		case strings.Contains(name, ".") && !strings.HasPrefix(name, "AWS::"):
			b.WriteString(t.getAtt(name))
		default:
			v, err := t.ref(name)
			if err != nil {
				return "", err
			}
			b.WriteString(v)
		}
		s = s[i+j+1:]
	}
}

// condition evaluates the template's condition name.
func (t *Template) condition(name string) (bool, error) {
	if v, ok := t.decided[name]; ok {
		return v, nil
	}
	n, ok := t.conditions[name]
	if !ok {
		return false, fmt.Errorf("no condition %s", name)
	}
	v, err := t.test(n)
	t.decided[name] = v
	return v, err
}

// test evaluates a condition function: Equals, Not, And, Or, Condition.
func (t *Template) test(n *yaml.Node) (bool, error) {
	tag, arg := intrinsic(n)
	if tag == "Condition" {
		return t.condition(arg.Value)
	}
	if arg.Kind != yaml.SequenceNode {
		return false, fmt.Errorf("a condition wants a list: %s", describe(n))
	}
	switch tag {
	case "Equals":
		if len(arg.Content) != 2 {
			return false, fmt.Errorf("Fn::Equals wants two values: %s", describe(n))
		}
		a, err := t.eval(arg.Content[0])
		if err != nil {
			return false, err
		}
		b, err := t.eval(arg.Content[1])
		return a == b, err
	case "Not", "And", "Or":
		all, some := true, false
		for _, c := range arg.Content {
			v, err := t.test(c)
			if err != nil {
				return false, err
			}
			all, some = all && v, some || v
		}
		return map[string]bool{"Not": !all, "And": all, "Or": some}[tag], nil
	}
	return false, fmt.Errorf("the RIE environment cannot evaluate the condition Fn::%s: teach infra/rie/intrinsics.go", tag)
}
