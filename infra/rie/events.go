package rie

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Event is one event fixture under events/ (made by `make events` with sam local generate-event), and
// what kind of source sends it.
type Event struct {
	// File is the fixture's name under events/.
	File string
	Raw  []byte
	// Method and Path are an API Gateway HTTP API request's; Source is "API" for one, else the event
	// source that sends such events: "Schedule", "SQS", "SNS", "DynamoDB" or "CodeDeployHook".
	Source       string
	Method, Path string
}

// LoadEvents reads every fixture under root's events/, by name.
func LoadEvents(root string) ([]Event, error) {
	files, err := filepath.Glob(filepath.Join(root, "events", "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Event
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		ev, err := ParseEvent(filepath.Base(f), raw)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// ParseEvent reads the fixture file's raw event and tells its source by its shape, as the worker's handler does.
func ParseEvent(file string, raw []byte) (Event, error) {
	var probe struct {
		Version        string `json:"version"`
		RawPath        string `json:"rawPath"`
		RequestContext struct {
			HTTP struct {
				Method string `json:"method"`
			} `json:"http"`
		} `json:"requestContext"`
		Source       string `json:"source"`
		DetailType   string `json:"detail-type"`
		DeploymentID string `json:"DeploymentId"`
		HookID       string `json:"LifecycleEventHookExecutionId"`
		// SNS spells it EventSource, SQS and DynamoDB eventSource; Go matches either.
		Records []struct {
			EventSource string `json:"eventSource"`
		} `json:"Records"`
	}
	ev := Event{File: file, Raw: raw}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return ev, fmt.Errorf("events/%s: %w", file, err)
	}
	switch {
	case probe.Version == "2.0" && probe.RequestContext.HTTP.Method != "":
		ev.Source, ev.Method, ev.Path = "API", probe.RequestContext.HTTP.Method, probe.RawPath
	case probe.Source == "aws.events" && probe.DetailType == "Scheduled Event":
		ev.Source = "Schedule"
	case probe.DeploymentID != "" && probe.HookID != "":
		ev.Source = "CodeDeployHook"
	case len(probe.Records) > 0:
		sources := map[string]string{"aws:sqs": "SQS", "aws:sns": "SNS", "aws:dynamodb": "DynamoDB"}
		ev.Source = sources[probe.Records[0].EventSource]
	}
	if ev.Source == "" {
		return ev, fmt.Errorf("events/%s: not an event any of the template's event sources sends", file)
	}
	return ev, nil
}

// Target returns the function of fns that ev reaches: for an API request, the function of the route API
// Gateway would choose (literal path segments before path variables); for any other event, the one
// function with that event source.
func Target(fns []Function, ev Event) (Function, error) {
	var best *Function
	var bestRank []int
	for i := range fns {
		fn := &fns[i]
		if ev.Source != "API" {
			if !slices.Contains(fn.Sources, ev.Source) {
				continue
			}
			if best != nil {
				return Function{}, fmt.Errorf("events/%s: both %s and %s take %s events", ev.File, best.LogicalID, fn.LogicalID, ev.Source)
			}
			best = fn
			continue
		}
		for _, route := range fn.Routes {
			rank, ok := matchRoute(route, ev.Method, ev.Path)
			if ok && (best == nil || better(rank, bestRank)) {
				best, bestRank = fn, rank
			}
		}
	}
	if best == nil {
		return Function{}, fmt.Errorf("events/%s: no function of template.yaml takes this %s event %s %s", ev.File, ev.Source, ev.Method, ev.Path)
	}
	return *best, nil
}

// matchRoute reports whether route ("GET /gift/{pageId}") matches a request, with its rank: per segment,
// 0 for a literal, 1 for a variable, 2 for a greedy variable; lower ranks are more specific.
func matchRoute(route, method, path string) ([]int, bool) {
	m, p, _ := strings.Cut(route, " ")
	if m != method && m != "ANY" {
		return nil, false
	}
	want, got := strings.Split(strings.Trim(p, "/"), "/"), strings.Split(strings.Trim(path, "/"), "/")
	var rank []int
	for i, w := range want {
		switch {
		case strings.HasSuffix(w, "+}"):
			return append(rank, 2), len(got) > i
		case i >= len(got):
			return nil, false
		case strings.HasPrefix(w, "{"):
			rank = append(rank, 1)
		case w != got[i]:
			return nil, false
		default:
			rank = append(rank, 0)
		}
	}
	return rank, len(got) == len(want)
}

// better reports whether rank a is more specific than b: the first segment where they differ decides.
func better(a, b []int) bool {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) > len(b)
}

var placeholder = regexp.MustCompile(`\{\{[A-Z_]+\}\}`)

// Fill replaces the placeholders of a fixture ({{API_KEY}}, …) with values, each escaped as a JSON
// string's content (the placeholders stand inside strings), and fails on a placeholder left unfilled.
func Fill(raw []byte, values map[string]string) ([]byte, error) {
	s := string(raw)
	for k, v := range values {
		quoted, _ := json.Marshal(v) // a string always marshals
		s = strings.ReplaceAll(s, "{{"+k+"}}", string(quoted[1:len(quoted)-1]))
	}
	if left := placeholder.FindString(s); left != "" {
		return nil, fmt.Errorf("no value for %s", left)
	}
	return []byte(s), nil
}

// RuntimeEnv is the whole environment Lambda gives fn's bootstrap: its template environment, the
// runtime's own variables (region, credentials, name, memory, timeout), then overrides (emulators'
// endpoints, a test's table). The credentials are stand-ins, and any call to AWS itself goes to a proxy
// on a loopback port where nothing listens, so it fails here rather than leaving the machine.
func (fn Function) RuntimeEnv(overrides map[string]string) map[string]string {
	env := map[string]string{
		"AWS_REGION":                      region,
		"AWS_DEFAULT_REGION":              region,
		"AWS_ACCESS_KEY_ID":               "RIETESTACCESSKEY",
		"AWS_SECRET_ACCESS_KEY":           "rie-test-secret",
		"AWS_SESSION_TOKEN":               "rie-test-session",
		"AWS_LAMBDA_FUNCTION_NAME":        fn.FunctionName,
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": strconv.Itoa(fn.MemoryMB),
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     strconv.Itoa(int(fn.Timeout.Seconds())),
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "/aws/lambda/" + fn.FunctionName,
		"_HANDLER":                        "bootstrap",
		"TZ":                              ":UTC",
		"LANG":                            "en_US.UTF-8",
		"PATH":                            "/usr/local/bin:/usr/bin:/bin",
		"HTTP_PROXY":                      "http://127.0.0.1:1",
		"HTTPS_PROXY":                     "http://127.0.0.1:1",
		"NO_PROXY":                        "127.0.0.1,localhost",
	}
	for k, v := range fn.Env {
		env[k] = v
	}
	for k, v := range overrides {
		env[k] = v
	}
	return env
}
