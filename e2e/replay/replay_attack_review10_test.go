package replay

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview10WorktreePlantedDirectory: while a session runs, it
// plants .git/worktrees/task whose gitdir names ~/bin/.git (a directory
// on the user's PATH, outside the project) and whose HEAD is branch task.
// The exit audit would move it aside, but only at the session's end; the
// user meanwhile starts a second task in another terminal, claudebox -w
// task, which took git worktree list's word for where branch task is
// checked out and ran a read-write session in ~/bin. (.git/worktrees is
// now read-only inside: the entry is planted as an earlier sandbox left
// it.) Host-side proof: the program in ~/bin is byte-identical, and -w
// refuses, naming the path.
func TestReplayReview10WorktreePlantedDirectory(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	tool := filepath.Join(bin, "tool")
	h.Write(tool, "#!/bin/sh\necho real\n")
	h.Run(proj, nil, "sh", "-c", `mkdir -p .git/worktrees/task && cd .git/worktrees/task &&
		echo '`+bin+`/.git' > gitdir && echo 'ref: refs/heads/task' > HEAD && echo ../.. > commondir`)
	c := h.Command(proj, nil, "claudebox", "-w", "task", "--shell", "-c", `echo planted > tool`)
	out, err := c.CombinedOutput()
	if b, _ := os.ReadFile(tool); string(b) != "#!/bin/sh\necho real\n" {
		t.Errorf("claudebox -w task ran a session in %s, which wrote %q:\n%s", bin, b, out)
	}
	if err == nil || !strings.Contains(string(out), "not a checkout of this repository") {
		t.Errorf("claudebox -w task did not refuse: %v\n%s", err, out)
	}
}

// TestReplayReview10ProxyPasswordWithoutScheme: a proxy's URL with its
// password, written as most users write it, without a scheme
// (HTTPS_PROXY=alice:s3cret@proxy.corp:3128, which curl, Go and Python
// read as http://), passed into the sandbox on the host network and on
// none (where the filtered network's own proxy does not replace it), and
// a GOPROXY so written on every network: the check for a URL's user
// looked only after "://". Proof inside: the password is not in the
// sandbox's environment.
func TestReplayReview10ProxyPasswordWithoutScheme(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	env := []string{"HTTPS_PROXY=alice:s3cret@proxy.corp:3128", "http_proxy=alice:s3cret@proxy.corp:3128", "GOPROXY=alice:s3cret@goproxy.corp"}
	for _, mode := range []string{"host", "none", "filtered"} {
		if out := h.Run(proj, env, "claudebox", "--network="+mode, "--shell", "-c", "env"); strings.Contains(out, "s3cret") {
			t.Errorf("--network=%s: the proxy's password is inside:\n%s", mode, out)
		}
	}
}

// TestReplayReview10GitConfigProxyAndKey: the private copy of the user's
// ~/.gitconfig left out what is named or shaped like a credential, but
// kept http.proxy and remote.<name>.proxy written as git accepts them,
// without a scheme (alice:s3cret@proxy.corp:3128), and a key under a name
// ending in "key" (ai.apikey = sk-ant-…). Proof inside: neither value is
// in the sandbox's ~/.gitconfig or in git config's answer there, while
// the signing key git needs is kept.
func TestReplayReview10GitConfigProxyAndKey(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n\tsigningKey = ABCDEF0123456789\n[http]\n\tproxy = alice:s3cret@proxy.corp:3128\n[remote \"origin\"]\n\tproxy = bob:hunter2@proxy.corp\n[ai]\n\tapikey = sk-ant-api03-abcdef\n")
	out := h.Run(proj, nil, "claudebox", "--shell", "-c", "cat ~/.gitconfig; git config --global --list")
	for _, secret := range []string{"s3cret", "hunter2", "sk-ant-api03"} {
		if strings.Contains(out, secret) {
			t.Errorf("%s is inside:\n%s", secret, out)
		}
	}
	if !strings.Contains(out, "ABCDEF0123456789") {
		t.Errorf("user.signingKey was left out:\n%s", out)
	}
}

// TestReplayReview10UntrackedCacheHidesFile: the index's untracked cache
// (UNTR), which git keeps using once present (core.untrackedCache
// defaults to keep), is trusted for a directory whose stat data it
// recorded. The session adds one (git update-index --untracked-cache),
// has git fill it while tests/ holds no new file, plants
// tests/test_planted.py within the same second (the directory's times, by
// the second, unchanged), then dates the index later. The host's git
// status then says nothing of the file, which pytest runs (a conftest.py
// the exit now moves aside whole, as pytest's configuration). The exit
// audit drops the work tree's caches of an index the session wrote.
// Host-side proof: the index the session leaves holds no untracked cache,
// and, where the forgery took (the planting and the status's look fell in
// one tick of the file system's clock, which a loaded machine misses),
// git status --porcelain names tests/test_planted.py.
func TestReplayReview10UntrackedCacheHidesFile(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "tests", "a"), "a\n")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "tests")
	out := h.Inside(proj, nil, `git update-index --untracked-cache
		for i in $(seq 1 20); do
			touch tests/.t && rm tests/.t
			git status --porcelain >/dev/null
			before=$(stat -c %.9Z tests)
			echo 'import os; os.system("touch /tmp/PWNED")' > tests/test_planted.py
			if [ "$(stat -c '%.9Z %.9Y' tests)" = "$before $before" ]; then echo PLANTED; break; fi
			rm tests/test_planted.py
		done
		test -e tests/test_planted.py || echo 'import os' > tests/test_planted.py
		sleep 1.2; touch .git/index
		grep -q UNTR .git/index && echo CACHED
		test -z "$(git status --porcelain)" && echo HIDDEN-INSIDE; true`)
	if !strings.Contains(out, "CACHED") {
		t.Fatalf("the session's index holds no untracked cache:\n%s", out)
	}
	index, err := os.ReadFile(filepath.Join(proj, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(index, []byte("UNTR")) {
		t.Errorf("the index the session wrote keeps its untracked cache")
	}
	if !strings.Contains(out, "HIDDEN-INSIDE") {
		t.Logf("the cache did not hide the file inside on this run (the planting missed the status's tick):\n%s", out)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); !strings.Contains(st, "tests/test_planted.py") {
		t.Errorf("the host's git status hides the planted tests/test_planted.py: %q", st)
	}
}

// TestReplayReview10SettingsHookCredential: the copy of the user's
// ~/.claude/settings.json kept hooks whole, and an HTTP hook holds its
// credential in the settings (headers "Authorization: Bearer …", as
// Claude Code's schema shows, or a webhook's secret URL). Proof inside:
// the sandbox's copy holds neither, while a command hook stays.
func TestReplayReview10SettingsHookCredential(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), `{"hooks":{"Stop":[{"hooks":[
		{"type":"http","url":"https://hooks.slack.example/services/T0/B0/webhooksecret","headers":{"Authorization":"Bearer xoxb-hooksecret"}},
		{"type":"command","command":"make fmt"}]}]}}`)
	out := h.Run(proj, nil, "claudebox", "--shell", "-c", "cat ~/.claude/settings.json")
	if strings.Contains(out, "hooksecret") {
		t.Errorf("the HTTP hook's credential is inside:\n%s", out)
	}
	if !strings.Contains(out, "make fmt") {
		t.Errorf("the command hook was left out:\n%s", out)
	}
}

// TestReplayReview10CacheTreeCommits: the index's cache of trees (TREE)
// is what git commit writes for each subtree it holds valid, and what git
// status compares with HEAD's instead of the entries. The session stages
// a planted lib/a.py, has git write the tree, then puts back the clean
// index's entries (and the file) under the planted cache of trees: git
// status shows nothing; the user's next change (README, git add, git
// commit) commits the planted lib/a.py, which git status still does not
// show, and the next checkout writes. Host-side proof: the commit holds
// lib/a.py as it was.
func TestReplayReview10CacheTreeCommits(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "lib", "a.py"), "print('ok')\n")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "lib")
	out := h.Inside(proj, nil, `set -e
		cp .git/index /tmp/index.clean; cp lib/a.py /tmp/a.orig
		echo 'import os; os.system("touch /tmp/PWNED")' > lib/a.py
		git add lib/a.py; git write-tree >/dev/null; cp .git/index /tmp/index.planted
		cp /tmp/a.orig lib/a.py; cp /tmp/index.clean .git/index
		git update-index -q --refresh; git write-tree >/dev/null
		python3 - <<'PY'
import hashlib, struct
def split(b):
    n, p = struct.unpack('>I', b[8:12])[0], 12
    for _ in range(n):
        p += (62 + (struct.unpack('>H', b[p+60:p+62])[0] & 0xfff) + 8) // 8 * 8
    ext, body = {}, b[:-20]
    while p < len(body):
        size = struct.unpack('>I', body[p+4:p+8])[0]
        ext[body[p:p+4]] = body[p:p+8+size]
        p += 8 + size
    return body[:p - sum(len(v) for v in ext.values())], ext
entries, ext = split(open('.git/index', 'rb').read())
ext[b'TREE'] = split(open('/tmp/index.planted', 'rb').read())[1][b'TREE']
out = entries + b''.join(ext.values())
open('.git/index', 'wb').write(out + hashlib.sha1(out).digest())
PY
		test -z "$(git status --porcelain)" && echo HIDDEN-INSIDE`)
	if !strings.Contains(out, "HIDDEN-INSIDE") {
		t.Fatalf("the cache of trees could not be forged here:\n%s", out)
	}
	h.Write(filepath.Join(proj, "README"), "hello again\n")
	h.Run(proj, nil, "git", "add", "README")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "readme")
	if got := h.Run(proj, nil, "git", "show", "HEAD:lib/a.py"); got != "print('ok')\n" {
		t.Errorf("the host's git commit committed the planted lib/a.py: %q", got)
	}
}
