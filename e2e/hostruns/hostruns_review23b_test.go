package hostruns

import (
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview23PerlDebuggerStartupFile: Perl's debugger runs the
// .perldb of the directory it starts in (perl -d, and the editors' Perl
// debuggers), as Perl code, where its owner is the user and no one else
// may write it, as a file the session writes is. The exit audit did not
// know it. Host-side proof: the host's perl -d runs nothing the session
// wrote.
func TestReplayReview23PerlDebuggerStartupFile(t *testing.T) {
	harness.RequireTool(t, "perl", "apt-get install perl")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "main.pl"), "print \"ok\\n\";\n")
	harness.CommitAll(h, proj, "main")
	marker := h.Marker()
	out := h.Plant(proj, "the .perldb", `printf 'system("touch `+marker+`");\n1;\n' > .perldb && chmod 644 .perldb`)
	h.RunsNothingPlanted(out, proj, []string{"PERLDB_OPTS=NonStop"}, "perl", "-d", "main.pl")
}

// TestReplayReview23NestedEnvrcSources: direnv runs the nearest .envrc
// above where the shell is, a package's in a monorepo, which sources
// what it names from its own directory (source_env_if_exists local),
// which git ignores. The session writes that file. Host-side proof: the
// host's direnv in the package, its .envrc allowed before, runs nothing
// the session wrote.
func TestReplayReview23NestedEnvrcSources(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	pkg := filepath.Join(proj, "packages", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(pkg, ".envrc"), "source_env_if_exists local\n")
	h.Write(filepath.Join(proj, ".gitignore"), "local\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(pkg, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "a sourced file", `printf 'touch `+marker+`\n' > packages/app/local`)
	h.RunsNothingPlanted(out, pkg, nil, "direnv", "exec", ".", "true")
}

// TestReplayReview23EnvrcRunsFile: an .envrc is shell, and what a program
// it runs reads (python3 cfg) runs as surely as what it sources: no list
// of direnv's commands covers it. The session writes cfg, which git
// ignores. Host-side proof: the host's direnv, the .envrc allowed
// before, runs nothing the session wrote.
func TestReplayReview23EnvrcRunsFile(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "export APP_ENV=dev\npython3 cfg 2>/dev/null || true\n")
	h.Write(filepath.Join(proj, ".gitignore"), "cfg\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "a file the .envrc runs", `printf 'open("`+marker+`", "w")\n' > cfg`)
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", ".", "true")
}
