package app_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers keeps the house layered as README's architecture section
// draws it: each package (or binary) must not link the packages listed
// against it, directly or through anything it imports. go list -deps sees
// only non-test imports, which is what ends up in a binary.
func TestLayers(t *testing.T) {
	const mod = "github.com/giftcampaign/service/"
	for _, tt := range []struct {
		name, pkg string
		forbidden []string
	}{
		{"the domain imports no other package of the service", "shared/gifting",
			[]string{"shared/dynamo", "shared/service", "shared/httpapi", "shared/jobs", "shared/app"}},
		{"the use cases know no adapter", "shared/service",
			[]string{"shared/dynamo", "shared/httpapi", "shared/app"}},
		{"HTTP knows no storage", "shared/httpapi",
			[]string{"shared/dynamo", "shared/app"}},
		{"storage knows no HTTP and no use case", "shared/dynamo",
			[]string{"shared/httpapi", "shared/service"}},
		{"the worker links no HTTP adapter", "functions/worker",
			[]string{"shared/httpapi", "shared/app/web"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", mod+tt.pkg).Output()
			if err != nil {
				t.Fatalf("go list -deps %s: %v", tt.pkg, err)
			}
			deps := strings.Fields(string(out))
			for _, f := range tt.forbidden {
				if slices.Contains(deps, mod+f) {
					t.Errorf("%s depends on %s", tt.pkg, f)
				}
			}
		})
	}
}
