// Command gen writes the JSON form of the API document:
//
//	go run ./shared/apidocs/openapijson/gen shared/httpapi/openapi.yaml shared/httpapi/openapi.json
//
// make client runs it; the drift test (shared/httpapi TestOpenAPIJSONIsGenerated)
// fails when the committed JSON is not what it writes.
package main

import (
	"fmt"
	"os"

	"github.com/giftcampaign/service/shared/apidocs/openapijson"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "openapijson:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: gen openapi.yaml openapi.json")
	}
	src, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	out, err := openapijson.Convert(src)
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], out, 0o644)
}
