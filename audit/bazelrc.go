package audit

import (
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// Bazel reads the workspace's .bazelrc at every command, and the files it
// imports (import, try-import %workspace%/.bazelrc.user), often ignored,
// by any name, as its own: build --run_under or a --config's flags run
// what they say. So what the .bazelrc imports is judged as what an .envrc
// names: one the session made or changed that git does not track is a
// finding.

// bazelrcNamed judges what the workspace's .bazelrc imports.
func (w *walker) bazelrcNamed() {
	b, err := untrusted.ReadFile(w.root, ".bazelrc", maxMakefileSize)
	if err != nil {
		return
	}
	w.judgeNamed(".bazelrc", bazelrcImports(string(b)))
}

// bazelrcImports are the files a .bazelrc imports, from the workspace
// (%workspace%/ taken off), within maxEnvrcNames; not one outside it.
func bazelrcImports(src string) []string {
	var names []string
	for line := range strings.Lines(src) {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "import" && fields[0] != "try-import" {
			continue
		}
		rest := strings.TrimSpace(strings.TrimSpace(line)[len(fields[0]):])
		if q := rest[0]; q == '"' || q == '\'' {
			if end := strings.IndexByte(rest[1:], q); end >= 0 {
				rest = rest[1 : 1+end]
			}
		} else {
			rest = fields[1]
		}
		name := strings.TrimPrefix(rest, "%workspace%/")
		if name == "" || filepath.IsAbs(name) || len(names) == maxEnvrcNames {
			continue
		}
		names = append(names, filepath.Clean(name))
	}
	return names
}
