package localstack

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// minJavaMajor is the oldest Java that DynamoDB Local 3.x runs on.
const minJavaMajor = 17

// javaVersionPattern finds the quoted version in the first line of `java -version`, which reads
// `openjdk version "17.0.15" 2025-04-15` or, before Java 9, `java version "1.8.0_292"`.
var javaVersionPattern = regexp.MustCompile(`version "(\d+)(?:\.(\d+))?`)

// CheckJava reports whether a Java runtime that can run DynamoDB Local is on PATH. Its error says what is
// missing and how to install it.
func CheckJava() error {
	if _, err := exec.LookPath("java"); err != nil {
		return fmt.Errorf("java not found on PATH: install a JDK %d+ (e.g. apt-get install openjdk-17-jre-headless): %w",
			minJavaMajor, err)
	}
	// java -version writes to stderr.
	out, err := exec.Command("java", "-version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("run java -version: %w: %s", err, out)
	}
	major, err := parseJavaMajor(string(out))
	if err != nil {
		return err
	}
	if major < minJavaMajor {
		return fmt.Errorf("DynamoDB Local needs Java %d or newer; found Java %d (e.g. apt-get install openjdk-17-jre-headless)",
			minJavaMajor, major)
	}
	return nil
}

// parseJavaMajor returns the major version in the output of `java -version`: 17 for "17.0.15", 8 for
// "1.8.0_292".
func parseJavaMajor(versionOutput string) (int, error) {
	m := javaVersionPattern.FindStringSubmatch(versionOutput)
	if m == nil {
		line, _, _ := strings.Cut(versionOutput, "\n")
		return 0, fmt.Errorf("cannot read the Java version from java -version: %q", line)
	}
	version := m[1]
	if version == "1" && m[2] != "" {
		version = m[2]
	}
	major, err := strconv.Atoi(version)
	if err != nil {
		return 0, fmt.Errorf("read Java major version %q: %w", version, err)
	}
	return major, nil
}
