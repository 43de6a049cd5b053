package hostrunslate

import (
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview33IgnoredScriptRunThroughVariable: a tracked Makefile
// runs sh build/$(NAME), or sh $(OUT)/gen, a file git ignores (build/)
// whose name or directory a variable holds, made by the session with no
// #! line, no extension and no execute bit: the task file names no such
// path, so nothing said it was code; it stayed, and the host's make ran
// it. Host-side proof: the host's make gen runs nothing planted.
func TestReplayReview33IgnoredScriptRunThroughVariable(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	for name, makefile := range map[string]string{
		"name": "NAME := gen\ngen:\n\tmkdir -p build && test -e build/$(NAME) || echo : > build/$(NAME)\n\tsh build/$(NAME)\n",
		"dir":  "OUT := build\ngen:\n\tmkdir -p $(OUT) && test -e $(OUT)/gen || echo : > $(OUT)/gen\n\tsh $(OUT)/gen\n",
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/build/\n")
			h.Write(filepath.Join(proj, "Makefile"), makefile)
			harness.CommitAll(h, proj, "make")
			out := harness.PlantUnseen(t, h, proj, "ignored script", `mkdir -p build && echo 'touch `+h.Marker()+`' > build/gen`)
			h.RunsNothingPlanted(out, proj, nil, "make", "gen")
		})
	}
}
