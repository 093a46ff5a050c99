package deployhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	cdtypes "github.com/aws/aws-sdk-go-v2/service/codedeploy/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
)

// Phase is when CodeDeploy runs a hook.
type Phase string

// The two hooks of a Lambda deployment.
const (
	// PreTraffic runs before any traffic moves: the new version is
	// invoked directly, by its number.
	PreTraffic Phase = "PreTraffic"
	// PostTraffic runs after all traffic has moved: the alias must name
	// the new version alone, and is invoked as clients invoke it.
	PostTraffic Phase = "PostTraffic"
)

// Event is CodeDeploy's invocation of a lifecycle hook.
type Event struct {
	DeploymentID                  string `json:"DeploymentId"`
	LifecycleEventHookExecutionID string `json:"LifecycleEventHookExecutionId"`
}

// LambdaAPI is what the hook asks of Lambda.
type LambdaAPI interface {
	Invoke(ctx context.Context, in *lambda.InvokeInput, opts ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
	GetAlias(ctx context.Context, in *lambda.GetAliasInput, opts ...func(*lambda.Options)) (*lambda.GetAliasOutput, error)
}

// CodeDeployAPI is what the hook asks of CodeDeploy.
type CodeDeployAPI interface {
	GetDeployment(ctx context.Context, in *codedeploy.GetDeploymentInput, opts ...func(*codedeploy.Options)) (*codedeploy.GetDeploymentOutput, error)
	GetApplicationRevision(ctx context.Context, in *codedeploy.GetApplicationRevisionInput, opts ...func(*codedeploy.Options)) (*codedeploy.GetApplicationRevisionOutput, error)
	PutLifecycleEventHookExecutionStatus(ctx context.Context, in *codedeploy.PutLifecycleEventHookExecutionStatusInput, opts ...func(*codedeploy.Options)) (*codedeploy.PutLifecycleEventHookExecutionStatusOutput, error)
}

// ParameterAPI is what the hook asks of SSM Parameter Store.
type ParameterAPI interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// Hook checks the new version of one deployment and reports to CodeDeploy.
type Hook struct {
	Phase Phase
	// FunctionPrefix is what the stage's function names start with
	// (gift-campaigns-<Stage>-); the rest is the function's group. A
	// deployment of any other function fails.
	FunctionPrefix string
	// CanaryKeyParameter, when set, names the SSM SecureString holding
	// the canary organization's API key.
	CanaryKeyParameter string
	Lambda             LambdaAPI
	CodeDeploy         CodeDeployAPI
	SSM                ParameterAPI
	Log                *slog.Logger
}

// Handle checks the deployment ev names and reports Succeeded or Failed.
// Any doubt (the deployment unreadable, the key unreadable) is a failure:
// an unchecked version does not take traffic. Only a failed report is
// returned, so Lambda retries the hook, which checks again.
func (h *Hook) Handle(ctx context.Context, ev Event) error {
	status := cdtypes.LifecycleEventStatusSucceeded
	if err := h.verify(ctx, ev.DeploymentID); err != nil {
		status = cdtypes.LifecycleEventStatusFailed
		h.Log.ErrorContext(ctx, "deployment check failed", slog.String("phase", string(h.Phase)),
			slog.String("deploymentId", ev.DeploymentID), slog.String("error", err.Error()))
	} else {
		h.Log.InfoContext(ctx, "deployment check passed", slog.String("phase", string(h.Phase)), slog.String("deploymentId", ev.DeploymentID))
	}
	_, err := h.CodeDeploy.PutLifecycleEventHookExecutionStatus(ctx, &codedeploy.PutLifecycleEventHookExecutionStatusInput{
		DeploymentId:                  aws.String(ev.DeploymentID),
		LifecycleEventHookExecutionId: aws.String(ev.LifecycleEventHookExecutionID),
		Status:                        status,
	})
	if err != nil {
		return fmt.Errorf("report %s for deployment %s: %w", status, ev.DeploymentID, err)
	}
	return nil
}

// verify runs the smoke probes against the deployment's new version (its
// number before traffic moves, the alias after) and returns every miss.
func (h *Hook) verify(ctx context.Context, deploymentID string) error {
	target, err := h.target(ctx, deploymentID)
	if err != nil {
		return err
	}
	group, ok := strings.CutPrefix(target.Function, h.FunctionPrefix)
	if !ok || h.FunctionPrefix == "" {
		return fmt.Errorf("the deployment moves %s, not a function of this stage (%s*)", target.Function, h.FunctionPrefix)
	}
	key, err := h.canaryKey(ctx)
	if err != nil {
		return err
	}
	probes, err := Probes(group, key)
	if err != nil {
		return err
	}
	qualifier := target.TargetVersion
	if h.Phase == PostTraffic {
		if err := h.aliasMoved(ctx, target); err != nil {
			return err
		}
		qualifier = target.Alias
	}
	var errs []error
	for _, p := range probes {
		if err := h.probe(ctx, target.Function, qualifier, p); err != nil {
			errs = append(errs, fmt.Errorf("%s:%s %s: %w", target.Function, qualifier, p.Name, err))
		}
	}
	return errors.Join(errs...)
}

// target reads the function and versions the deployment moves, from its
// revision's AppSpec.
func (h *Hook) target(ctx context.Context, deploymentID string) (Target, error) {
	d, err := h.CodeDeploy.GetDeployment(ctx, &codedeploy.GetDeploymentInput{DeploymentId: aws.String(deploymentID)})
	if err != nil {
		return Target{}, fmt.Errorf("read deployment %s: %w", deploymentID, err)
	}
	info := d.DeploymentInfo
	if info == nil || info.Revision == nil || info.ApplicationName == nil {
		return Target{}, fmt.Errorf("deployment %s has no application revision", deploymentID)
	}
	rev, err := h.CodeDeploy.GetApplicationRevision(ctx, &codedeploy.GetApplicationRevisionInput{
		ApplicationName: info.ApplicationName,
		Revision:        info.Revision,
	})
	if err != nil {
		return Target{}, fmt.Errorf("read the revision of deployment %s: %w", deploymentID, err)
	}
	var content string
	if r := rev.Revision; r != nil && r.AppSpecContent != nil {
		content = aws.ToString(r.AppSpecContent.Content)
	} else if r != nil {
		// CloudFormation's deployments have carried their AppSpec as a
		// String revision, which the API now calls deprecated.
		//lint:ignore SA1019 read what CloudFormation writes
		if raw := r.String_; raw != nil {
			content = aws.ToString(raw.Content)
		}
	}
	return ParseAppSpec(content)
}

// canaryKey reads the canary organization's key, or "" when none is
// configured.
func (h *Hook) canaryKey(ctx context.Context) (string, error) {
	if h.CanaryKeyParameter == "" {
		return "", nil
	}
	out, err := h.SSM.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(h.CanaryKeyParameter), WithDecryption: aws.Bool(true)})
	if err != nil {
		return "", fmt.Errorf("read the canary key %s: %w", h.CanaryKeyParameter, err)
	}
	if out.Parameter == nil || strings.TrimSpace(aws.ToString(out.Parameter.Value)) == "" {
		return "", fmt.Errorf("the canary key %s is empty", h.CanaryKeyParameter)
	}
	return strings.TrimSpace(aws.ToString(out.Parameter.Value)), nil
}

// aliasMoved checks that the alias names the target version and nothing
// else: after the last traffic shift no weight is left on the old one.
func (h *Hook) aliasMoved(ctx context.Context, t Target) error {
	a, err := h.Lambda.GetAlias(ctx, &lambda.GetAliasInput{FunctionName: aws.String(t.Function), Name: aws.String(t.Alias)})
	if err != nil {
		return fmt.Errorf("read alias %s of %s: %w", t.Alias, t.Function, err)
	}
	if v := aws.ToString(a.FunctionVersion); v != t.TargetVersion {
		return fmt.Errorf("alias %s of %s names version %s, want %s", t.Alias, t.Function, v, t.TargetVersion)
	}
	if a.RoutingConfig != nil && len(a.RoutingConfig.AdditionalVersionWeights) > 0 {
		return fmt.Errorf("alias %s of %s still sends traffic to %v", t.Alias, t.Function, a.RoutingConfig.AdditionalVersionWeights)
	}
	return nil
}

// probe invokes the function's qualifier with p's event and checks the
// answer. A function error (a crash, a panic, a timeout, a failed start) is
// reported with Lambda's own error type and message.
func (h *Hook) probe(ctx context.Context, function, qualifier string, p Probe) error {
	start := time.Now()
	out, err := h.Lambda.Invoke(ctx, &lambda.InvokeInput{
		FunctionName: aws.String(function),
		Qualifier:    aws.String(qualifier),
		Payload:      p.Payload,
	})
	if err == nil && out.FunctionError != nil {
		var fe struct{ ErrorType, ErrorMessage string }
		_ = json.Unmarshal(out.Payload, &fe)
		err = fmt.Errorf("the function failed (%s): %s: %s", aws.ToString(out.FunctionError), fe.ErrorType, clip([]byte(fe.ErrorMessage)))
	} else if err == nil {
		err = p.Check(out.Payload)
	}
	outcome := "passed"
	if err != nil {
		outcome = "failed"
	}
	h.Log.InfoContext(ctx, "smoke probe", slog.String("function", function), slog.String("qualifier", qualifier),
		slog.String("probe", p.Name), slog.String("outcome", outcome), slog.Duration("duration", time.Since(start)))
	return err
}
