package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanNewlyIgnored: the session writes a GNUmakefile (make prefers it
// to the Makefile) and a .gitignore that ignores both, a file under a
// directory the user had that a new rule hides, and a new directory a rule
// hides whole: git status shows none of them, and each is a finding. It
// rewrites the makefile the user keeps untracked (git shows no change of
// it), and the tracked Makefile, which git diff shows: only the first is
// a finding. Ignored by the user's own rules, a file the session changed
// is not the .gitignore's to judge.
func TestScanNewlyIgnored(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = root
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	for _, p := range []string{"Makefile", "tools/run.sh", "sub/makefile", "old/.gitignore", "old/cache.bin"} {
		write(t, filepath.Join(root, p))
	}
	must(t, os.WriteFile(filepath.Join(root, "old", ".gitignore"), []byte("cache.bin\n"), 0o644))
	git("add", "Makefile", "tools/run.sh", "old/.gitignore")
	git("commit", "-qm", "i")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	must(t, os.WriteFile(filepath.Join(root, ".gitignore"), []byte("# hide\nGNUmakefile\n/.gitignore\ntools/*.sh\ngen/\n"), 0o644))
	write(t, filepath.Join(root, "GNUmakefile"))
	write(t, filepath.Join(root, "tools", "evil.sh"))
	write(t, filepath.Join(root, "gen", "a", "b.sh"))
	must(t, os.WriteFile(filepath.Join(root, "Makefile"), []byte("all:\n\ttouch x\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "sub", "makefile"), []byte("all:\n\ttouch x\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "old", "cache.bin"), []byte("y"), 0o644))
	if out := git("status", "--porcelain"); out != " M Makefile\n?? sub/\n" {
		t.Fatalf("git status says %q", out)
	}
	want := []string{".gitignore", "GNUmakefile", "gen", "sub/makefile", "tools/evil.sh"}
	for i, p := range want {
		want[i] = filepath.Join(root, p)
	}
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found %q, want %q", r.Found, want)
	}
}

// TestScanTaskFiles: just's, Task's and rake's files are judged as
// make's: one the user keeps untracked, rewritten, is a finding (git
// shows no change of it), as is a part one includes or rake loads
// (local.just, Makefile.local, rakelib/x.rake, a compiler's dependency
// file build/main.d, .deps/main.Po, a generator's build files
// build.make, Makefile2, build.ninja) the session made that git does not
// track; the tracked Rakefile, which git diff shows, is not, nor a file
// in a directory named as one (conf.d/x).
func TestScanTaskFiles(t *testing.T) {
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		c.Dir = root
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	for _, p := range []string{"Rakefile", "Justfile", "web/Taskfile.yml"} {
		write(t, filepath.Join(root, p))
	}
	git("add", "Rakefile")
	git("commit", "-qm", "i")
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{
		"Rakefile", "Justfile", "web/Taskfile.yml", "local.just", "rakelib/x.rake", "Makefile.local", "build/main.d", ".deps/main.Po", ".deps/lib.Plo", "conf.d/x",
		"build/CMakeFiles/Makefile2", "build/CMakeFiles/app.dir/build.make", "build/cmake_install.cmake", "build/build.ninja",
	} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte("evil"), 0o644))
	}
	want := []string{
		".deps/lib.Plo", ".deps/main.Po", "Justfile", "Makefile.local", "build/CMakeFiles/Makefile2", "build/CMakeFiles/app.dir/build.make",
		"build/build.ninja", "build/cmake_install.cmake", "build/main.d", "local.just", "rakelib/x.rake", "web/Taskfile.yml",
	}
	for i, p := range want {
		want[i] = filepath.Join(root, p)
	}
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found %q, want %q", r.Found, want)
	}
}
