// Command local runs the service on this machine without Docker, against DynamoDB Local:
//
//	go run ./infra/local run              serve the API (make run)
//	go run ./infra/local exec -- CMD ...  run CMD with a DynamoDB Local, an SES and a KMS emulator of its own (make test)
//	go run ./infra/local serve            serve the API against a running DynamoDB Local, SES and KMS emulator (make chaos)
package main

import (
	"fmt"
	"os"
)

const usage = `usage: go run ./infra/local <command>

commands:
  run                  serve the API on http://127.0.0.1:$PORT with DynamoDB Local on $DYNAMODB_PORT,
                       the table $TABLE_NAME, the SES emulator on $SES_PORT and the KMS emulator
                       on $KMS_PORT (default: a free port), until Ctrl-C
  exec -- CMD [ARGS]   start DynamoDB Local, the SES and the KMS emulators on free ports, run CMD
                       with DYNAMODB_ENDPOINT, SES_ENDPOINT, KMS_ENDPOINT and KMS_KEY_ID set to
                       them, stop them, and exit with CMD's exit code
  serve                serve what run serves on http://127.0.0.1:$PORT against the DynamoDB Local at
                       $DYNAMODB_ENDPOINT, the SES emulator at $SES_ENDPOINT and the KMS emulator at
                       $KMS_ENDPOINT (key $KMS_KEY_ID), already running; creates the table
                       $TABLE_NAME when missing; links name $PUBLIC_BASE_URL
`

func main() {
	os.Exit(dispatch(os.Args[1:]))
}

// dispatch runs the command that args name and returns the process's exit code.
func dispatch(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runServer(args[1:])
	case "exec":
		return runExec(args[1:])
	case "serve":
		return runAttached(args[1:])
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
		return 0
	default:
		fmt.Fprintf(os.Stderr, "local: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
}
