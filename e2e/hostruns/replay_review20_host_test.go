package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview20PlantedStash: you stash your work before a session
// and pop it after, and git stash pop writes what the stash holds, its
// untracked and ignored files too (a stash's third parent), which git
// status then shows nothing of. The exit audit judged the refs only for
// replace refs: the session stores, in place of your stash, your work
// plus an ignored build output of its own that the project's make takes for
// up to date. Host-side proof: after the session, the host's git stash
// pop and make run run nothing the session wrote.
func TestReplayReview20PlantedStash(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/app\n")
	h.Write(filepath.Join(proj, "app.sh"), "#!/bin/sh\necho built\n")
	h.Write(filepath.Join(proj, "Makefile"), "run: app\n\t./app\napp: app.sh\n\tcp app.sh app && chmod +x app\n")
	harness.CommitAll(h, proj, "build")
	h.Write(filepath.Join(proj, "notes.txt"), "my work in progress\n")
	h.Run(proj, nil, "git", "stash", "push", "-q", "--include-untracked", "-m", "wip")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "stash", `
		export GIT_INDEX_FILE=/tmp/untracked GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		git read-tree 'stash^3'
		app=$(printf '#!/bin/sh\ntouch `+marker+`\n' | git hash-object -w --stdin)
		git update-index --add --cacheinfo 100755,$app,app
		u=$(git commit-tree $(git write-tree) -m 'untracked files on main')
		s=$(git commit-tree 'stash^{tree}' -p 'stash^1' -p 'stash^2' -p $u -m 'On main: wip')
		git stash drop -q
		git stash store -q -m 'On main: wip' $s
		unset GIT_INDEX_FILE`)
	popped, _ := h.Command(proj, nil, "git", "stash", "pop").CombinedOutput()
	ran, _ := h.Command(proj, nil, "make", "run").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's git stash pop and make run ran what the session stashed:\n%s\n%s%s", out, popped, ran)
	}
	if !strings.Contains(out, filepath.Join(proj, ".git", "refs", "stash")) {
		t.Errorf("the end did not name the stash the session stored:\n%s", out)
	}
}

// TestReplayReview20MovedBranch: git status and git log show the branch
// checked out, not the others, and git switch writes what a branch holds.
// The exit audit judged no branch: the session moves the project's
// release branch to a commit of its own whose Makefile runs its code.
// What is committed is history, left knowingly; the end now names each
// branch and tag the session moved or made but the one checked out (a
// commit there is what git log shows). Host-side proof: the end names
// the release branch, not the one checked out, and says what would write
// the session's version.
func TestReplayReview20MovedBranch(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "all:\n\t@echo ok\n")
	harness.CommitAll(h, proj, "build")
	h.Run(proj, nil, "git", "branch", "release")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "branch", `
		export GIT_INDEX_FILE=/tmp/release GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
		git read-tree release
		mk=$(printf 'all:\n\t@touch `+marker+`\n' | git hash-object -w --stdin)
		git update-index --cacheinfo 100644,$mk,Makefile
		git update-ref refs/heads/release $(git commit-tree $(git write-tree) -p release -m 'release fix')
		git tag v1 release
		unset GIT_INDEX_FILE
		git commit -q --allow-empty -m 'its own work'`)
	switched, _ := h.Command(proj, nil, "git", "switch", "-q", "release").CombinedOutput()
	made, _ := h.Command(proj, nil, "make").CombinedOutput()
	_, err := os.Stat(marker)
	for _, ref := range []string{"heads/release", "tags/v1"} {
		if !strings.Contains(out, filepath.Join(proj, ".git", "refs", ref)) {
			t.Errorf("the end did not name %s, which the session moved or made (the host's make there ran it: %t):\n%s\n%s%s", ref, err == nil, out, switched, made)
		}
	}
	if strings.Contains(out, filepath.Join(proj, ".git", "refs", "heads", "master")) {
		t.Errorf("the end named the branch checked out, which git log shows:\n%s", out)
	}
}

// TestReplayReview20MakeDependencyFiles: a C project's Makefile includes
// the dependency files its compiler writes beside the objects (cc -MMD's
// build/main.d, automake's .deps/main.Po), in a build directory git
// ignores, and make runs what an included file's $(shell …) says at
// every make. The exit audit judged a makefile's *.mk and Makefile.<name>
// parts, not those: the session writes one. Host-side proof: after the
// session, the host's make runs nothing the session wrote.
func TestReplayReview20MakeDependencyFiles(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/build/\n.deps/\n")
	h.Write(filepath.Join(proj, "Makefile"), "all:\n\t@echo ok\n-include $(wildcard build/*.d)\n-include $(wildcard .deps/*.Po)\n")
	harness.CommitAll(h, proj, "make")
	h.Write(filepath.Join(proj, "build", "main.d"), "build/main.o: main.c\n")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "dependency files", `
		printf 'X := $(shell touch `+marker+`.d)\n' >> build/main.d
		mkdir .deps && printf 'X := $(shell touch `+marker+`.Po)\n' > .deps/main.Po`)
	ran, _ := h.Command(proj, nil, "make").CombinedOutput()
	for _, what := range []string{"d", "Po"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's make ran the .%s file the session wrote:\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview20CMakeBuildDirectory: CMake writes the makefiles of a
// build into a build directory git ignores (build/Makefile runs make on
// CMakeFiles/Makefile2, which runs it on each target's
// CMakeFiles/<target>.dir/build.make), and the host's make -C build (or
// cmake --build build) runs their recipes as they stand until
// CMakeLists.txt changes. The exit audit judged an untracked Makefile
// changed, not those: the session writes its commands into them.
// Host-side proof: after the session, the host's make -C build runs
// nothing the session wrote.
func TestReplayReview20CMakeBuildDirectory(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/build/\n")
	h.Write(filepath.Join(proj, "CMakeLists.txt"), "project(app C)\nadd_executable(app main.c)\n")
	harness.CommitAll(h, proj, "cmake")
	h.Write(filepath.Join(proj, "build", "Makefile"), "all:\n\t@$(MAKE) -s -f CMakeFiles/Makefile2 all\n")
	h.Write(filepath.Join(proj, "build", "CMakeFiles", "Makefile2"), "all:\n\t@$(MAKE) -s -f CMakeFiles/app.dir/build.make app\n")
	h.Write(filepath.Join(proj, "build", "CMakeFiles", "app.dir", "build.make"), "app:\n\t@echo built\n")
	h.Run(proj, nil, "make", "-s", "-C", "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "build's makefiles", `
		printf '\t@touch `+marker+`.Makefile2\n' >> build/CMakeFiles/Makefile2
		printf '\t@touch `+marker+`.make\n' >> build/CMakeFiles/app.dir/build.make`)
	ran, _ := h.Command(proj, nil, "make", "-s", "-C", "build").CombinedOutput()
	for _, what := range []string{"Makefile2", "make"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's make -C build ran what the session wrote into %s:\n%s\n%s", what, out, ran)
		}
	}
}
