package audit

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// Bazel reads the workspace's .bazelrc at every command, and the files it
// imports (import, try-import %workspace%/.bazelrc.user), often ignored,
// by any name, as its own: build --run_under or a --config's flags run
// what they say. So what the .bazelrc imports is judged as what an .envrc
// names: one the session made or changed that git does not track is a
// finding.

// bazelrcNamed judges what the workspace's .bazelrc imports, and a
// nested workspace's (examples/ws/.bazelrc, where bazel runs there), and
// what those import in turn (each from its workspace).
func (w *walker) bazelrcNamed() {
	rcs := []string{".bazelrc"}
	for _, rel := range w.importers {
		if filepath.Base(rel) == ".bazelrc" {
			rcs = append(rcs, rel)
		}
	}
	workspaces := map[string]string{}
	w.judgeChain(rcs, func(rel, src string) ([]string, bool) {
		ws, ok := workspaces[rel]
		if !ok {
			ws = filepath.Dir(rel)
		}
		names := fromDir(filepath.Join(ws, ".bazelrc"), bazelrcImports(src))
		for _, name := range names {
			if _, ok := workspaces[name]; !ok {
				workspaces[name] = ws
			}
		}
		return names, false
	})
}

// judgeChain judges the files that the files tops name (named gives
// each's names from the root, and whether it names one by a path the
// audit cannot spell), and what those name in turn: an imported file
// there at the start imports what the session wrote as readily;
// maxEnvrcs files read at most.
func (w *walker) judgeChain(tops []string, named func(rel, src string) ([]string, bool)) {
	queue := slices.Clone(tops)
	seen := map[string]bool{}
	for i := 0; i < len(queue); i++ {
		rel := queue[i]
		if i == maxEnvrcs {
			w.notExamined(w.abs(rel), fmt.Sprintf("what it includes: the audit reads %d included files at most", maxEnvrcs))
			return
		}
		b, err := untrusted.ReadFile(w.root, rel, maxMakefileSize)
		if err != nil {
			continue
		}
		names, unspelled := named(rel, string(b))
		if unspelled {
			w.includesUnspelled(rel)
		}
		for _, name := range names {
			if !filepath.IsLocal(name) || seen[name] {
				continue
			}
			seen[name] = true
			w.judgeNamed(".", []string{name})
			queue = append(queue, name)
		}
	}
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
