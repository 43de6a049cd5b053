package mount_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPlanImportsOnlyLeaves keeps the plan pure by its imports: the plan
// and SANDBOX.md, rendered from it, reach no network, no process, none of
// the packages that act, not the instance store and not the environment's
// values (docs/development.md draws these floors).
func TestPlanImportsOnlyLeaves(t *testing.T) {
	forbidden := []string{"net/http", "os/exec", "crypto/tls"}
	for _, p := range []string{"proxy", "relay", "session", "instance", "environment"} {
		forbidden = append(forbidden, "github.com/claudebox/claudebox/"+p)
	}
	for _, pkg := range []string{".", "../sandboxmd"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, f := range forbidden {
			for _, d := range deps {
				if d == f {
					t.Errorf("%s imports %s", pkg, f)
				}
			}
		}
	}
}
