package main

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/giftcampaign/service/infra/iamcheck/calls"
)

// Function is a Lambda function of the converted template, in one
// scenario.
type Function struct {
	// Name is the function as the code names it (shared/lambdafn): the
	// logical id without "Function", lower-cased ("worker").
	Name      string
	LogicalID string
	// Env is its environment, resolved.
	Env map[string]string
	// Own are the statements of its Policies property (SAM names them
	// <LogicalID>RolePolicy<N>), checked both ways: every call must be
	// allowed and every grant used.
	Own []Statement
	// Platform are the role's other inline statements, which SAM adds for
	// Lambda's own work on an event source (a stream's on-failure queue);
	// a call may use them, and no call need.
	Platform []Statement
	// Managed are the role's managed policies (logs, X-Ray, the pollers of
	// the event sources), Lambda's own and not evaluated: a call they
	// alone would allow fails the check.
	Managed []string
}

// functions returns the template's Lambda functions in r's scenario, by
// Name.
func functions(t *Template, r *resolver) (map[string]*Function, error) {
	out := map[string]*Function{}
	for id, res := range t.Resources {
		if res.Type != "AWS::Lambda::Function" {
			continue
		}
		if ok, err := r.exists(res); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		f := &Function{Name: strings.ToLower(strings.TrimSuffix(id, "Function")), LogicalID: id, Env: map[string]string{}}
		if err := f.load(t, r, res); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		out[f.Name] = f
	}
	return out, nil
}

func (f *Function) load(t *Template, r *resolver, res Resource) error {
	env, err := r.value(res.Properties["Environment"])
	if err != nil {
		return fmt.Errorf("environment: %w", err)
	}
	if env, ok := env.(map[string]any); ok {
		vars, _ := env["Variables"].(map[string]any)
		for k, v := range vars {
			f.Env[k] = fmt.Sprint(v)
		}
	}
	roleID := ""
	roleRef, _ := res.Properties["Role"].(map[string]any)
	if att, ok := roleRef["Fn::GetAtt"].([]any); ok && len(att) == 2 {
		roleID, _ = att[0].(string)
	}
	role, ok := t.Resources[roleID]
	if !ok || role.Type != "AWS::IAM::Role" {
		return fmt.Errorf("its Role is not an AWS::IAM::Role of the template")
	}
	props, err := r.value(role.Properties)
	if err != nil {
		return fmt.Errorf("role %s: %w", roleID, err)
	}
	p, _ := props.(map[string]any)
	if f.Managed, err = optionalStrings(p["ManagedPolicyArns"]); err != nil {
		return fmt.Errorf("role %s, ManagedPolicyArns: %w", roleID, err)
	}
	own := regexp.MustCompile("^" + regexp.QuoteMeta(f.LogicalID) + `RolePolicy\d+$`)
	policies, _ := p["Policies"].([]any)
	for _, e := range policies {
		pol, _ := e.(map[string]any)
		name, _ := pol["PolicyName"].(string)
		sts, err := statements(name, pol["PolicyDocument"])
		if err != nil {
			return err
		}
		if own.MatchString(name) {
			f.Own = append(f.Own, sts...)
		} else {
			f.Platform = append(f.Platform, sts...)
		}
	}
	return nil
}

func optionalStrings(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	return strings1(v)
}

// statements returns every statement that applies to f's calls.
func (f *Function) statements() []Statement {
	return append(append([]Statement(nil), f.Own...), f.Platform...)
}

// arn returns the ARN of the resource c names, as f has it deployed: each
// kind of resource is the one f's environment names (the tests' tables,
// queues and addresses are their own). skip, when set, says why the call
// does not happen in this scenario at all.
func (f *Function) arn(c calls.Call, sc Scenario) (arn, skip string, err error) {
	env := func(name string) string { return f.Env[name] }
	switch c.Resource.Kind {
	case calls.KindTable, calls.KindIndex:
		table := env("TABLE_NAME")
		if table == "" {
			return "", "", fmt.Errorf("%s has no TABLE_NAME", f.LogicalID)
		}
		arn = fmt.Sprintf(arnFormat["AWS::DynamoDB::Table"], table)
		if c.Resource.Kind == calls.KindIndex {
			arn += "/index/" + c.Resource.Name
		}
		return arn, "", nil
	case calls.KindQueue:
		u, err := url.Parse(env("JOBS_QUEUE_URL"))
		if err != nil || u.Host == "" {
			return "", "JOBS_QUEUE_URL is empty: no queue", nil
		}
		acct, name := path.Split(strings.Trim(u.Path, "/"))
		host := strings.Split(u.Host, ".")
		if len(host) < 2 {
			return "", "", fmt.Errorf("%s: JOBS_QUEUE_URL %q is not an SQS queue's URL", f.LogicalID, u)
		}
		return fmt.Sprintf("arn:aws:sqs:%s:%s:%s", host[1], strings.Trim(acct, "/"), name), "", nil
	case calls.KindIdentity:
		if env("SENDER_ADDRESS") == "" {
			return "", "SENDER_ADDRESS is empty: no mailer, no email", nil
		}
		if sc.Identity == "" {
			return "", "", fmt.Errorf("scenario %s sends mail but names no SES identity", sc.Name)
		}
		return fmt.Sprintf("arn:aws:ses:%s:%s:identity/%s", region, account, sc.Identity), "", nil
	case calls.KindConfigurationSet:
		if env("SENDER_ADDRESS") == "" {
			return "", "SENDER_ADDRESS is empty: no mailer, no email", nil
		}
		set := env("SES_CONFIGURATION_SET")
		if set == "" {
			return "", "SES_CONFIGURATION_SET is empty: an email names no configuration set", nil
		}
		return fmt.Sprintf(arnFormat["AWS::SES::ConfigurationSet"], set), "", nil
	case calls.KindKey:
		key := env("KMS_KEY_ID")
		if !strings.HasPrefix(key, "arn:") {
			return "", "", fmt.Errorf("%s: KMS_KEY_ID %q is not a key's ARN", f.LogicalID, key)
		}
		return key, "", nil
	case calls.KindObject:
		bucket := env("IMPORTS_BUCKET")
		if bucket == "" {
			return "", "", fmt.Errorf("%s has no IMPORTS_BUCKET", f.LogicalID)
		}
		return fmt.Sprintf(arnFormat["AWS::S3::Bucket"], bucket) + "/" + c.Resource.Name + "/object", "", nil
	}
	return "", "", fmt.Errorf("the recorder does not know the resources of %s (%s): teach infra/iamcheck/calls (needs.go) and this check's Function.arn",
		c.Operation, c.Action)
}

// candidates returns the ARNs of the stack's resources in r's scenario
// (tables with their indexes, queues, topics, configuration sets, the SES
// identity), sorted: what a wildcard in a policy can reach.
func candidates(t *Template, r *resolver, sc Scenario) ([]string, error) {
	var out []string
	for id, res := range t.Resources {
		if _, known := arnFormat[res.Type]; !known {
			continue
		}
		if ok, err := r.exists(res); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue
		}
		arn, err := r.arn(id, res)
		if err != nil {
			return nil, err
		}
		out = append(out, arn)
		for _, key := range []string{"GlobalSecondaryIndexes", "LocalSecondaryIndexes"} {
			indexes, _ := res.Properties[key].([]any)
			for _, ix := range indexes {
				if name, ok := ix.(map[string]any)["IndexName"].(string); ok {
					out = append(out, arn+"/index/"+name)
				}
			}
		}
	}
	if sc.Identity != "" {
		out = append(out, fmt.Sprintf("arn:aws:ses:%s:%s:identity/%s", region, account, sc.Identity))
	}
	sort.Strings(out)
	return out, nil
}
