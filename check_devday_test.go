package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// --check says whether signing as the user's git configuration asks works
// inside, and names the flag that makes it work when not.
func TestCheckSigning(t *testing.T) {
	for _, tc := range []struct {
		config     string
		ssh, gpg   bool
		status     string
		detailPart string
	}{
		{"[user]\n\tname = A\n", false, false, "ok", "does not ask"},
		{"[commit]\n\tgpgsign = true\n", false, false, "warn", "--with-gpg"},
		{"[commit]\n\tgpgsign = true\n", false, true, "ok", "gpg-agent"},
		{"[commit]\n\tgpgsign = true\n[gpg]\n\tformat = ssh\n", false, true, "warn", "--with-ssh"},
		{"[tag]\n\tgpgsign = true\n[gpg]\n\tformat = ssh\n", true, false, "ok", "SSH agent"},
	} {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(tc.config), 0o644); err != nil {
			t.Fatal(err)
		}
		r := checkSigning(mount.Plan{Home: home, SSHAgent: tc.ssh, GPGAgent: tc.gpg})
		if r.Status != tc.status || !strings.Contains(r.Detail+" "+r.Fix, tc.detailPart) {
			t.Errorf("%q ssh=%v gpg=%v: %+v", tc.config, tc.ssh, tc.gpg, r)
		}
	}
}

// --check names where the caches are, and each tool's cache that is not
// the project's, with why.
func TestCheckCaches(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x"), make([]byte, 2048), 0o644)
	plan := mount.Plan{Caches: []mount.Cache{
		{ToolCache: mount.ToolCache{Name: "cache", Path: ".cache"}, Src: filepath.Join(dir, "cache"), Dest: "/h/.cache"},
		{ToolCache: mount.ToolCache{Name: "npm", Path: ".npm"}, Dest: "/h/.npm", Skipped: "/h/.npm is mounted there (--bind)"},
	}}
	lines := checkCaches(plan)
	if len(lines) != 2 || !strings.Contains(lines[0].Detail, dir+" (") || !strings.Contains(lines[0].Detail, "KiB)") || !strings.Contains(lines[0].Detail, "~/.cache") ||
		!strings.Contains(lines[1].Detail, "/h/.npm is not this project's cache") {
		t.Errorf("%+v", lines)
	}
}

// --check names the project's remotes reached over SSH when the agent is
// not forwarded, or there is no network; HTTPS and local
// remotes are nothing to say.
func TestCheckSSHRemotes(t *testing.T) {
	git := t.TempDir()
	os.WriteFile(filepath.Join(git, "config"), []byte("[remote \"origin\"]\n\turl = git@github.com:a/b.git\n[remote \"mirror\"]\n\turl = ssh://gitbox/x\n[remote \"web\"]\n\turl = https://example.com/x\n[remote \"local\"]\n\turl = /srv/x\n"), 0o644)
	plan := mount.Plan{Project: instance.Project{CommonDir: git}}
	if r := checkSSHRemotes(plan); len(r) != 1 || r[0].Status != "warn" || !strings.Contains(r[0].Detail, "mirror, origin are reached") || !strings.Contains(r[0].Fix, "--with-ssh") {
		t.Errorf("without the agent: %+v", r)
	}
	plan.SSHAgent = true
	if r := checkSSHRemotes(plan); len(r) != 1 || !strings.Contains(r[0].Fix, "--network=none") {
		t.Errorf("no network: %+v", r)
	}
	plan.Relay = &mount.Relay{}
	if r := checkSSHRemotes(plan); len(r) != 1 || r[0].Status != "ok" || !strings.Contains(r[0].Detail, "HOST:22") {
		t.Errorf("filtered: %+v", r)
	}
	plan.Relay, plan.Network = nil, true
	if r := checkSSHRemotes(plan); len(r) != 1 || r[0].Status != "ok" {
		t.Errorf("with both: %+v", r)
	}
	os.WriteFile(filepath.Join(git, "config"), []byte("[remote \"web\"]\n\turl = https://example.com/x\n"), 0o644)
	if r := checkSSHRemotes(plan); len(r) != 0 {
		t.Errorf("HTTPS only: %+v", r)
	}
}
