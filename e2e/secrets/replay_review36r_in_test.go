package secrets

import (
	"fmt"
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

// TestReplayReview36rInDebianPackage: a binary file beginning as an ar
// archive does ("!<arch>") was shown unread as an archive of objects (a
// static library), but ar is a container of any files: a Debian package
// is one, its data.tar holding the files it installs, an internal
// agent's configuration and its token among them. One kept in a skill's
// folder and one in a root of one's own's share/ were readable inside.
// Proof: the token is not inside; a static library and Go's package
// beside them still are.
func TestReplayReview36rInDebianPackage(t *testing.T) {
	h := harness.NewHost(t)
	if _, err := exec.LookPath("dpkg-deb"); err != nil {
		t.Skip("no dpkg-deb to build a package with")
	}
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	const secret = "R36deb"
	build := t.TempDir()
	for rel, text := range map[string]string{
		"DEBIAN/control":             "Package: agent\nVersion: 1.0\nArchitecture: all\nMaintainer: ops <ops@example.com>\nDescription: the agent\n",
		"etc/agent/agent.env":        "AGENT_TOKEN=ghp_" + secret + "Q2pLm4x9WZk3wQp9LmT2vXr7BQ\n",
		"usr/share/doc/agent/README": "the agent\n",
	} {
		harness.Must(t, os.MkdirAll(filepath.Join(build, "pkg", filepath.Dir(rel)), 0o755))
		harness.Must(t, os.WriteFile(filepath.Join(build, "pkg", rel), []byte(text), 0o644))
	}
	if out, err := exec.Command("dpkg-deb", "--root-owner-group", "-Znone", "--build", filepath.Join(build, "pkg"), filepath.Join(build, "agent.deb")).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb: %v\n%s", err, out)
	}
	deb, err := os.ReadFile(filepath.Join(build, "agent.deb"))
	harness.Must(t, err)
	skill := filepath.Join(h.Home, ".claude", "skills", "agent")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: agent\ndescription: installs the agent\n---\nRun sudo dpkg -i agent.deb\n")
	h.Write(filepath.Join(skill, "agent.deb"), string(deb))
	h.Write(filepath.Join(skill, "libagent.a"), arOf("/", "\x00\x00\x00\x00", "agent.o/", "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00R36-HARMLESS-AR\x00"))
	h.Write(filepath.Join(skill, "agent_go.a"), arOf("__.PKGDEF", "go object R36-HARMLESS-GO\x00"))
	ops := filepath.Join(h.Home, "code", "ops")
	h.Write(filepath.Join(ops, "bin", "ops"), "#!/bin/sh\necho R36-OPS\n")
	h.Write(filepath.Join(ops, "share", "pkgs", "agent.deb"), string(deb))
	harness.Must(t, os.Chmod(filepath.Join(ops, "bin", "ops"), 0o755))
	env := []string{"PATH=" + filepath.Join(ops, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; grep -rhoa '"+secret+"[A-Za-z0-9]*' ~/.claude/skills "+ops+"; grep -rhoa 'R36-[A-Z-]*' ~/.claude/skills; ops; true")
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("a token in a Debian package of a skill or a root of one's own is readable inside")
	}
	for _, want := range []string{"R36-HARMLESS-AR", "R36-HARMLESS-GO", "R36-OPS"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s, which holds none", want)
		}
	}
}

// arOf is an ar archive of members, each a name, then its content.
func arOf(members ...string) string {
	var b strings.Builder
	b.WriteString("!<arch>\n")
	for i := 0; i+1 < len(members); i += 2 {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8s%-10d`\n%s", members[i], 0, 0, 0, "644", len(members[i+1]), members[i+1])
		if len(members[i+1])%2 == 1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
