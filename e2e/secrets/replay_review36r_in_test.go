package secrets

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview36rInCoreDump: a binary file is shown unread where its
// first bytes say it is a program or a library (ELF), but a core dump is
// ELF too, and holds the memory of the process that crashed: its
// environment, the token a tool was given among it. A core a skill's
// tool left in the skill's folder, and one a tool of a root of one's own
// on PATH left in its lib/, were shown unread. The attack, from inside:
// read them. Proof: the token is not inside; the tool's program and a
// library beside the cores still are.
func TestReplayReview36rInCoreDump(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const secret = "R36core"
	token := "ghp_" + secret + "Q2pLm4x9WZk3wQp9LmT2vXr7BQ"
	core := coreDumpWith(t, "CRM_TOKEN="+token)
	skill := filepath.Join(h.Home, ".claude", "skills", "crm")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: crm\ndescription: queries the CRM\n---\nRun ./crm\n")
	h.Write(filepath.Join(skill, "core"), core)
	h.Write(filepath.Join(skill, "libcrm.so"), "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00R36-HARMLESS-ELF\x00")
	ops := filepath.Join(h.Home, "code", "ops")
	h.Write(filepath.Join(ops, "bin", "ops"), "#!/bin/sh\necho R36-OPS\n")
	h.Write(filepath.Join(ops, "lib", "core"), core)
	if err := os.Chmod(filepath.Join(ops, "bin", "ops"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + filepath.Join(ops, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; grep -rhoa '"+secret+"[A-Za-z0-9]*' ~/.claude/skills "+ops+"; grep -rhoa 'R36-[A-Z-]*' ~/.claude/skills; ops; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a token in a core dump of a skill or a root of one's own is readable inside")
	}
	for _, want := range []string{"R36-HARMLESS-ELF", "R36-OPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds none", want)
		}
	}
}

// coreDumpWith is the core dump of a shell that crashed with env among
// its variables, as the kernel writes it.
func coreDumpWith(t *testing.T, env string) string {
	t.Helper()
	dir := t.TempDir()
	if b, err := os.ReadFile("/proc/sys/kernel/core_pattern"); err != nil || strings.TrimSpace(string(b)) != "core" {
		t.Skip("the kernel writes no core file in the crashing process's folder here")
	}
	cmd := exec.Command("sh", "-c", `ulimit -c unlimited; exec env "$1" sh -c 'kill -SEGV $$'`, "sh", env)
	cmd.Dir = dir
	_ = cmd.Run()
	matches, _ := filepath.Glob(filepath.Join(dir, "core*"))
	if len(matches) == 0 {
		t.Skip("no core file was written")
	}
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
