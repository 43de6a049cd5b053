package mount

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// write creates path (and its directories) holding content.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Probe on a home and a repository laid out on disk: what it finds to
// show, copy, guard and refuse.
func TestProbe(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "code", "app")
	write(t, filepath.Join(home, ".claude", "settings.json"), "{}")
	write(t, filepath.Join(home, ".claude", "plugins", "p.json"), "{}")
	write(t, filepath.Join(home, ".claude", "todos", "t.json"), "{}")
	write(t, filepath.Join(home, ".claude", ".credentials.json"), "{}")
	write(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = a\n")
	write(t, filepath.Join(home, ".ssh", "known_hosts"), "host key\n")
	write(t, filepath.Join(home, ".claudebox", ".credentials.json"), "{}")
	write(t, filepath.Join(home, ".local", "share", "claude", "versions", "1.0", "claude"), "#!/bin/sh\n")
	os.MkdirAll(filepath.Join(home, ".local", "bin"), 0o755)
	os.Symlink("../share/claude/versions/1.0/claude", filepath.Join(home, ".local", "bin", "claude"))

	if out, err := exec.Command("git", "init", "-q", proj).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(proj, ".git", "config"))
	write(t, filepath.Join(proj, ".git", "config"), string(config)+"[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ~/code/app/shared.gitconfig\n")
	write(t, filepath.Join(proj, ".gitmodules"), "[submodule \"lib\"]\n\tpath = lib\n\turl = x\n")
	write(t, filepath.Join(proj, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	write(t, filepath.Join(proj, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(proj, ".claude", "settings.json"), "{}")
	write(t, filepath.Join(proj, "real-envrc"), "")
	os.Symlink("real-envrc", filepath.Join(proj, ".envrc"))
	write(t, filepath.Join(home, "data", "x"), "")

	project, err := instance.Resolve(proj)
	if err != nil {
		t.Fatal(err)
	}
	binds := []BindSpec{{Src: filepath.Join(home, "data"), Dest: "/data", From: "--ro-bind"}}
	h := Probe(home, filepath.Join(home, ".claudebox"), project, filepath.Join(home, ".local", "bin", "claude"), home, "/usr/bin", binds, StateDirs(home, []string{filepath.Join(home, ".claudebox")}))

	var own []string
	for _, m := range h.Own {
		own = append(own, m.Dest)
	}
	if h.KnownHosts != filepath.Join(home, ".ssh", "known_hosts") || !slices.Contains(own, filepath.Join(home, ".gitconfig")) {
		t.Errorf("known_hosts %q, own mounts %q", h.KnownHosts, own)
	}
	if want := (HostPath{Path: filepath.Join(home, ".local", "bin", "claude"), Link: "../share/claude/versions/1.0/claude"}); !slices.Contains(h.links, want) || !slices.Contains(own, filepath.Join(home, ".local", "share", "claude", "versions", "1.0")) {
		t.Errorf("command chain: links %+v, own mounts %q", h.links, own)
	}
	entries := strings.Join(h.claudeEntries, " ")
	if !strings.Contains(entries, "plugins") || strings.Contains(entries, "todos") || strings.Contains(entries, "credentials") {
		t.Errorf("~/.claude entries shown: %q", h.claudeEntries)
	}
	if !slices.Equal(h.ClaudeCopies, []string{filepath.Join(home, ".claude", "settings.json")}) {
		t.Errorf("copies %q", h.ClaudeCopies)
	}
	var guards []string
	for _, g := range h.Guards {
		guards = append(guards, strings.TrimPrefix(g.Path, proj+"/"))
	}
	for _, want := range []string{".git/config", ".git/hooks", ".husky", "shared.gitconfig", "lib/.git", ".git/modules/lib/config", ".git/modules/lib/hooks", ".claude/settings.json", ".gitmodules"} {
		if !slices.Contains(guards, want) {
			t.Errorf("no guard on %s among %q", want, guards)
		}
	}
	if !slices.Equal(h.Symlinked, []string{filepath.Join(proj, ".envrc")}) {
		t.Errorf("symlinked %q", h.Symlinked)
	}
	if len(h.Binds) != 1 || h.Binds[0].Src != filepath.Join(home, "data") {
		t.Errorf("binds %+v", h.Binds)
	}
}

func TestEnviron(t *testing.T) {
	p := Plan{Home: "/h", Env: []string{"HOME", "UNSET", "X"}, SSHAgent: true}
	values := map[string]string{"HOME": "/h", "X": "a=b"}
	got := p.Environ(func(n string) (string, bool) { v, ok := values[n]; return v, ok })
	if want := []string{"DISABLE_AUTOUPDATER=1", "SSH_AUTH_SOCK=" + sshAgentSocket, "HOME=/h", "X=a=b"}; !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}
