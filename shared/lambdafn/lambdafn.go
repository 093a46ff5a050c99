// Package lambdafn names, in a context, the Lambda function that runs the
// code holding it in AWS: the resource group whose route served a request,
// the pages function, or the worker for background work. Each function's
// entry point sets it (the group's handler, the pages handler, the job
// runner, the scheduler's tick, the change stream's and the mail events'
// handlers), so locally and in tests, where one process plays every
// function, a piece of work still says whose it is in AWS. The tests read it
// to attribute every AWS call to the function whose IAM role must allow it
// (infra/iamcheck); nothing in the service branches on it.
package lambdafn

import "context"

// The functions that are not resource groups; a group's function is named
// after the group (httpapi.Group.String).
const (
	// Pages is the function of the recipient pages.
	Pages = "pages"
	// Worker is the function of background work: job slices, the
	// scheduler's tick, the change stream's webhook deliveries and SES's
	// mail events.
	Worker = "worker"
)

type key struct{}

// With returns ctx naming function as the one that runs its work.
func With(ctx context.Context, function string) context.Context {
	if Of(ctx) == function {
		return ctx
	}
	return context.WithValue(ctx, key{}, function)
}

// Of returns the function ctx names, "" when none (a test calling a use
// case or the store directly).
func Of(ctx context.Context) string {
	name, _ := ctx.Value(key{}).(string)
	return name
}
