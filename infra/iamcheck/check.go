package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/giftcampaign/service/infra/iamcheck/calls"
)

// Check holds a converted template against the recorded calls.
type Check struct {
	Template *Template
	Calls    []calls.Call
	// Links says, for each function, whether its binary has the client of
	// an IAM service prefix ("dynamodb", "ses", "sqs"); a function or
	// prefix it does not name counts as linked. A call of a service whose client the
	// function does not link does not happen in AWS: the use case's
	// enqueue or send fails, or is skipped, before reaching AWS (the
	// contacts function names no queue, and the scheduler finishes what
	// its enqueue would have started).
	Links map[string]map[string]bool
}

// Report is the outcome of one scenario.
type Report struct {
	Scenario Scenario
	// Problems fail the check: calls the policies do not allow, grants
	// no call uses, calls the check cannot place.
	Problems []string
	// Notes are recorded calls that do not happen in the scenario, and
	// why.
	Notes []string
}

// need is a recorded call placed in the stack: the action on an ARN.
type need struct {
	call calls.Call
	arn  string
}

func (n need) String() string {
	return fmt.Sprintf("%s (%s) on %s", n.call.Operation, n.call.Action, short(n.arn))
}

// Run checks every function of the template in scenario sc.
func (c Check) Run(sc Scenario) (Report, error) {
	rep := Report{Scenario: sc}
	r := newResolver(c.Template, sc)
	fns, err := functions(c.Template, r)
	if err != nil {
		return rep, err
	}
	stack, err := candidates(c.Template, r, sc)
	if err != nil {
		return rep, err
	}
	needs := map[string][]need{}
	for _, call := range c.Calls {
		f, ok := fns[call.Function]
		if !ok && conditional(c.Template, call.Function) {
			// A function this scenario does not create (OperatorFunction
			// without OperatorApi=on): another scenario checks its calls.
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s (%s) left out: the function is not created in this scenario",
				call.Function, call.Operation, call.Action))
			continue
		}
		if !ok {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %s (%s) is recorded for a function the template does not have",
				call.Function, call.Operation, call.Action))
			continue
		}
		service, _, _ := strings.Cut(call.Action, ":")
		if linked, known := c.Links[f.Name][service]; known && !linked {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s (%s) left out: its binary links no %s client", f.Name, call.Operation, call.Action, service))
			continue
		}
		arn, skip, err := f.arn(call, sc)
		switch {
		case err != nil:
			rep.Problems = append(rep.Problems, fmt.Sprintf("%s: %v", f.Name, err))
		case skip != "":
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: %s (%s) left out: %s", f.Name, call.Operation, call.Action, skip))
		default:
			needs[f.Name] = append(needs[f.Name], need{call, arn})
		}
	}
	names := make([]string, 0, len(fns))
	for name := range fns {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		f := fns[name]
		for _, s := range f.statements() {
			if s.Conditional {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: the condition of a statement of %s (%s) is taken as holding",
					f.Name, s.Policy, strings.Join(s.Actions, ", ")))
			}
		}
		rep.Problems = append(rep.Problems, denied(f, needs[name])...)
		rep.Problems = append(rep.Problems, unused(f, needs[name], stack)...)
	}
	rep.Notes = slices.Compact(rep.Notes)
	return rep, nil
}

// denied lists the calls f's policies do not allow.
func denied(f *Function, needs []need) []string {
	var out []string
	all := f.statements()
	for _, n := range needs {
		if !allowed(all, n.call.Action, n.arn) {
			seen := ""
			if n.call.Seen != "" {
				seen = " (a call seen in " + n.call.Seen + ")"
			}
			out = append(out, fmt.Sprintf("%s: DENIED %s — %s's policies do not allow it%s", f.Name, n, f.LogicalID, seen))
		}
	}
	return out
}

// unused lists what f's own statements grant that no call needs: a
// statement no call uses at all, the actions no call uses on one of its
// resources (an item action granted on an index, say), and the stack's
// resources a wildcard reaches that no call uses.
func unused(f *Function, needs []need, stack []string) []string {
	var out []string
	for _, s := range f.Own {
		if !s.Allow {
			continue
		}
		if !slices.ContainsFunc(needs, func(n need) bool { return s.matches(n.call.Action, n.arn) }) {
			out = append(out, fmt.Sprintf("%s: UNUSED %s on %s (%s): no recorded call uses any of it",
				f.Name, strings.Join(s.Actions, ", "), shortAll(s.Resources), s.Policy))
			continue
		}
		for _, res := range s.Resources {
			usedOn := func(action, arn string) bool {
				return slices.ContainsFunc(needs, func(n need) bool { return actionMatches(action, n.call.Action) && resourceMatches(arn, n.arn) })
			}
			var idle []string
			for _, a := range s.Actions {
				if !usedOn(a, res) {
					idle = append(idle, a)
				}
			}
			if len(idle) > 0 {
				out = append(out, fmt.Sprintf("%s: UNUSED %s on %s (%s): no recorded call uses it there",
					f.Name, strings.Join(idle, ", "), short(res), s.Policy))
			}
			if len(idle) == len(s.Actions) || !strings.ContainsAny(res, "*?") {
				continue
			}
			var wide []string
			for _, arn := range stack {
				if resourceMatches(res, arn) && !slices.ContainsFunc(s.Actions, func(a string) bool { return usedOn(a, arn) }) {
					wide = append(wide, arn)
				}
			}
			if len(wide) > 0 {
				out = append(out, fmt.Sprintf("%s: WIDER %s (%s) reaches %s, which no recorded call of its actions uses",
					f.Name, short(res), s.Policy, shortAll(wide)))
			}
		}
	}
	return out
}

// short is an ARN of the stack without its partition, region and account,
// which every one shares: "dynamodb:table/gift-campaigns-prod".
func short(arn string) string {
	p := strings.SplitN(arn, ":", 6)
	if len(p) != 6 || p[0] != "arn" {
		return arn
	}
	return p[2] + ":" + p[5]
}

func shortAll(arns []string) string {
	out := make([]string, len(arns))
	for i, a := range arns {
		out[i] = short(a)
	}
	return strings.Join(out, ", ")
}

// conditional reports whether the template has the function name (as the
// code names it) under a condition.
func conditional(t *Template, name string) bool {
	for id, res := range t.Resources {
		if res.Type == "AWS::Lambda::Function" && res.Condition != "" && strings.EqualFold(strings.TrimSuffix(id, "Function"), name) {
			return true
		}
	}
	return false
}
