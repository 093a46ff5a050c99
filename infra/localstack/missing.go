package localstack

import (
	"errors"
	"os"
	"testing"
)

// RequireEnv is the variable infra/local exec sets for the commands it runs (`make test`, `make bench`,
// the fuzzers): there, everything the tests need is started or installed, so a test that finds something
// missing is broken, not merely run elsewhere.
const RequireEnv = "GCS_TEST_REQUIRE_ALL"

// ErrNotInstalled is a tool `make tools` installs under .tools/ (DynamoDB Local, an emulator) that is not
// there; the errors that say so wrap it.
var ErrNotInstalled = errors.New("not installed: run `make tools`")

// Missing ends a test that needs what `make test` provides (an emulator it starts, a tool it installs)
// and does not find it. Under `make test` (RequireEnv set) or in CI (CI=true) it fails; elsewhere — a
// plain `go test ./...` on a fresh checkout — it skips with the one message, so the pure tests of the
// same package still run and report.
func Missing(t testing.TB, what string) {
	t.Helper()
	msg := what + ": run `make test`, which installs and starts everything the tests need"
	if os.Getenv(RequireEnv) != "" || os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// NeedInstalled ends the test through Missing when err says a tool is not installed (ErrNotInstalled),
// and fails it on any other error.
func NeedInstalled(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNotInstalled) {
		Missing(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
}

// NeedEnv returns the value of the environment variable name, which `make test` sets to the endpoint of
// an emulator it started (what names it), ending the test through Missing when it is not set.
func NeedEnv(t testing.TB, name, what string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		Missing(t, name+" is not set ("+what+")")
	}
	return v
}
