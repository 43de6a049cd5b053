package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview22PlantedReflogEntries: git reset --hard HEAD@{1} (or
// master@{1}) is how a user undoes a move, and git takes what the reflog's
// second last line says for it. The exit audit judged logs/HEAD only by
// its last checkout line, and the reflogs of branches not at all: the
// session appends two lines to each, a move to a commit of its own whose
// Makefile runs its code and one back, which git status, git log and git
// checkout - show nothing of. Host-side proof: the end names both
// reflogs; the host's reset to each and make ran the session's commit.
func TestReplayReview22PlantedReflogEntries(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "all:\n\t@echo ok\n")
	harness.CommitAll(h, proj, "build")
	// The user's last checkout came from a branch: git checkout - is
	// no way in.
	h.Run(proj, nil, "git", "switch", "-q", "-c", "topic")
	h.Run(proj, nil, "git", "switch", "-q", "master")
	mine := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", "HEAD"))
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "reflog entries", `
		export GIT_INDEX_FILE=/tmp/index GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		git read-tree master
		mk=$(printf 'all:\n\t@touch `+marker+`\n' | git hash-object -w --stdin)
		git update-index --cacheinfo 100644,$mk,Makefile
		c=$(git commit-tree $(git write-tree) -p master -m 'fix')
		for log in .git/logs/HEAD .git/logs/refs/heads/master; do
			printf '%s %s t <t@example.com> 1700000000 +0000\treset: moving to %s\n' `+mine+` $c $c >> $log
			printf '%s %s t <t@example.com> 1700000001 +0000\treset: moving to HEAD@{1}\n' $c `+mine+` >> $log
		done
		unset GIT_INDEX_FILE`)
	for _, rev := range []string{"HEAD@{1}", "master@{1}"} {
		h.Command(proj, nil, "git", "reset", "-q", "--hard", rev).Run()
		h.Command(proj, nil, "make").Run()
		_, err := os.Stat(marker)
		t.Logf("the host's git reset --hard %s and make ran the session's commit: %t", rev, err == nil)
		os.Remove(marker)
		h.Run(proj, nil, "git", "update-ref", "refs/heads/master", mine)
		h.Run(proj, nil, "git", "checkout", "-q", "-f", "master")
	}
	for _, log := range []string{"logs/HEAD", "logs/refs/heads/master"} {
		if !strings.Contains(out, filepath.Join(proj, ".git", log)+"\n") {
			t.Errorf("the end did not name %s, whose entries the session wrote:\n%s", log, out)
		}
	}
}

// TestReplayReview22OwnReflogUnnamed: a session that commits on the
// branch checked out appends to logs/HEAD and the branch's reflog what
// git log shows; the end named logs/HEAD after every session wherever the
// user's own last checkout came from a commit (git checkout -), a false
// alarm that teaches a user to skip the names. It names neither.
func TestReplayReview22OwnReflogUnnamed(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	mine := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", "HEAD"))
	h.Run(proj, nil, "git", "checkout", "-q", mine)
	h.Run(proj, nil, "git", "checkout", "-q", "master")
	out := h.InsideStderr(proj, `set -e
		export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		echo one > a && git add a && git commit -qm one
		echo two > b && git add b && git commit -qm two
		echo COMMITTED >&2`)
	if !strings.Contains(out, "COMMITTED") {
		t.Fatalf("the session did not commit:\n%s", out)
	}
	for _, log := range []string{"logs/HEAD", "logs/refs/heads/master"} {
		if strings.Contains(out, filepath.Join(proj, ".git", log)) {
			t.Errorf("the end named %s, which holds only the commits git log shows:\n%s", log, out)
		}
	}
}

// TestReplayReview22ReftableRefs: in a repository whose refs are reftable
// tables (extensions.refStorage = reftable, which git 2.45 and later
// makes and reads), every ref, the replace refs, the stash and the
// reflogs among them, is in .git/reftable, which the exit audit walked
// only for what is no file: the session writes a table there and the
// host's git would take its refs, unnamed (a replace ref shows the
// session's object wherever git reads the one named). The git here is
// older: the proof is that the end names what it did not read.
func TestReplayReview22ReftableRefs(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	git := filepath.Join(proj, ".git")
	h.Write(filepath.Join(git, "config"), "[core]\n\trepositoryformatversion = 1\n[extensions]\n\trefStorage = reftable\n")
	h.Write(filepath.Join(git, "reftable", "tables.list"), "0x000000000001-0x000000000001-00000000.ref\n")
	h.Write(filepath.Join(git, "reftable", "0x000000000001-0x000000000001-00000000.ref"), "REFT\x01")
	oid := strings.Repeat("1", 40)
	out := h.InsideStderr(proj, `set -e
		printf 'REFT\001refs/replace/`+oid+`' > .git/reftable/0x000000000002-0x000000000002-00000000.ref
		echo 0x000000000002-0x000000000002-00000000.ref >> .git/reftable/tables.list
		echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the table could not be planted:\n%s", out)
	}
	if !strings.Contains(out, filepath.Join(git, "reftable")) {
		t.Errorf("the end did not name the reftable tables the session wrote:\n%s", out)
	}
}

// TestReplayReview22MakeIncludesResolved: make resolves an include from
// where it runs, not from the including file's directory (build/rules.mk's
// -include local.conf reads the top's local.conf), and includes what a
// variable the makefile sets names (-include $(CONF), CONF ?= site.conf).
// The exit audit resolved each include from its file's directory and
// dropped a word that is only a variable: the session writes both files,
// ignored. Host-side proof: the host's make runs nothing it wrote.
func TestReplayReview22MakeIncludesResolved(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "CONF ?= site.conf\n-include $(CONF)\ninclude build/rules.mk\nall:\n\t@echo ok\n")
	h.Write(filepath.Join(proj, "build", "rules.mk"), "-include local.conf\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/site.conf\n/local.conf\n")
	harness.CommitAll(h, proj, "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "included files", `
		printf 'X := $(shell touch `+marker+`.site)\n' > site.conf
		printf 'Y := $(shell touch `+marker+`.local)\n' > local.conf`)
	ran, _ := h.Command(proj, nil, "make").CombinedOutput()
	for _, what := range []string{"site", "local"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's make ran the %s.conf the session wrote:\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview22CargoTargetDir: cargo builds where .cargo/config.toml's
// [build] target-dir (or CARGO_TARGET_DIR) says, and links into the
// program it builds the compiled crates it finds there fresh (.rlib,
// .rmeta, by their times), which git ignores. The exit audit judged
// cargo's target/ beside Cargo.toml, not another: the session writes a
// dependency's compiled crate there, which the host's next cargo build
// links, moving its program aside to have it linked again. No cargo
// runs here as the test's user: the host-side proof is that none of what
// the session wrote is where the host's cargo reads it.
func TestReplayReview22CargoTargetDir(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Cargo.toml"), "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
	h.Write(filepath.Join(proj, ".cargo", "config.toml"), "[build]\ntarget-dir = \"out\"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/out/\n")
	harness.CommitAll(h, proj, "cargo")
	h.Write(filepath.Join(proj, "out", "debug", "deps", "libdep-0123456789abcdef.rlib"), "!<arch>\n")
	h.Write(filepath.Join(proj, "out", "debug", "deps", "libdep-0123456789abcdef.rmeta"), "rust\n")
	out := harness.PlantUnseen(t, h, proj, "compiled crates", `
		printf '!<arch>\nplanted\n' > out/debug/deps/libdep-0123456789abcdef.rlib
		printf 'rust planted\n' > out/debug/deps/libdep-0123456789abcdef.rmeta`)
	for _, name := range []string{"libdep-0123456789abcdef.rlib", "libdep-0123456789abcdef.rmeta"} {
		if b, err := os.ReadFile(filepath.Join(proj, "out", "debug", "deps", name)); err == nil && strings.Contains(string(b), "planted") {
			t.Errorf("%s, which the session wrote, is where the host's cargo reads it:\n%s", name, out)
		}
	}
}
