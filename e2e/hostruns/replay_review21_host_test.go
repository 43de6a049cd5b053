package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview21RefsTheHostChecksOut: git status shows the branch
// checked out and its commits, not what the other refs of the git
// directory name, and the host's git writes what those name into the
// work tree at its routine commands: git merge or git reset --hard
// origin/master (a remote-tracking ref every fetch writes), git reset
// --hard ORIG_HEAD (the undo of a reset, merge or rebase), git merge
// FETCH_HEAD, git bisect reset (back to BISECT_START, unasked for a
// commit) and git checkout - (back to where the last checkout line of
// logs/HEAD says HEAD came from). The exit audit judged none of them:
// the session points each at a commit of its own whose Makefile runs its
// code. Host-side proof: BISECT_START, which git bisect reset follows
// unnamed, is moved aside (the host's git bisect reset then runs
// nothing); the others, which the host names or which a fetch or the
// session's own work writes, are named at the end with the branches.
func TestReplayReview21RefsTheHostChecksOut(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "all:\n\t@echo ok\n")
	harness.CommitAll(h, proj, "build")
	h.Run(proj, nil, "git", "update-ref", "refs/remotes/origin/master", "HEAD")
	h.Run(proj, nil, "git", "update-ref", "refs/remotes/origin/stable", "HEAD")
	h.Run(proj, nil, "git", "switch", "-q", "-c", "topic")
	h.Run(proj, nil, "git", "switch", "-q", "master")
	mine := strings.TrimSpace(h.Run(proj, nil, "git", "rev-parse", "HEAD"))
	marker := h.Marker()
	commit := func(what string) string {
		return `
		mk=$(printf 'all:\n\t@touch ` + marker + `.` + what + `\n' | git hash-object -w --stdin)
		git update-index --cacheinfo 100644,$mk,Makefile
		c=$(git commit-tree $(git write-tree) -p master -m 'fix')`
	}
	out := harness.PlantUnseen(t, h, proj, "refs", `
		export GIT_INDEX_FILE=/tmp/index GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		git read-tree master`+
		commit("checkout")+`
		printf '%s %s t <t@example.com> 1700000000 +0000\tcheckout: moving from %s to master\n' `+mine+` `+mine+` $c >> .git/logs/HEAD`+
		commit("bisect")+`
		echo $c > .git/BISECT_START`+
		commit("orig")+`
		echo $c > .git/ORIG_HEAD`+
		commit("remote")+`
		git update-ref refs/remotes/origin/master $c`+
		commit("fetch")+`
		printf '%s\t\tbranch '\''master'\'' of /elsewhere\n' $c > .git/FETCH_HEAD
		unset GIT_INDEX_FILE`)
	ran := map[string]bool{}
	host := func(what string, git ...string) {
		h.Command(proj, nil, "git", git...).Run()
		h.Command(proj, nil, "make").Run()
		_, err := os.Stat(marker + "." + what)
		ran[what] = err == nil
		// Back, writing no ORIG_HEAD (a reset would).
		h.Run(proj, nil, "git", "update-ref", "refs/heads/master", mine)
		h.Run(proj, nil, "git", "checkout", "-q", "-f", "master")
	}
	host("checkout", "checkout", "-q", "-")
	host("orig", "reset", "-q", "--hard", "ORIG_HEAD")
	host("bisect", "bisect", "reset")
	host("remote", "merge", "-q", "--ff-only", "origin/master")
	host("fetch", "merge", "-q", "--ff-only", "FETCH_HEAD")
	if ran["bisect"] {
		t.Errorf("the host's git bisect reset and make ran the commit the session named in BISECT_START:\n%s", out)
	}
	for what, ref := range map[string]string{"checkout": "logs/HEAD", "orig": "ORIG_HEAD", "remote": "refs/remotes/origin/master", "fetch": "FETCH_HEAD"} {
		if !strings.Contains(out, filepath.Join(proj, ".git", ref)+"\n") {
			t.Errorf("the end did not name %s, which the session wrote (the host's git and make ran it: %t):\n%s", ref, ran[what], out)
		}
	}
	for _, ref := range []string{"refs/remotes/origin/stable", "refs/heads/topic"} {
		if strings.Contains(out, filepath.Join(proj, ".git", ref)) {
			t.Errorf("the end named %s, which the session left as it was:\n%s", ref, out)
		}
	}
}

// TestReplayReview21MakeIncludesAnyName: a makefile includes files git
// ignores by names no extension tells (git's own -include config.mak,
// the kernel's include/config/auto.conf), and make runs what an included
// file's $(shell …) says at every make. The exit audit judged a
// makefile's *.mk and Makefile.<name> parts and the dependency files,
// not those: the session writes both. Host-side proof: after the
// session, the host's make runs nothing the session wrote.
func TestReplayReview21MakeIncludesAnyName(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "-include config.mak\ninclude local.mk\nall:\n\t@echo ok\n")
	h.Write(filepath.Join(proj, "local.mk"), "-include $(srctree)/include/config/auto.conf\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/config.mak\n/include/config/\n")
	harness.CommitAll(h, proj, "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "included files", `
		printf 'X := $(shell touch `+marker+`.mak)\n' > config.mak
		mkdir -p include/config && printf 'X := $(shell touch `+marker+`.conf)\n' > include/config/auto.conf`)
	ran, _ := h.Command(proj, nil, "make", "srctree=.").CombinedOutput()
	for _, what := range []string{"mak", "conf"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's make ran the included .%s file the session wrote:\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview21BuildToolFiles: build tools read, where they run,
// files a project keeps out of git and obey them by running what they
// say: Bazel imports user.bazelrc (--run_under, the server's JVM
// options), Android's Gradle build runs the tools of local.properties'
// sdk.dir, sbt's launcher passes .jvmopts to the JVM (-javaagent), an
// IDE opening an sbt project runs .bsp/sbt.json's argv, and Parcel takes
// compiled code from .parcel-cache for sources unchanged. The exit audit
// judged none of them. None of these tools is installed here: the
// host-side proof is that after the session none of what it wrote is
// where the host's tool reads it, and that the end says so.
func TestReplayReview21BuildToolFiles(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/user.bazelrc\n/local.properties\n/.jvmopts\n/.bsp/\n/.parcel-cache/\n")
	harness.CommitAll(h, proj, "ignores")
	h.Write(filepath.Join(proj, ".parcel-cache", "data.mdb"), "cache\n")
	out := harness.PlantUnseen(t, h, proj, "build tools' files", `
		echo 'build --run_under=/tmp/x' > user.bazelrc
		echo 'sdk.dir=/tmp/sdk' > local.properties
		echo '-javaagent:/tmp/a.jar' > .jvmopts
		mkdir .bsp && echo '{"argv":["sh","-c","touch /tmp/x"]}' > .bsp/sbt.json
		echo 'planted' > .parcel-cache/data.mdb`)
	for _, rel := range []string{"user.bazelrc", "local.properties", ".jvmopts", ".bsp/sbt.json", ".parcel-cache/data.mdb"} {
		if _, err := os.Stat(filepath.Join(proj, rel)); err == nil {
			t.Errorf("%s, which the session wrote, is where the host's tool reads it:\n%s", rel, out)
		}
		if !strings.Contains(out, strings.Split(rel, "/")[0]) {
			t.Errorf("the end did not name %s:\n%s", rel, out)
		}
	}
}
