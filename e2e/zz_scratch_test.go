package e2e

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestZZScratch(t *testing.T) {
	h := newE2EHost(t)
	proj := filepath.Join(h.home, "code", "proj")
	h.gitRepo(proj)
	var stdout, stderr bytes.Buffer
	c := h.command(proj, nil, "claudebox", "--shell", "-c", `d=$(printf 'x\033]0;PWNED\007\033[2J'); mkdir -p "$d/.claude" "$d/.vscode"; echo '{}' > "$d/.claude/settings.json"; echo x > "$d/.envrc"; printf '#!/bin/sh\n' > "$d/Makefile"; mkdir -p node_modules/"$d"; echo '{}' > node_modules/"$d"/package.json; printf 'x=1\n' > "$d/.env"; git config -f .gitmodules submodule."$d".path "$d" 2>/dev/null; true`)
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	t.Logf("err %v\nstdout %q\nstderr %q", err, stdout.String(), stderr.String())
	if strings.Contains(stderr.String(), "\x1b") || strings.Contains(stdout.String(), "\x1b") {
		t.Errorf("raw escape reached the terminal")
	}
	out := h.run(proj, nil, "claudebox", "--changes")
	if strings.Contains(out, "\x1b") {
		t.Errorf("raw escape in --changes: %q", out)
	}
	var so, se bytes.Buffer
	c = h.command(proj, nil, "claudebox", "--check")
	c.Stdout, c.Stderr = &so, &se
	c.Run()
	if strings.Contains(so.String()+se.String(), "\x1b") {
		t.Errorf("raw escape in --check: %q", so.String()+se.String())
	}
}
