package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/hint"
)

// installKind tells an npm package, Anthropic's native installer and Nix
// apart by where claude's path leads.
func TestInstallKind(t *testing.T) {
	home := t.TempDir()
	native := filepath.Join(home, ".local", "share", "claude", "versions", "2.1.330")
	npm := filepath.Join(home, "npm", "lib", "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")
	for _, f := range []string{native, npm} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		os.WriteFile(f, nil, 0o755)
	}
	link := func(name, target string) string {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for path, want := range map[string]string{
		link(".local/bin/claude", native):       "native installer",
		link("npm/bin/claude", npm):             "npm package",
		"/nix/store/abc-claude-code/bin/claude": "Nix",
		"/opt/claude":                           "installed as /opt/claude",
	} {
		if got := installKind(path, home); got != want {
			t.Errorf("installKind(%s) = %q, want %q", path, got, want)
		}
	}
}

// checkKernel fails a kernel too old to start a session, warns on one too
// old for the guards to stand again after a host rename.
func TestCheckKernel(t *testing.T) {
	for release, want := range map[string]string{
		"6.18.44-fc-v669":       "ok",
		"5.12.0":                "ok",
		"5.11.22-generic":       "warn",
		"5.8.0":                 "warn",
		"5.7.19":                "fail",
		"4.19.0-26-amd64":       "fail",
		"something odd":         "warn",
		"10.0.0-future-release": "ok",
	} {
		if got := checkKernel(release); got.Status != want {
			t.Errorf("checkKernel(%q) = %s (%s), want %s", release, got.Status, got.Detail, want)
		}
	}
}

// TestExplainTrialMountPoint: a trial whose bwrap could not make a mount
// point says the launch's hint, not only "see Troubleshooting".
func TestExplainTrialMountPoint(t *testing.T) {
	stderr := "bwrap: Can't mkdir parents for /home/dev/.local/bin/claude: No such file or directory\n"
	r := explainTrial(stderr, hint.Errorf("claudebox --dry-run shows where", "bwrap could not make the sandbox"), checkResult{})
	if r.Detail != strings.TrimSpace(stderr) || r.Fix != "claudebox --dry-run shows where" {
		t.Errorf("explainTrial = %+v", r)
	}
}
