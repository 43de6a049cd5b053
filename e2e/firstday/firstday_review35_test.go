package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay35BuildOutputSaidOnce: a C project's Makefile builds into
// build/, which git ignores; the session runs make test. The exit moves
// aside what the host's make would take for up to date (the program,
// its object file), each named with its mv, and then said again
// "build/: 3 files changed, which git ignores" with its hint, counting
// the files it had just moved aside:
// a plain make ended in two messages about one directory, the second
// wrong about what is there. The count is of what the session left
// that was not named ("1 file" where one was); all named, it is not
// said. The host's
// make test then builds again and runs.
func TestFirstDay35BuildOutputSaidOnce(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "cproj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "build/\nlogs/\n")
	h.Write(filepath.Join(proj, "main.c"), "#include <stdio.h>\nint main(void) { puts(\"hi-35\"); return 0; }\n")
	h.Write(filepath.Join(proj, "Makefile"), "build/app: build/main.o\n\tcc -o $@ $<\nbuild/main.o: main.c\n\tmkdir -p build && cc -c -o $@ main.c\ntest: build/app\n\t./build/app\n.PHONY: test\n")
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "c project")

	out := h.InsideStderr(proj, "make -s test")
	for _, f := range []string{"build/app", "build/main.o"} {
		if !strings.Contains(out, "  "+filepath.Join(proj, f)+"\n") {
			t.Errorf("the exit does not name %s, moved aside:\n%s", f, out)
		}
	}
	if strings.Contains(out, "which git ignores") || strings.Contains(out, "claudebox --changes lists them") {
		t.Errorf("the exit says again, as changed there, the build's files it moved aside:\n%s", out)
	}
	if got := h.Run(proj, nil, "make", "-s", "test"); !strings.Contains(got, "hi-35") {
		t.Errorf("make test on the host after the session: %s", got)
	}

	// What the session left unnamed is counted, in words.
	out = h.InsideStderr(proj, "touch main.c && make -s test >/dev/null && mkdir logs && echo log > logs/test.log")
	if !strings.Contains(out, "claudebox: logs/: 1 file changed, which git ignores\n") || strings.Contains(out, "build/: ") {
		t.Errorf("the exit does not count the one file left in logs/ alone:\n%s", out)
	}
}
