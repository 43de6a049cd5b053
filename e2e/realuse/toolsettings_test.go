package realuse

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestToolSettingsCome: inside, go env GOPRIVATE equals the host's, set
// by go env -w (~/.config/go/env) and by the variable; JAVA_HOME passes;
// ~/.cargo/config.toml is there read-only, without its env table (a
// password for a build). ~/.npmrc with a token stays hidden, and a cargo
// config's registry token. The launch names
// once per project the variables it dropped, never an identity token's
// name, and never a value.
func TestToolSettingsCome(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "tools")
	h.GitRepo(proj)
	goPath := "PATH=" + h.Bin + ":/usr/local/go/bin:/usr/local/bin:/usr/bin:/bin"
	h.Write(filepath.Join(h.Home, ".npmrc"), "//registry.npmjs.org/:_authToken=NPM-SECRET-31d\n")
	h.Write(filepath.Join(h.Home, ".cargo", "config.toml"), "[net]\ngit-fetch-with-cli = true\n[env]\nDEPLOY_PW = \"CARGO-ENV-SECRET\"\n")
	h.Chown()
	h.Run(proj, []string{goPath}, "go", "env", "-w", "GOPRIVATE=example.com/private/*")
	host := h.Run(proj, []string{goPath}, "go", "env", "GOPRIVATE", "GONOSUMDB")

	extra := []string{goPath, "JAVA_HOME=/usr/lib/jvm/default", "MY_BUILD_MODE=fast", "GITHUB_TOKEN=ghp_SECRET9f2"}
	var stdout, stderr bytes.Buffer
	c := h.Command(proj, extra, "claudebox", "--shell", "-c", `go env GOPRIVATE GONOSUMDB; echo "java=$JAVA_HOME"; cat ~/.cargo/config.toml; echo x >> ~/.cargo/config.toml || echo cargo-config-read-only; cat ~/.npmrc || echo npmrc-hidden`)
	c.Stdout, c.Stderr = &stdout, &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, host) {
		t.Errorf("go env inside:\n%s\nwant the host's:\n%s", out, host)
	}
	for _, want := range []string{"java=/usr/lib/jvm/default", "git-fetch-with-cli = true", "cargo-config-read-only", "npmrc-hidden"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside printed %q, want %q", out, want)
		}
	}
	if strings.Contains(out, "NPM-SECRET") || strings.Contains(out, "CARGO-ENV-SECRET") {
		t.Errorf("a secret of ~/.npmrc or cargo's env is readable inside:\n%s", out)
	}
	notice := stderr.String()
	if !strings.Contains(notice, "variables not passed into the sandbox: MY_BUILD_MODE") || !strings.Contains(notice, "--env MY_BUILD_MODE") {
		t.Errorf("the launch does not name the dropped variable:\n%s", notice)
	}
	if strings.Contains(notice, "GITHUB_TOKEN") || strings.Contains(notice, "fast") {
		t.Errorf("the notice names an identity token or a value:\n%s", notice)
	}
	var again bytes.Buffer
	c = h.Command(proj, extra, "claudebox", "--shell", "-c", "true")
	c.Stderr = &again
	if err := c.Run(); err != nil || strings.Contains(again.String(), "MY_BUILD_MODE") {
		t.Errorf("named again: %v %s", err, again.String())
	}

	// A cargo config's registry token stays out; its index comes.
	h.Write(filepath.Join(h.Home, ".cargo", "config.toml"), "[registries.corp]\nindex = \"sparse+https://corp/\"\ntoken = \"CARGO-SECRET-8e\"\n")
	h.Chown()
	if out := h.Inside(proj, nil, "cat ~/.cargo/config.toml"); !strings.Contains(out, "sparse+https://corp/") || strings.Contains(out, "CARGO-SECRET") {
		t.Errorf("a cargo config with a token: %q", out)
	}
}
