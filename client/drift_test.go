package client_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/giftcampaign/service/infra/localstack"
)

// TestClientIsUpToDate regenerates the client with the pinned oapi-codegen (make installs it under
// .tools/bin) and fails when the committed client.gen.go differs: the document changed, the client did not.
func TestClientIsUpToDate(t *testing.T) {
	t.Parallel()
	root, err := localstack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	generator := filepath.Join(root, ".tools", "bin", "oapi-codegen")
	if _, err := os.Stat(generator); err != nil {
		localstack.Missing(t, "oapi-codegen is not installed: "+err.Error())
	}
	// The same configuration, writing elsewhere.
	config, err := os.ReadFile(filepath.Join(root, "client", "oapi-codegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "client.gen.go")
	config = bytes.Replace(config, []byte("output: client/client.gen.go"), []byte("output: "+out), 1)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(generator, "-config", filepath.Join(dir, "config.yaml"), "shared/httpapi/openapi.yaml")
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, msg)
	}
	got, err := os.ReadFile(filepath.Join(root, "client", "client.gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("client/client.gen.go is not what oapi-codegen makes of shared/httpapi/openapi.yaml: run make client")
	}
}
