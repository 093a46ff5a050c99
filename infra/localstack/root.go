// Package localstack runs the project's local stand-ins for AWS: DynamoDB Local, started from the jar that
// `make tools` installs, and a table created from the table resource in template.yaml, so the local
// table and the deployed one can never drift.
//
// It serves the local runner (infra/local), the operator CLI and the tests; nothing in it is deployed.
package localstack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// RepoRoot returns the directory holding the service's go.mod and template.yaml, walking up from the
// working directory. Tests run in their package's directory and commands from anywhere in the tree, and
// both find .tools/ and template.yaml through it. The generated client (client/) is a module of its own,
// so a go.mod alone does not mark the root.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		root, err := isRoot(dir)
		if err != nil {
			return "", fmt.Errorf("find repository root: %w", err)
		}
		if root {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no go.mod beside a template.yaml in the working directory or above it")
		}
		dir = parent
	}
}

// isRoot reports whether dir holds both go.mod and template.yaml.
func isRoot(dir string) (bool, error) {
	for _, name := range []string{"go.mod", "template.yaml"} {
		_, err := os.Stat(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}
