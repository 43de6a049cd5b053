package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
)

// --check says whether signing as git's configuration in the project
// asks (the user's, the repository's, the worktree's) works inside, and
// names the flag that makes it work when not. A repository's own
// commit.gpgsign=true passed as "does not ask to sign", and the commit
// inside then failed.
func TestCheckSigning(t *testing.T) {
	for _, tc := range []struct {
		config, repo string
		ssh, gpg     bool
		status       string
		detailPart   string
	}{
		{"[user]\n\tname = A\n", "", false, false, "ok", "does not ask"},
		{"[commit]\n\tgpgsign = true\n", "", false, false, "warn", "--with-gpg"},
		{"[commit]\n\tgpgsign = true\n", "", false, true, "ok", "gpg-agent"},
		{"[commit]\n\tgpgsign = true\n[gpg]\n\tformat = ssh\n", "", false, true, "warn", "--with-ssh"},
		{"[tag]\n\tgpgsign = true\n[gpg]\n\tformat = ssh\n", "", true, false, "ok", "SSH agent"},
		{"[user]\n\tname = A\n", "[commit]\n\tgpgsign = true\n", false, false, "warn", "--with-gpg"},
		{"[commit]\n\tgpgsign = true\n", "[commit]\n\tgpgsign = false\n", false, false, "ok", "does not ask"},
		{"[include]\n\tpath = signing.inc\n", "", false, false, "warn", "--with-gpg"},
		{"[gpg]\n\tformat = ssh\n[user]\n\tsigningkey = ~/.ssh/id_ed25519\n", "[commit]\n\tgpgsign = true\n", true, false, "warn", "user.signingkey ~/.ssh/id_ed25519.pub"},
		{"[gpg]\n\tformat = ssh\n[user]\n\tsigningkey = ~/.ssh/id_ed25519.pub\n", "[commit]\n\tgpgsign = true\n", true, false, "ok", "SSH agent"},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(tc.config), 0o644)
		os.WriteFile(filepath.Join(home, "signing.inc"), []byte("[commit]\n\tgpgsign = true\n"), 0o644)
		proj := gitInit(t, filepath.Join(home, "proj"))
		appendFile(t, filepath.Join(proj, ".git", "config"), tc.repo)
		r := checkSigning(mount.Plan{Home: home, Project: instance.Project{Checkout: proj}, SSHAgent: tc.ssh, GPGAgent: tc.gpg})
		if r.Status != tc.status || !strings.Contains(r.Detail+" "+r.Fix, tc.detailPart) {
			t.Errorf("%q, repository %q, ssh=%v gpg=%v: %+v", tc.config, tc.repo, tc.ssh, tc.gpg, r)
		}
	}
}

// gitInit makes an empty repository at dir.
func gitInit(t *testing.T, dir string) string {
	t.Helper()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return dir
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(s)
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
// not forwarded, or there is no network, after git's insteadOf rewrites
// (a short name for an SSH URL; the host and port to allow are the
// rewritten URL's, never the short name's); HTTPS and local remotes are
// nothing to say.
func TestCheckSSHRemotes(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[url \"ssh://ru3@127.0.0.1:22233/\"]\n\tinsteadOf = lh:\n"), 0o644)
	proj := gitInit(t, filepath.Join(home, "proj"))
	config := filepath.Join(proj, ".git", "config")
	appendFile(t, config, "[remote \"origin\"]\n\turl = git@github.com:a/b.git\n[remote \"mirror\"]\n\turl = ssh://gitbox/x\n[remote \"web\"]\n\turl = https://example.com/x\n[remote \"local\"]\n\turl = /srv/x\n[remote \"team\"]\n\turl = lh:team/app.git\n")
	plan := mount.Plan{Home: home, Project: instance.Project{Checkout: proj, CommonDir: filepath.Join(proj, ".git")}}
	if r := checkSSHRemotes(plan); len(r) != 1 || r[0].Status != "warn" || !strings.Contains(r[0].Detail, "mirror, origin, team are reached") || !strings.Contains(r[0].Fix, "--with-ssh") {
		t.Errorf("without the agent: %+v", r)
	}
	plan.SSHAgent = true
	if r := checkSSHRemotes(plan); len(r) != 1 || !strings.Contains(r[0].Fix, "--network=none") {
		t.Errorf("no network: %+v", r)
	}
	plan.Relay = &mount.Relay{}
	if r := checkSSHRemotes(plan); len(r) != 1 || r[0].Status != "ok" || !strings.Contains(r[0].Fix, "--allow-host 127.0.0.1:22233") || strings.Contains(r[0].Fix, "lh:") {
		t.Errorf("filtered: %+v", r)
	}
	plan.Relay, plan.Network = nil, true
	if r := checkSSHRemotes(plan); len(r) != 1 || r[0].Status != "ok" {
		t.Errorf("with both: %+v", r)
	}
	os.WriteFile(config, []byte("[remote \"web\"]\n\turl = https://example.com/x\n"), 0o644)
	if r := checkSSHRemotes(plan); len(r) != 0 {
		t.Errorf("HTTPS only: %+v", r)
	}
}
