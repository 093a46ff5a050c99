package localstack

import "testing"

func TestParseJavaMajor(t *testing.T) {
	tests := []struct {
		name   string
		output string
		want   int
	}{
		{"openjdk 17", "openjdk version \"17.0.15\" 2025-04-15\nOpenJDK Runtime Environment", 17},
		{"openjdk 21 without minor", "openjdk version \"21\" 2023-09-19", 21},
		{"oracle 11", "java version \"11.0.2\" 2019-01-15 LTS", 11},
		{"java 8 scheme", "java version \"1.8.0_292\"", 8},
		{"tool options line first", "Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nopenjdk version \"25\" 2025-09-16", 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseJavaMajor(tt.output)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("parseJavaMajor(%q) = %d, want %d", tt.output, got, tt.want)
			}
		})
	}
}

func TestParseJavaMajorUnreadable(t *testing.T) {
	if got, err := parseJavaMajor("bash: java: command not found"); err == nil {
		t.Errorf("parseJavaMajor = %d, want an error", got)
	}
}

// TestCheckJava holds on every machine that runs the suite: DynamoDB Local needs the same Java.
func TestCheckJava(t *testing.T) {
	if err := CheckJava(); err != nil {
		t.Fatal(err)
	}
}

func TestCheckJavaMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := CheckJava()
	if err == nil {
		t.Fatal("CheckJava with no java on PATH: got nil, want an error")
	}
	t.Log(err)
}
