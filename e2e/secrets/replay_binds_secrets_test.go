package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayBindCredentialStores: a bind showed whatever it named, and a
// bind of a directory hid only the secrets on a list. `--bind ~/.ssh` was
// accepted without a word (the key readable and writable inside); a
// repository's `ro-bind = ["~/.aws"]` got the ordinary approval question;
// `--ro-bind ~` showed Codex's and Gemini's logins, GitHub Copilot's,
// glab's, rclone's, podman's and Hugging Face's tokens. Host-side proof:
// each launch is refused before anything starts, with the way that works,
// and nothing inside ever prints a credential.
func TestReplayBindCredentialStores(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	stores := map[string]string{
		".ssh/id_ed25519":                   "SSHKEYSECRET",
		".aws/credentials":                  "AWSSECRET",
		".codex/auth.json":                  `{"tokens":{"access_token":"CODEXSECRET"}}`,
		".gemini/oauth_creds.json":          `{"access_token":"GEMINISECRET"}`,
		".gemini/.env":                      "GEMINI_API_KEY=GEMINIENVSECRET\n",
		".config/github-copilot/hosts.json": `{"github.com":{"oauth_token":"COPILOTSECRET"}}`,
		".config/glab-cli/config.yml":       "token: GLABSECRET\n",
		".config/rclone/rclone.conf":        "[s3]\nsecret_access_key = RCLONESECRET\n",
		".config/containers/auth.json":      `{"auths":{"quay.io":{"auth":"PODMANSECRET"}}}`,
		".cache/huggingface/token":          "HFSECRET\n",
		".codex/sessions/2026/other.jsonl":  "OTHERPROJECTSECRET\n",
		"dotfiles/aws-work/credentials":     "LINKEDAWSSECRET",
		"datasets/readme":                   "shown\n",
		".local/share/applications/x":       "x\n",
		"work/deploy/service-account.json":  `{"private_key":"SASECRET"}`,
		"work/readme":                       "work\n",
	}
	for name, content := range stores {
		h.Write(filepath.Join(h.Home, name), content)
	}
	launch := func(args ...string) string {
		t.Helper()
		c := h.Command(proj, nil, "claudebox", append(args, "--shell", "-c", "cat -- ~/.ssh/* ~/.aws/* /x/* 2>/dev/null; find ~ /x -type f -exec cat {} + 2>/dev/null; echo STARTED")...)
		out, err := c.CombinedOutput()
		if err == nil {
			t.Errorf("claudebox %q started:\n%s", args, out)
		}
		if strings.Contains(string(out), "SECRET") {
			t.Errorf("claudebox %q: a credential inside:\n%s", args, out)
		}
		if strings.Contains(string(out), "STARTED") {
			t.Errorf("claudebox %q: the sandbox ran:\n%s", args, out)
		}
		return string(out)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--bind", "~/.ssh"}, []string{"~/.ssh is a credential store", "hint: for git over SSH and signing, use --with-ssh"}},
		{[]string{"--ro-bind", "~/.ssh/id_ed25519:/x/key"}, []string{"~/.ssh is a credential store"}},
		{[]string{"--ro-bind", "~/.gemini/.env:/x/env"}, []string{"~/.gemini/.env is a credential store"}},
		{[]string{"--ro-bind", "~"}, []string{"it holds ~, where other tools keep their state and credentials", "hint: bind the narrower path you need, e.g. ~/code, ~/datasets"}},
		{[]string{"--ro-bind", "~/.config:/x"}, []string{"it holds ~/.config"}},
		{[]string{"--ro-bind", "~/.local/share:/x"}, []string{"it holds ~/.local/share"}},
		{[]string{"--ro-bind", "~/.codex:/x"}, []string{"it holds ~/.codex/auth.json, a credential store"}},
		{[]string{"--ro-bind", "~/.cache:/x"}, []string{"it holds ~/.cache/huggingface/token, a credential store"}},
	} {
		out := launch(c.args...)
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("claudebox %q: no %q in:\n%s", c.args, w, out)
			}
		}
	}
	// Through a link the user made: the store's real path is one too.
	if err := os.Symlink("dotfiles/aws-work", filepath.Join(h.Home, ".aws-work")); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(h.Home, ".aws"))
	if err := os.Symlink("dotfiles/aws-work", filepath.Join(h.Home, ".aws")); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	if out := launch("--ro-bind", "~/.aws-work:/x"); !strings.Contains(out, "is a credential store") {
		t.Errorf("a link's target passed:\n%s", out)
	}
	// A repository's grant of a credential store is refused before the
	// question; one of a directory with what looks like a credential asks,
	// and says so.
	h.Write(filepath.Join(proj, ".claudebox.toml"), "ro-bind = [\"~/.aws:/x\"]\n")
	if out := launch(); !strings.Contains(out, filepath.Join(proj, ".claudebox.toml")) || !strings.Contains(out, "is a credential store") {
		t.Errorf("a repository's bind of ~/.aws was not refused naming its file:\n%s", out)
	}
	h.Write(filepath.Join(proj, ".claudebox.toml"), "ro-bind = [\"~/work:/x\"]\n")
	out := launch()
	if !strings.Contains(out, "--ro-bind "+filepath.Join(h.Home, "work")+":/x (from "+filepath.Join(proj, ".claudebox.toml")+"): it would show what looks like a credential, "+filepath.Join(h.Home, "work", "deploy", "service-account.json")) {
		t.Errorf("the question for a directory holding a service account key does not say so:\n%s", out)
	}
}
