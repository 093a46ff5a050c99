package rie

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// Makefile is what the Makefile says about the Lambda build: the functions it builds and the
// `go build` command of a bootstrap, which sam build runs (LAMBDA_BUILD).
type Makefile struct {
	// Functions are the groups of FUNCTIONS (Catalog, …, Worker).
	Functions []string
	// BuildEnv are the variables LAMBDA_BUILD sets (CGO_ENABLED=0 GOOS=linux GOARCH=arm64), BuildArgs
	// the arguments after `go build` (-tags lambda.norpc -ldflags=-s -w -trimpath).
	BuildEnv, BuildArgs []string
}

var makeVariable = regexp.MustCompile(`(?m)^([A-Z_]+) :?= (.*)$`)

// ReadMakefile reads FUNCTIONS and LAMBDA_BUILD from root's Makefile.
func ReadMakefile(root string) (Makefile, error) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return Makefile{}, err
	}
	vars := map[string]string{}
	for _, m := range makeVariable.FindAllStringSubmatch(string(raw), -1) {
		vars[m[1]] = m[2]
	}
	var mk Makefile
	mk.Functions = strings.Fields(vars["FUNCTIONS"])
	words := shellWords(vars["LAMBDA_BUILD"])
	i := 0
	for i < len(words) && strings.Contains(words[i], "=") {
		mk.BuildEnv = append(mk.BuildEnv, words[i])
		i++
	}
	if len(words) < i+2 || words[i] != "go" || words[i+1] != "build" || len(mk.Functions) == 0 {
		return mk, fmt.Errorf("Makefile: want FUNCTIONS and LAMBDA_BUILD := [VAR=value ...] go build [flags]; got %q and %q",
			vars["FUNCTIONS"], vars["LAMBDA_BUILD"])
	}
	mk.BuildArgs = words[i+2:]
	return mk, nil
}

// shellWords splits s as the shell would split a simple command: on blanks, with double quotes grouping.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range s {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
			}
			inWord = false
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// Build builds the bootstraps of fns for this machine with the Makefile's Lambda build (the same
// source, tags and flags; only GOOS and GOARCH are this machine's) in one `go build`, into dir, and
// returns each function's bootstrap by name.
func Build(ctx context.Context, root, dir string, fns []Function) (map[string]string, error) {
	mk, err := ReadMakefile(root)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// -o naming a directory (the trailing slash) writes each package's binary under its own name.
	args := append(append([]string{"build"}, mk.BuildArgs...), "-o", dir+string(filepath.Separator))
	out := map[string]string{}
	for _, fn := range fns {
		args = append(args, "./functions/"+fn.Name)
		out[fn.Name] = filepath.Join(dir, fn.Name)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), mk.BuildEnv...), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, b)
	}
	return out, nil
}
