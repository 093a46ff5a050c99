package rie

import (
	"context"
	"fmt"
	"os"
)

// Local is the stand-in for AWS that the RIE test and `make bench` start functions against: the
// emulator, DynamoDB Local, the SES emulator and a table made for the run. Both deploy the template as a
// stage that sends mail (LocalParameters), so every function builds every client it builds in AWS.
type Local struct {
	Emulator  string
	DynamoDB  string // DYNAMODB_ENDPOINT
	SES       string // SES_ENDPOINT
	KMS       string // KMS_ENDPOINT
	KMSKeyID  string // KMS_KEY_ID: the local KMS emulator's key, in place of the stack's SecretsKey
	Table     string // TABLE_NAME
	Functions []Function
	// Bootstraps are the functions' bootstraps by name (Build).
	Bootstraps map[string]string
}

// LocalParameters are the template parameters of the local stage.
var LocalParameters = map[string]string{"Stage": "rie", "SenderAddress": "gifts@rie.example.com",
	"PublicBaseURL": "https://gifts.rie.example.com"}

// NewLocal reads root's template for the local stage over table, builds every function's bootstrap for
// this machine into dir, and finds the emulator; the endpoints are those `make test` and `make bench`
// start (DYNAMODB_ENDPOINT, SES_ENDPOINT, and KMS_ENDPOINT with its KMS_KEY_ID).
func NewLocal(ctx context.Context, root, dir, table string) (*Local, error) {
	emulator, err := Binary(root)
	if err != nil {
		return nil, err
	}
	l := &Local{Emulator: emulator, DynamoDB: os.Getenv("DYNAMODB_ENDPOINT"), SES: os.Getenv("SES_ENDPOINT"),
		KMS: os.Getenv("KMS_ENDPOINT"), KMSKeyID: os.Getenv("KMS_KEY_ID"), Table: table}
	if l.DynamoDB == "" || l.SES == "" || l.KMS == "" || l.KMSKeyID == "" {
		return nil, fmt.Errorf("DYNAMODB_ENDPOINT, SES_ENDPOINT, KMS_ENDPOINT and KMS_KEY_ID must be set: run under infra/local exec (make test, make bench)")
	}
	tmpl, err := LoadTemplate(root, LocalParameters, map[string]string{"Table": table})
	if err != nil {
		return nil, err
	}
	if l.Functions, err = tmpl.Functions(); err != nil {
		return nil, err
	}
	if l.Bootstraps, err = Build(ctx, root, dir, l.Functions); err != nil {
		return nil, err
	}
	return l, nil
}

// Start starts fn's bootstrap under its own emulator with fn's template environment, the local
// endpoints and table in place of AWS's.
func (l *Local) Start(ctx context.Context, fn Function) (*Process, error) {
	env := fn.RuntimeEnv(map[string]string{"DYNAMODB_ENDPOINT": l.DynamoDB, "SES_ENDPOINT": l.SES,
		"KMS_ENDPOINT": l.KMS, "KMS_KEY_ID": l.KMSKeyID, "TABLE_NAME": l.Table})
	p, err := Start(ctx, Spec{Emulator: l.Emulator, Bootstrap: l.Bootstraps[fn.Name], Env: env})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn.LogicalID, err)
	}
	return p, nil
}
