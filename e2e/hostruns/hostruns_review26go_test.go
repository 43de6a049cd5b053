package hostruns

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview26CgoAssembly: go build compiles every file of a
// package's directory cgo takes, assembly (.S, .s, .sx), Fortran and
// SWIG's among them, and a .S there adds a constructor the program runs
// as it starts (.init_array). The exit audit knew C's and C++'s
// extensions, not those: the session writes an .S into the ignored,
// vendored copy of a dependency that uses cgo. Host-side proof: the
// host's go run . runs nothing the session wrote.
func TestReplayReview26CgoAssembly(t *testing.T) {
	goTool := harness.RequireTool(t, "go", "https://go.dev/dl")
	harness.RequireTool(t, "gcc", "apt-get install gcc")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/vendor/\n")
	h.Write(filepath.Join(proj, "go.mod"), "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n")
	h.Write(filepath.Join(proj, "main.go"), "package main\n\nimport \"example.com/dep\"\n\nfunc main() { println(dep.Two()) }\n")
	h.Write(filepath.Join(proj, "dep", "go.mod"), "module example.com/dep\n\ngo 1.21\n")
	h.Write(filepath.Join(proj, "dep", "dep.go"), "package dep\n\n// int two(void) { return 2; }\nimport \"C\"\n\nfunc Two() int { return int(C.two()) }\n")
	harness.CommitAll(h, proj, "go")
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off", "CGO_ENABLED=1"}
	// The tests' own build cache where the host is the tests' user: the
	// runtime's cgo built cold takes a minute.
	if cache, err := exec.Command(goTool, "env", "GOCACHE").Output(); err == nil && h.UID < 0 {
		env = append(env, "GOCACHE="+strings.TrimSpace(string(cache)))
	}
	h.Run(proj, env, goTool, "mod", "vendor")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "assembly", `
		printf '\t.section .init_array,"aw"\n\t.align 8\n\t.quad planted\n\t.text\nplanted:\n\tsubq $8, %%rsp\n\tleaq cmd(%%rip), %%rdi\n\tcall system@PLT\n\taddq $8, %%rsp\n\tret\n\t.section .rodata\ncmd:\n\t.asciz "touch `+marker+`"\n\t.section .note.GNU-stack,"",@progbits\n' > vendor/example.com/dep/planted.S`)
	h.RunsNothingPlanted(out, proj, env, goTool, "run", ".")
}
