package mount

import (
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// An eval run's plan mounts its own ~/.claude and workspace, and nothing
// of the user's: not the real ~/.claude's entries or private copies, not
// the instance, not the project or its guards. Its fixed variables win
// over the host's, in the environment and, literally, in the script.
func TestBuildEval(t *testing.T) {
	in := Inputs{
		Home: "/h", StateDir: "/h/.claudebox", Project: instance.Project{Root: "/h/p", Checkout: "/h/p"}, Cwd: "/h/p",
		Host: Host{
			ClaudeEntries: []string{"/h/.claude/skills"}, ClaudeCopies: []Copy{{Path: "/h/.claude/CLAUDE.md", Src: "/h/.claude/CLAUDE.md"}},
			Guards: []Guard{{Path: "/h/p/.envrc"}},
		},
		Env:     Env{Names: []string{"HOME", "PATH", "TZ"}},
		Command: []string{"/usr/bin/claude", "-p"},
		Eval:    &Eval{Workspace: "/tmp/run/workspace", ClaudeDir: "/tmp/run/claude"},
		SetEnv:  []string{"TZ=UTC", "LANG=C.UTF-8"},
	}
	p := Build(in)
	lines := mountLines(p)
	for _, want := range []string{"--bind /tmp/run/claude /h/.claude", "--symlink /h/.claude/claude.json /h/.claude.json", "--bind /tmp/run/workspace /workspace"} {
		if !slices.Contains(lines, want) {
			t.Errorf("no %q in %q", want, lines)
		}
	}
	for _, l := range lines {
		if strings.Contains(l, "/h/p") || strings.Contains(l, "/h/.claudebox") || strings.Contains(l, "skills") || strings.Contains(l, "CLAUDE.md") {
			t.Errorf("an eval run mounts %q", l)
		}
	}
	if p.Chdir != EvalWorkspace || p.Instance != "" || len(p.Guards) != 0 || len(p.Placeholders()) != 0 {
		t.Errorf("chdir %q, instance %q, guards %v", p.Chdir, p.Instance, p.Guards)
	}
	env := p.Environ(func(n string) (string, bool) { return "host-" + n, true })
	if !slices.Contains(env, "TZ=UTC") || slices.Contains(env, "TZ=host-TZ") || !slices.Contains(env, "LANG=C.UTF-8") {
		t.Errorf("environment %q", env)
	}
	if s := p.Script("/usr/bin/bwrap"); !strings.Contains(s, " TZ=UTC LANG=C.UTF-8 ") || strings.Contains(s, `TZ="$TZ"`) {
		t.Errorf("script:\n%s", s)
	}
}
