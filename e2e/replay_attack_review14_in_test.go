package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayReview14HookTokenFile: the launch showed, read-only at its
// place, every absolute path a hook's or the status line's command
// names, unless it lay in a credential store or a credential of a known
// shape was written in it. A notification hook that reads its service's
// token from a file of its own (`token=$(cat ~/.pushover_token)`,
// `--token-file ~/.config/notify/token`) named that file, which holds
// the token alone, in no shape one can name. The attack, from inside:
// read the files the settings' hooks name. Proof: neither token file is
// readable inside; the hooks' scripts (executable, or with a #! line, or
// a script's extension) still are.
func TestReplayReview14HookTokenFile(t *testing.T) {
	h := newE2EHost(t)
	const pushover, notify = "azGDORePK8gMaC0QOYAMyEEuzJnyUi", "q7Hn2VwXk9LpR4tYz8Bm3Cd6Fg1Js5"
	claude := filepath.Join(h.home, ".claude")
	h.write(filepath.Join(claude, "settings.json"), `{"hooks":{"Stop":[{"hooks":[`+
		`{"type":"command","command":"curl -s -F \"token=$(cat ~/.pushover_token)\" -F message=done https://api.pushover.net/1/messages.json"},`+
		`{"type":"command","command":"~/bin/notify --token-file ~/.config/notify/token"},`+
		`{"type":"command","command":"node ~/hooks/done.mjs; cat ~/.claude/hook-token"}]}]}}`)
	h.write(filepath.Join(h.home, ".pushover_token"), pushover+"\n")
	h.write(filepath.Join(h.home, ".config", "notify", "token"), notify+"\n")
	h.write(filepath.Join(claude, "hook-token"), notify+"-claude\n")
	h.write(filepath.Join(h.home, "bin", "notify"), "#!/bin/sh\necho NOTIFY-SCRIPT\n")
	os.Chmod(filepath.Join(h.home, "bin", "notify"), 0o755)
	h.write(filepath.Join(h.home, "hooks", "done.mjs"), "console.log('DONE-SCRIPT')\n")
	proj := filepath.Join(h.home, "code", "proj")
	h.write(filepath.Join(proj, "x"), "x\n")
	out := h.inside(proj, nil, `cat ~/.pushover_token ~/.config/notify/token ~/.claude/hook-token 2>&1
		cat ~/bin/notify ~/hooks/done.mjs`)
	t.Log(out)
	if strings.Contains(out, pushover) || strings.Contains(out, notify) {
		t.Errorf("a token file a hook reads is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "NOTIFY-SCRIPT") || !strings.Contains(out, "DONE-SCRIPT") {
		t.Errorf("inside, want the hooks' scripts shown:\n%s", out)
	}
}

// TestReplayReview14NodePrefixNpmrc: a PATH entry under $HOME was shown
// widened to its toolchain's root, the version directory above its bin/
// (nvm's ~/.nvm/versions/node/v20.0.0), whole. npm keeps its global
// configuration there, in etc/npmrc (`npm config set --global
// //registry.npmjs.org/:_authToken=…`, or `npm login` with a prefix
// of its own), which `npm` on the host reads: the registry's token. The
// attack, from inside: read the prefix's etc/npmrc. Proof: not readable;
// node in that prefix still runs.
func TestReplayReview14NodePrefixNpmrc(t *testing.T) {
	h := newE2EHost(t)
	const token = "npm_REVIEW14PrefixTokenSecret0123456789"
	prefix := filepath.Join(h.home, ".nvm", "versions", "node", "v20.0.0")
	h.write(filepath.Join(prefix, "bin", "node"), "#!/bin/sh\necho NODE-RUNS\n")
	os.Chmod(filepath.Join(prefix, "bin", "node"), 0o755)
	h.write(filepath.Join(prefix, "lib", "node_modules", "npm", "package.json"), `{"name":"npm"}`)
	h.write(filepath.Join(prefix, "etc", "npmrc"), "//registry.npmjs.org/:_authToken="+token+"\n")
	proj := filepath.Join(h.home, "code", "proj")
	h.write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Join(prefix, "bin") + ":" + h.bin + ":/usr/local/bin:/usr/bin:/bin"
	out := h.inside(proj, []string{path}, `node; cat `+filepath.Join(prefix, "etc", "npmrc")+` 2>&1; grep -rl `+token+` ~ 2>/dev/null; cat `+filepath.Join(prefix, "lib", "node_modules", "npm", "package.json"))
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "etc/npmrc\n") && !strings.Contains(out, "No such file") {
		t.Errorf("the npm prefix's configuration, token and all, is readable inside:\n%s", out)
	}
	if !strings.Contains(out, "NODE-RUNS") || !strings.Contains(out, `{"name":"npm"}`) {
		t.Errorf("inside, want the toolchain's node and its packages shown:\n%s", out)
	}
}
