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

// RepoRoot returns the directory holding go.mod, walking up from the working directory. Tests run in
// their package's directory and commands from anywhere in the tree, and both find .tools/ and
// template.yaml through it.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repository root: %w", err)
	}
	for {
		_, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("find repository root: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find repository root: no go.mod in the working directory or above it")
		}
		dir = parent
	}
}
