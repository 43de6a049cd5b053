package audit

import (
	"testing"

	"github.com/claudebox/claudebox/guard"
)

// Every tool file the launch guards where it exists is one the exit audit
// names when the session made it: a new .zed or mise.toml is obeyed by the
// host's tool as an existing one is.
func TestAuditKnowsGuardedToolFiles(t *testing.T) {
	for _, name := range guard.ToolFileNames() {
		if !hostRunDirs[name] && !hostRunFiles[name] {
			t.Errorf("the audit does not know %s", name)
		}
	}
}
