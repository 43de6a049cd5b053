package gc

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/transcript"
)

// maxProjectDirs bounds the entries SessionProject reads of an instance
// directory, which the sandbox writes.
const maxProjectDirs = 1000

// SessionProject is the root of the project, other than root, whose
// instance holds Claude Code's conversation id, "" if none does: claude
// --resume ID finds a conversation of any folder on the host, and
// claudebox --resume only the project's own. Only an instance whose
// project-root hashes to its name is taken at its word.
func SessionProject(stateDir, id, root string) string {
	if !sessionID(id) {
		return ""
	}
	projects := ProjectsDir(stateDir)
	dir, err := os.Open(projects)
	if err != nil {
		return ""
	}
	defer dir.Close()
	insts, _ := dir.ReadDir(-1)
	for _, e := range insts {
		if !e.IsDir() || !instance.IsHash(e.Name()) || e.Name() == instance.Hash(root) {
			continue
		}
		if !transcript.Holds(filepath.Join(projects, e.Name()), id, maxProjectDirs) {
			continue
		}
		if other, skip := readRoot(projects, e.Name()); skip == nil && instance.Hash(other) == e.Name() {
			return other
		}
	}
	return ""
}

// sessionID says whether id reads as Claude Code's session ids do: a
// UUID's hex digits and dashes.
func sessionID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && c != '-' {
			return false
		}
	}
	return true
}
