package testenv

import (
	"github.com/giftcampaign/service/infra/iamcheck/calls"
	"github.com/giftcampaign/service/shared/app"
)

// Calls records the AWS calls the tests make, each as the call of the
// Lambda function that makes it in AWS, when the test runner asks for it
// (AWS_CALLS_DIR, which infra/local exec sets): infra/iamcheck holds the
// functions' IAM policies against them. Nil records nothing. Every client
// of an emulator carries it (app.EmulatorAPIOptions); a test that runs jobs
// in process hands the service Calls.Queue(queue) and starts the queue with
// Calls.Runner(svc.RunJob), as NewAPI does, so that the SQS messages of
// AWS are recorded too.
var Calls = calls.FromEnv()

func init() {
	if Calls != nil {
		app.EmulatorAPIOptions = append(app.EmulatorAPIOptions, Calls.Middleware)
	}
}
