package deployhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	cdtypes "github.com/aws/aws-sdk-go-v2/service/codedeploy/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	ltypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/giftcampaign/service/shared/app"
	"github.com/giftcampaign/service/shared/app/site"
	"github.com/giftcampaign/service/shared/deployhook"
	"github.com/giftcampaign/service/shared/dynamo"
	"github.com/giftcampaign/service/shared/httpapi"
	"github.com/giftcampaign/service/shared/jobs"
	"github.com/giftcampaign/service/shared/scheduler"
	"github.com/giftcampaign/service/shared/service"
	"github.com/giftcampaign/service/shared/testenv"
)

// The tests run the hook against the service's real handlers, over
// DynamoDB Local, behind fakes of the three AWS APIs the hook calls (which
// no emulator here provides): Lambda's Invoke passes the payload to the
// handler the way the Lambda runtime does, CodeDeploy serves one
// deployment's AppSpec and records the reports, SSM holds the canary key.

const prefix = "gift-campaigns-test-"

// handler is a function as Lambda runs it: a payload in, a payload or a
// function error out.
type handler func(ctx context.Context, payload []byte) ([]byte, error)

// httpFunction is an HTTP function: the adapter every API function's main
// uses, in front of h.
func httpFunction(h http.Handler) handler {
	proxy := httpadapter.NewV2(h).ProxyWithContext
	return func(ctx context.Context, payload []byte) ([]byte, error) {
		var ev events.APIGatewayV2HTTPRequest
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, err
		}
		res, err := proxy(ctx, ev)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
}

// fakeLambda runs the functions of one stage and records what was invoked.
type fakeLambda struct {
	mu        sync.Mutex
	functions map[string]handler
	alias     lambda.GetAliasOutput
	invoked   []string
}

func (f *fakeLambda) Invoke(ctx context.Context, in *lambda.InvokeInput, _ ...func(*lambda.Options)) (*lambda.InvokeOutput, error) {
	f.mu.Lock()
	f.invoked = append(f.invoked, aws.ToString(in.FunctionName)+":"+aws.ToString(in.Qualifier))
	h, ok := f.functions[aws.ToString(in.FunctionName)]
	f.mu.Unlock()
	if !ok {
		return nil, &ltypes.ResourceNotFoundException{Message: aws.String("Function not found")}
	}
	out, err := h(ctx, in.Payload)
	if err != nil {
		// As the Lambda runtime reports a handler's error.
		payload, _ := json.Marshal(map[string]string{"errorType": "errorString", "errorMessage": err.Error()})
		return &lambda.InvokeOutput{StatusCode: 200, FunctionError: aws.String("Unhandled"), Payload: payload}, nil
	}
	return &lambda.InvokeOutput{StatusCode: 200, Payload: out}, nil
}

func (f *fakeLambda) GetAlias(_ context.Context, in *lambda.GetAliasInput, _ ...func(*lambda.Options)) (*lambda.GetAliasOutput, error) {
	out := f.alias
	out.Name = in.Name
	return &out, nil
}

// fakeCodeDeploy serves one deployment of target and records the reports.
type fakeCodeDeploy struct {
	target deployhook.Target
	// stringRevision serves the AppSpec as a String revision, as
	// CloudFormation's deployments have.
	stringRevision bool
	mu             sync.Mutex
	reported       []cdtypes.LifecycleEventStatus
	putErr         error
}

func (f *fakeCodeDeploy) GetDeployment(_ context.Context, in *codedeploy.GetDeploymentInput, _ ...func(*codedeploy.Options)) (*codedeploy.GetDeploymentOutput, error) {
	if aws.ToString(in.DeploymentId) != "d-TEST" {
		return nil, &cdtypes.DeploymentDoesNotExistException{Message: aws.String("no such deployment")}
	}
	return &codedeploy.GetDeploymentOutput{DeploymentInfo: &cdtypes.DeploymentInfo{
		ApplicationName: aws.String("gift-campaign-service-ServerlessDeploymentApplication-X"),
		ComputePlatform: cdtypes.ComputePlatformLambda,
		Revision:        &cdtypes.RevisionLocation{RevisionType: cdtypes.RevisionLocationTypeAppSpecContent, AppSpecContent: &cdtypes.AppSpecContent{Sha256: aws.String("x")}},
	}}, nil
}

func (f *fakeCodeDeploy) GetApplicationRevision(_ context.Context, in *codedeploy.GetApplicationRevisionInput, _ ...func(*codedeploy.Options)) (*codedeploy.GetApplicationRevisionOutput, error) {
	t := f.target
	content := fmt.Sprintf(`{"version":0.0,"Resources":[{"%s":{"Type":"AWS::Lambda::Function","Properties":`+
		`{"Name":"%[1]s","Alias":"%s","CurrentVersion":"%s","TargetVersion":"%s"}}}]}`, t.Function, t.Alias, t.CurrentVersion, t.TargetVersion)
	rev := &cdtypes.RevisionLocation{RevisionType: cdtypes.RevisionLocationTypeAppSpecContent, AppSpecContent: &cdtypes.AppSpecContent{Content: aws.String(content)}}
	if f.stringRevision {
		//lint:ignore SA1019 the form CloudFormation's deployments have
		rev = &cdtypes.RevisionLocation{RevisionType: cdtypes.RevisionLocationTypeString, String_: &cdtypes.RawString{Content: aws.String(content)}}
	}
	return &codedeploy.GetApplicationRevisionOutput{ApplicationName: in.ApplicationName, Revision: rev}, nil
}

func (f *fakeCodeDeploy) PutLifecycleEventHookExecutionStatus(_ context.Context, in *codedeploy.PutLifecycleEventHookExecutionStatusInput, _ ...func(*codedeploy.Options)) (*codedeploy.PutLifecycleEventHookExecutionStatusOutput, error) {
	if f.putErr != nil {
		return nil, f.putErr
	}
	if aws.ToString(in.DeploymentId) != "d-TEST" || aws.ToString(in.LifecycleEventHookExecutionId) != "hook-1" {
		return nil, &cdtypes.InvalidLifecycleEventHookExecutionIdException{Message: aws.String("wrong ids")}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reported = append(f.reported, in.Status)
	return &codedeploy.PutLifecycleEventHookExecutionStatusOutput{}, nil
}

// fakeSSM holds parameters by name.
type fakeSSM map[string]string

func (f fakeSSM) GetParameter(_ context.Context, in *ssm.GetParameterInput, _ ...func(*ssm.Options)) (*ssm.GetParameterOutput, error) {
	v, ok := f[aws.ToString(in.Name)]
	if !ok || !aws.ToBool(in.WithDecryption) {
		return nil, &ssmtypes.ParameterNotFound{Message: aws.String("no such parameter")}
	}
	return &ssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: in.Name, Value: aws.String(v)}}, nil
}

// stage is the stage's functions over one table: the real handlers of the
// API groups, the pages and the worker.
func stage(t *testing.T, s *dynamo.Store) map[string]handler {
	t.Helper()
	svc := service.New(s, service.Config{PublicBaseURL: "https://gifts.test", Logger: testenv.Quiet})
	srv := httpapi.NewServer(s, svc, httpapi.Config{Logger: testenv.Quiet})
	functions := map[string]handler{prefix + "pages": httpFunction(site.New(s, testenv.Quiet))}
	for _, g := range httpapi.Groups {
		functions[prefix+g.String()] = httpFunction(srv.Handler(g))
	}
	// The operator function as deployed: no token, only the IAM
	// authorizer's identity lets a request through.
	functions[prefix+"operator"] = httpFunction(srv.Handler(httpapi.Operator))
	// The worker's handler as its main builds it.
	worker := jobs.WithChanges(jobs.WorkerHandler(svc.RunJob, jobs.NewLocal(testenv.Quiet), scheduler.New(s, svc.RunJob, testenv.Quiet).Tick,
		svc.HandleMailEvents, testenv.Quiet), app.ChangeStreamHandler(svc))
	functions[prefix+"worker"] = func(ctx context.Context, payload []byte) ([]byte, error) {
		res, err := worker(ctx, payload)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	}
	return functions
}

// run has a hook of phase check the deployment of function's version 7
// and returns what it reported, what it invoked and what it logged.
func run(t *testing.T, phase deployhook.Phase, functions map[string]handler, function string, params fakeSSM, alias lambda.GetAliasOutput) (reported []cdtypes.LifecycleEventStatus, invoked []string, log string) {
	t.Helper()
	lam := &fakeLambda{functions: functions, alias: alias}
	cd := &fakeCodeDeploy{target: deployhook.Target{Function: function, Alias: "live", CurrentVersion: "6", TargetVersion: "7"}}
	var buf bytes.Buffer
	h := &deployhook.Hook{Phase: phase, FunctionPrefix: prefix, Lambda: lam, CodeDeploy: cd, SSM: params,
		Log: slog.New(slog.NewJSONHandler(&buf, nil))}
	if len(params) > 0 {
		h.CanaryKeyParameter = "/gift-campaigns/test/canary-key"
	}
	if err := h.Handle(t.Context(), deployhook.Event{DeploymentID: "d-TEST", LifecycleEventHookExecutionID: "hook-1"}); err != nil {
		t.Fatal(err)
	}
	return cd.reported, lam.invoked, buf.String()
}

var (
	succeeded = []cdtypes.LifecycleEventStatus{cdtypes.LifecycleEventStatusSucceeded}
	failed    = []cdtypes.LifecycleEventStatus{cdtypes.LifecycleEventStatusFailed}
	moved     = lambda.GetAliasOutput{FunctionVersion: aws.String("7")}
)

// TestHookPassesHealthyVersions: every function of the stage, answering
// as the service does, passes both hooks; the pre-traffic hook invokes the
// new version by number, the post-traffic hook through the alias. With a
// canary key the API functions also answer a read with it.
func TestHookPassesHealthyVersions(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "canary", 0)
	functions := stage(t, s)
	for name := range functions {
		for _, tt := range []struct {
			phase     deployhook.Phase
			qualifier string
			params    fakeSSM
			probes    int
		}{
			{deployhook.PreTraffic, "7", nil, 1},
			{deployhook.PreTraffic, "7", fakeSSM{"/gift-campaigns/test/canary-key": key}, 2},
			{deployhook.PostTraffic, "live", fakeSSM{"/gift-campaigns/test/canary-key": key}, 2},
		} {
			t.Run(fmt.Sprintf("%s %s, %d probes", strings.TrimPrefix(name, prefix), tt.phase, tt.probes), func(t *testing.T) {
				t.Parallel()
				reported, invoked, log := run(t, tt.phase, functions, name, tt.params, moved)
				if !slices.Equal(reported, succeeded) {
					t.Fatalf("reported %v, want Succeeded; log:\n%s", reported, log)
				}
				want := tt.probes
				if strings.HasSuffix(name, "pages") || strings.HasSuffix(name, "worker") || strings.HasSuffix(name, "operator") {
					want = 1 // no keyed read: the pages, the worker and the operator API take no key
				}
				if len(invoked) != want || slices.ContainsFunc(invoked, func(q string) bool { return q != name+":"+tt.qualifier }) {
					t.Errorf("invoked %v, want %d calls of %s:%s", invoked, want, name, tt.qualifier)
				}
				if strings.Contains(log, key) {
					t.Errorf("the hook logged the canary key")
				}
			})
		}
	}
}

// TestHookFailsBadVersions: a version that crashes, cannot read its table,
// refuses the canary key, or answers a request without a key with anything
// but the documented 401 is reported Failed, which rolls the deployment
// back; so is a deployment the hook cannot check.
func TestHookFailsBadVersions(t *testing.T) {
	t.Parallel()
	s := testenv.Store(t)
	_, key := testenv.Org(t, s, "canary", 0)
	_, strangerKey := testenv.Org(t, testenv.Store(t), "elsewhere", 0)
	functions := stage(t, s)
	// A version whose table is not there (a wrong TABLE_NAME, say): its
	// routing and 401 work, every read fails.
	broken := dynamo.New(testenv.Client(t), "no-such-table")
	functions[prefix+"contacts"] = httpFunction(httpapi.NewServer(broken, service.New(broken, service.Config{Logger: testenv.Quiet}),
		httpapi.Config{Logger: testenv.Quiet}).Handler(httpapi.Contacts))
	functions[prefix+"events"] = func(context.Context, []byte) ([]byte, error) {
		return nil, errors.New("TABLE_NAME is not set")
	}
	// A version that serves the pages' handler in the catalog function:
	// no 401 at all.
	functions[prefix+"catalog"] = httpFunction(site.New(s, testenv.Quiet))
	canary := fakeSSM{"/gift-campaigns/test/canary-key": key}
	weighted := lambda.GetAliasOutput{FunctionVersion: aws.String("6"),
		RoutingConfig: &ltypes.AliasRoutingConfiguration{AdditionalVersionWeights: map[string]float64{"7": 0.1}}}
	for _, tt := range []struct {
		name, function string
		phase          deployhook.Phase
		params         fakeSSM
		alias          lambda.GetAliasOutput
		invokes        bool
		logged         string
	}{
		{"a version that cannot read its table", prefix + "contacts", deployhook.PreTraffic, canary, moved, true, "want 200"},
		{"a version that crashes", prefix + "events", deployhook.PreTraffic, nil, moved, true, "TABLE_NAME is not set"},
		{"a version without the 401", prefix + "catalog", deployhook.PreTraffic, nil, moved, true, "want 401"},
		{"a canary key the version does not know", prefix + "campaigns", deployhook.PreTraffic,
			fakeSSM{"/gift-campaigns/test/canary-key": strangerKey}, moved, true, "answered 401, want 200"},
		{"an unreadable canary key", prefix + "campaigns", deployhook.PreTraffic, fakeSSM{"/other": key}, moved, false, "read the canary key"},
		{"traffic still on the old version after the shift", prefix + "campaigns", deployhook.PostTraffic, nil, weighted, false, "names version 6"},
		{"a function of another stage", "gift-campaigns-prod-campaigns", deployhook.PreTraffic, nil, moved, false, "not a function of this stage"},
		{"a function with no probes", prefix + "reports", deployhook.PreTraffic, nil, moved, false, "no smoke probes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reported, invoked, log := run(t, tt.phase, functions, tt.function, tt.params, tt.alias)
			if !slices.Equal(reported, failed) {
				t.Fatalf("reported %v, want Failed; log:\n%s", reported, log)
			}
			if (len(invoked) > 0) != tt.invokes {
				t.Errorf("invoked %v; want invocations: %v", invoked, tt.invokes)
			}
			if !strings.Contains(log, tt.logged) {
				t.Errorf("the log does not say %q:\n%s", tt.logged, log)
			}
			if strings.Contains(log, key) || strings.Contains(log, strangerKey) {
				t.Errorf("the hook logged a key")
			}
		})
	}
}

// TestHookReadsAStringRevision: the AppSpec of a String revision (the
// form CloudFormation's deployments have used) is read as well.
func TestHookReadsAStringRevision(t *testing.T) {
	t.Parallel()
	cd := &fakeCodeDeploy{target: deployhook.Target{Function: prefix + "worker", Alias: "live", TargetVersion: "7"}, stringRevision: true}
	lam := &fakeLambda{functions: stage(t, testenv.Store(t))}
	h := &deployhook.Hook{Phase: deployhook.PreTraffic, FunctionPrefix: prefix, CodeDeploy: cd, Lambda: lam, Log: testenv.Quiet}
	if err := h.Handle(t.Context(), deployhook.Event{DeploymentID: "d-TEST", LifecycleEventHookExecutionID: "hook-1"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cd.reported, succeeded) || !slices.Equal(lam.invoked, []string{prefix + "worker:7"}) {
		t.Errorf("reported %v after invoking %v; want Succeeded after invoking the worker's version 7", cd.reported, lam.invoked)
	}
}

// TestHookReportFailureIsRetried: when the report does not reach
// CodeDeploy, the invocation fails, so Lambda runs the hook again rather
// than leave the deployment waiting an hour for a status.
func TestHookReportFailureIsRetried(t *testing.T) {
	t.Parallel()
	cd := &fakeCodeDeploy{target: deployhook.Target{Function: prefix + "worker", Alias: "live", TargetVersion: "7"},
		putErr: errors.New("ThrottlingException")}
	h := &deployhook.Hook{Phase: deployhook.PreTraffic, FunctionPrefix: prefix, CodeDeploy: cd, Log: testenv.Quiet,
		Lambda: &fakeLambda{functions: map[string]handler{prefix + "worker": func(context.Context, []byte) ([]byte, error) {
			return []byte(`{"batchItemFailures":null}`), nil
		}}}}
	err := h.Handle(t.Context(), deployhook.Event{DeploymentID: "d-TEST", LifecycleEventHookExecutionID: "hook-1"})
	if err == nil || !strings.Contains(err.Error(), "ThrottlingException") {
		t.Fatalf("Handle = %v, want the report's error", err)
	}
}
