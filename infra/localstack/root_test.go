package localstack

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRepoRoot(t *testing.T) {
	root := testRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "module github.com/giftcampaign/service") {
		t.Errorf("RepoRoot() = %s, whose go.mod is not this module's", root)
	}
}

func TestJarDirMissing(t *testing.T) {
	_, err := JarDir(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Errorf("JarDir(empty dir) error = %v, want one that says to run make tools", err)
	}
}

// The generated client is a module of its own: its tests, run in client/, must still find the service's
// root (where .tools/ and template.yaml are), not the client's go.mod.
func TestRepoRootFromTheClientModule(t *testing.T) {
	root := testRoot(t)
	t.Chdir(filepath.Join(root, "client"))
	got, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if got != root {
		t.Errorf("RepoRoot() in client/ = %s, want %s", got, root)
	}
}
