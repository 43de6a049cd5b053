package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/projectfiles"
)

// checkProjectFiles names, from the registry of what the host's agents,
// editors and tools obey in a project, those this project has, which the
// sandbox sees read-only, and says what the rest of the registry gets.
func checkProjectFiles(plan mount.Plan) checkResult {
	top := plan.Project.Checkout
	fold := projectfiles.FoldsCaseAt(top)
	var here []string
	for _, g := range plan.Guards {
		if !g.Exists || g.From != "" || filepath.Dir(g.Path) != top {
			continue
		}
		if e, ok := projectfiles.Lookup(filepath.Base(g.Path), fold); ok {
			here = append(here, filepath.Base(g.Path)+" ("+e.Tools+")")
		}
	}
	var tools []string
	for _, e := range projectfiles.Entries {
		for _, t := range strings.Split(e.Tools, ", ") {
			if !slices.Contains(tools, t) {
				tools = append(tools, t)
			}
		}
	}
	detail := fmt.Sprintf("%d names that %d agents, editors and tools obey are read-only inside where they exist, and moved aside at exit where the session makes them", len(projectfiles.Entries), len(tools))
	if len(here) > 0 {
		detail += "; here: " + strings.Join(here, ", ")
	}
	if fold {
		detail += "; this directory's names fold case, and so does matching them"
	}
	return checkResult{"project files", "ok", detail, ""}
}
