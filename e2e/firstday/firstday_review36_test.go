package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay36BuildOutputSaysBuildAgain: a make inside builds into
// build/, which git ignores; the exit moves the program and its object
// file aside (make would take them for up to date) and said "if you
// changed one yourself during the session, put it back; otherwise read
// it first", where what the user needs is to build again (a Node
// project's host npm start failed with MODULE_NOT_FOUND until npm run
// build). It says so, and claudebox --changes, which listed
// "created build/app (ignored)" as if it were there, names where each
// went. The host's make test builds again and runs.
func TestFirstDay36BuildOutputSaysBuildAgain(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "cproj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "build/\n")
	h.Write(filepath.Join(proj, "main.c"), "#include <stdio.h>\nint main(void) { puts(\"hi-36\"); return 0; }\n")
	h.Write(filepath.Join(proj, "Makefile"), "build/app: build/main.o\n\tcc -o $@ $<\nbuild/main.o: main.c\n\tmkdir -p build && cc -c -o $@ main.c\ntest: build/app\n\t./build/app\n.PHONY: test\n")
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "c project")

	out := h.InsideStderr(proj, "make -s test")
	if !strings.Contains(out, "hint: git ignores these, as it does a build's output: to have them again, build on the host (make, npm run build)") || strings.Contains(out, "otherwise read it first") {
		t.Errorf("the exit does not say to build again:\n%s", out)
	}
	changes := h.Run(proj, nil, "claudebox", "--changes")
	aside := filepath.Join(h.Home, ".claudebox", "moved-aside")
	for _, f := range []string{"build/app", "build/main.o"} {
		i := strings.Index(changes, "  created  "+f+" (ignored)\n           moved aside by the session's end to "+aside+"/")
		if i < 0 || !strings.Contains(changes[i:], "/"+f+"\n") {
			t.Errorf("claudebox --changes does not say where %s went:\n%s", f, changes)
		}
	}
	if got := h.Run(proj, nil, "make", "-s", "test"); !strings.Contains(got, "hi-36") {
		t.Errorf("make test on the host after the session: %s", got)
	}
}
