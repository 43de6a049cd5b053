package hostobeys

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview18ForgedLFSObject: git-lfs keeps a file's content in
// the git directory (lfs/objects/<aa>/<bb>/<sha256>) and its checkout
// (the smudge filter) copies the object of the pointer's name and size
// into the work tree without hashing it. The exit audit checked git's
// own objects against their names, not these: the session rewrites the
// object of the project's committed pre-commit hook (core.hooksPath
// .githooks, kept in LFS) with a script of its own of the same size,
// and the host's next checkout of it (git worktree add, claudebox -w, a
// switch of branches) writes the session's script, while git status
// says nothing. Host-side proof: after the session, a worktree added on
// the host, and a commit there, run nothing the session wrote.
func TestReplayReview18ForgedLFSObject(t *testing.T) {
	harness.RequireTool(t, "git-lfs", "apt-get install git-lfs")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "lfs", "install", "--skip-repo")
	hook := "#!/bin/sh\n# " + strings.Repeat("x", 200) + "\nexit 0\n"
	h.Write(filepath.Join(proj, ".gitattributes"), ".githooks/** filter=lfs diff=lfs merge=lfs -text\n")
	h.Write(filepath.Join(proj, ".githooks", "pre-commit"), hook)
	os.Chmod(filepath.Join(proj, ".githooks", "pre-commit"), 0o755)
	h.Run(proj, nil, "git", "add", ".gitattributes", ".githooks")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "hooks")
	h.Run(proj, nil, "git", "config", "core.hooksPath", ".githooks")
	sum := sha256.Sum256([]byte(hook))
	oid := hex.EncodeToString(sum[:])
	object := filepath.Join(".git", "lfs", "objects", oid[:2], oid[2:4], oid)
	if _, err := os.Stat(filepath.Join(proj, object)); err != nil {
		t.Fatalf("git-lfs kept no object for the hook: %v", err)
	}
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		python3 - `+object+` <<'PY'
import os, sys
p = sys.argv[1]
s = b'#!/bin/sh\ntouch `+marker+`\n'
s += b'#' * (os.path.getsize(p) - len(s) - 1) + b'\n'
open(p + '.new', 'wb').write(s)
os.rename(p + '.new', p)
PY
		test -z "$(git status --porcelain)" && echo FORGED >&2`)
	if !strings.Contains(out, "FORGED") {
		t.Fatalf("the LFS object could not be forged here:\n%s", out)
	}
	wt := filepath.Join(h.Home, "wt")
	added, _ := h.Command(proj, nil, "git", "worktree", "add", "-q", wt).CombinedOutput()
	committed, _ := h.Command(wt, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git commit in a worktree it added ran the session's forged LFS object:\n%s\n%s%s", out, added, committed)
	}
	if !strings.Contains(out, filepath.Join(proj, object)) {
		t.Errorf("the end did not name the forged object:\n%s", out)
	}
}

// TestReplayReview18PythonBytecode: Python imports a module from the
// bytecode cached beside it (__pycache__/<name>.<tag>.pyc) whenever the
// cache's header names the source's modification time and size, and from
// a lone <name>.pyc or an extension module (<name>.so, loaded first) in
// the script's directory ahead of the standard library's module of that
// name; git ignores them in nearly every project (__pycache__/,
// *.py[cod], *.so), and the exit audit judged none. The session writes a
// cache of util.py that runs its own code, a json.pyc beside main.py,
// and a typing.so beside it whose constructor runs as Python loads it:
// the host's python3 main.py ran all three, while git status and git
// diff said nothing. Host-side proof: after the session, the host's
// python3 main.py runs nothing the session wrote.
func TestReplayReview18PythonBytecode(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	gcc := harness.RequireTool(t, "gcc", "apt-get install gcc")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "__pycache__/\n*.py[cod]\n*.so\n")
	h.Write(filepath.Join(proj, "util.py"), "def f():\n    return 'ok'\n")
	h.Write(filepath.Join(proj, "main.py"), "import json\nimport util\nprint(util.f(), json.dumps(1))\nimport typing\n")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "python")
	h.Run(proj, nil, "python3", "main.py")
	marker := h.Marker()
	c := filepath.Join(t.TempDir(), "plant.c")
	if err := os.WriteFile(c, []byte(`#include <stdio.h>
__attribute__((constructor)) static void plant(void) { fclose(fopen("`+marker+`.so", "w")); }
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", c+".so", c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	so, err := os.ReadFile(c + ".so")
	if err != nil {
		t.Fatal(err)
	}
	out := h.InsideStderr(proj, `set -e
		echo `+base64.StdEncoding.EncodeToString(so)+` | base64 -d > typing.so
		python3 - <<'PY'
import importlib.util, marshal, os, struct, sys
plant = lambda what: "open('`+marker+`.%s', 'w').close()\n" % what
def cache(src, path, code):
    st = os.stat(src)
    header = struct.pack('<III', 0, int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF)
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    open(path + '.new', 'wb').write(importlib.util.MAGIC_NUMBER + header + marshal.dumps(compile(code, src, 'exec')))
    os.rename(path + '.new', path)
cache('util.py', '__pycache__/util.%s.pyc' % sys.implementation.cache_tag, open('util.py').read() + plant('cache'))
cache('util.py', 'json.pyc', plant('lone') + 'import sys\ndel sys.modules["json"]\nhere = sys.path.pop(0)\nimport json\nsys.path.insert(0, here)\nsys.modules["json"] = json\n')
PY
		test -z "$(git status --porcelain)" && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the bytecode could not be planted here:\n%s", out)
	}
	if ran, err := h.Command(proj, nil, "python3", "main.py").CombinedOutput(); err != nil || !strings.Contains(string(ran), "ok 1") {
		t.Errorf("the host's python3 main.py after the session: %v\n%s", err, ran)
	}
	for _, what := range []string{"cache", "lone", "so"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's python3 main.py ran the session's bytecode (%s):\n%s", what, out)
		}
	}
}

// TestReplayReview18RerereResolution: git records how a conflict was
// resolved in the git directory's rr-cache and, where that directory
// exists, replays the recorded resolution into the work tree at the next
// merge that meets the same conflict (rerere.enabled defaults to the
// directory's presence), saying only that it resolved the file "using
// previous resolution". The exit audit took rr-cache for data: the
// session recorded, for the conflict the host's branches will meet in
// the project's committed pre-commit hook (core.hooksPath .githooks), a
// resolution that runs its own script. Host-side proof: after the
// session, the host's git merge of the branch, and the commit that
// concludes it, run nothing the session wrote.
func TestReplayReview18RerereResolution(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	commit := func(content, msg string) {
		h.Write(filepath.Join(proj, ".githooks", "pre-commit"), content)
		os.Chmod(filepath.Join(proj, ".githooks", "pre-commit"), 0o755)
		h.Run(proj, nil, "git", "add", ".githooks")
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", msg)
	}
	commit("#!/bin/sh\nexit 0\n", "hook")
	h.Run(proj, nil, "git", "branch", "other")
	commit("#!/bin/sh\n# ours\nexit 0\n", "ours")
	h.Run(proj, nil, "git", "checkout", "-q", "other")
	commit("#!/bin/sh\n# theirs\nexit 0\n", "theirs")
	h.Run(proj, nil, "git", "checkout", "-q", "-")
	h.Run(proj, nil, "git", "config", "core.hooksPath", ".githooks")
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		git clone -q --no-local . /tmp/scratch && cd /tmp/scratch
		git checkout -q other && git checkout -q -
		mkdir .git/rr-cache
		git -c user.name=t -c user.email=t@example.com -c core.hooksPath=/dev/null merge -q other >/dev/null 2>&1 || true
		printf '#!/bin/sh\ntouch `+marker+`\nexit 0\n' > .githooks/pre-commit
		git rerere
		cd - >/dev/null
		cp -r /tmp/scratch/.git/rr-cache .git/
		ls .git/rr-cache/*/postimage >/dev/null && test -z "$(git status --porcelain)" && echo RECORDED >&2`)
	if !strings.Contains(out, "RECORDED") {
		t.Fatalf("the resolution could not be recorded here:\n%s", out)
	}
	merged, _ := h.Command(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "merge", "other").CombinedOutput()
	h.Command(proj, nil, "git", "add", ".githooks/pre-commit").Run()
	committed, _ := h.Command(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--no-edit").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's merge took the session's resolution, and its commit ran it:\n%s\n%s%s", out, merged, committed)
	}
}

// TestReplayReview18DirenvCache: direnv's layouts keep what they make in
// the project's .direnv, which git ignores, and nix-direnv's use flake
// (use nix too) evaluates the dev shell it cached there
// (.direnv/flake-profile-<hash>.rc, eval'd whole) at every cd into the
// project while it is newer than the flake: direnv asks again for a
// changed .envrc, never for what it loads from there. The exit audit
// judged nothing in .direnv (a script with no #! line, not executable):
// the session adds a line to the cached shell. Host-side proof: after
// the session, the host's .envrc, evaluated as direnv does with
// nix-direnv's cache, runs nothing the session wrote.
func TestReplayReview18DirenvCache(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".envrc"), "use flake\n")
	h.Write(filepath.Join(proj, "flake.nix"), "{ outputs = _: { }; }\n")
	h.Write(filepath.Join(proj, ".gitignore"), ".direnv/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "direnv")
	cached := filepath.Join(proj, ".direnv", "flake-profile-a5d5b61aa8a61b7d9d765e1daf971a9a578f1cfa.rc")
	h.Write(cached, "export IN_NIX_SHELL=impure\n")
	// direnv's use, and nix-direnv's use_flake as far as it goes with a
	// fresh cache.
	h.Write(filepath.Join(h.Home, ".config", "direnv", "direnvrc"), `use() { "use_$1" "${@:2}"; }
use_flake() {
	for rc in .direnv/flake-profile-*.rc; do
		if [ "$rc" -nt flake.nix ]; then eval "$(< "$rc")"; fi
	done
}
`)
	marker := h.Marker()
	out := h.InsideStderr(proj, `set -e
		echo 'touch `+marker+`' >> `+cached+`
		test -z "$(git status --porcelain)" && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the cached shell could not be changed here:\n%s", out)
	}
	loaded, _ := h.Command(proj, nil, "bash", "-c", `source ~/.config/direnv/direnvrc && source .envrc`).CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's direnv loaded the session's line from .direnv:\n%s\n%s", out, loaded)
	}
}

// TestReplayReview18DotenvVariant: the exit audit judged a .env by its
// name alone, yet the host's tools load its variants too: direnv's
// dotenv_if_exists .env.local in an .envrc you allowed (direnv asks
// again for a changed .envrc, never for the file it loads), bun's
// .env.local and .env.<NODE_ENV>, Vite's and Next.js'; git ignores them
// (.env*.local). The session writes a .env.local setting BASH_ENV to a
// script of its own. Host-side proof: after the session, a bash the host
// runs through direnv in the project runs nothing the session wrote.
func TestReplayReview18DotenvVariant(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".envrc"), "dotenv_if_exists .env.local\n")
	h.Write(filepath.Join(proj, ".gitignore"), ".env*.local\ntmp/\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "direnv")
	h.Run(proj, nil, "direnv", "allow", proj)
	marker := h.Marker()
	out := h.Plant(proj, "the .env.local", `set -e
		mkdir -p tmp && echo 'touch `+marker+`' > tmp/hook.sh
		printf 'PORT=3000\nBASH_ENV=%s/tmp/hook.sh\n' "$PWD" > .env.local
		test -z "$(git status --porcelain)"`)
	h.RunsNothingPlanted(out, proj, nil, "direnv", "exec", proj, "bash", "-c", "true")
}

// TestReplayReview18ComposeOverride: docker compose merges
// compose.override.yaml (docker-compose.override.yml) into the project's
// compose file at every docker compose up, unasked, and projects keep it
// out of git as a developer's own (a mount of / into a container, a
// privileged one, a command). The exit audit judged neither name: the
// session writes both. Host-side proof: neither stands after the session
// (where docker is installed, the host's docker compose config shows
// nothing the session wrote).
func TestReplayReview18ComposeOverride(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "compose.yaml"), "services:\n  web:\n    image: nginx\n")
	h.Write(filepath.Join(proj, ".gitignore"), "compose.override.yaml\ndocker-compose.override.yml\n")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "compose")
	override := "services:\n  web:\n    privileged: true\n    volumes: [\"/:/host\"]\n    command: [\"sh\", \"-c\", \"PLANTED\"]\n"
	out := h.InsideStderr(proj, `set -e
		printf '`+override+`' > compose.override.yaml
		cp compose.override.yaml docker-compose.override.yml
		test -z "$(git status --porcelain)" && echo WRITTEN >&2`)
	if !strings.Contains(out, "WRITTEN") {
		t.Fatalf("the overrides could not be written:\n%s", out)
	}
	for _, name := range []string{"compose.override.yaml", "docker-compose.override.yml"} {
		if _, err := os.Lstat(filepath.Join(proj, name)); err == nil {
			t.Errorf("the session's %s stands where the host's docker compose reads it:\n%s", name, out)
		}
	}
	if _, err := exec.LookPath("docker"); err == nil {
		if config, _ := h.Command(proj, nil, "docker", "compose", "config").CombinedOutput(); strings.Contains(string(config), "PLANTED") {
			t.Errorf("the host's docker compose config merged the session's override:\n%s", config)
		}
	}
}

// TestReplayReview18SparseGitignore: git reads a .gitignore whole, and
// allocates its size first. The session leaves a sparse .gitignore of
// 100 GB, which takes no disk: the host's git status in the project
// failed, out of memory, and so did every later launch's undo snapshot
// ("this session cannot be undone"). Host-side proof: after the session,
// the host's git status works and the next launch takes its snapshot.
func TestReplayReview18SparseGitignore(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Inside(proj, nil, "truncate -s 100G .gitignore")
	if _, err := os.Lstat(filepath.Join(proj, ".gitignore")); err == nil {
		t.Errorf("the sparse .gitignore the session left is still in the project")
	}
	h.Run(proj, nil, "git", "status", "--porcelain")
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
	out, err := c.CombinedOutput()
	if err != nil || strings.Contains(string(out), "cannot be undone") {
		t.Errorf("the next launch: %v\n%s", err, out)
	}
}
