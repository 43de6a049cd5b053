package hostruns

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview23MakeIncludesUnresolved: a makefile includes what a
// function or a substitution makes of its variables ($(SRCS:.c=.dep),
// $(sort $(wildcard conf.d/*.conf)), $(shell ls local/*)), which the exit
// audit cannot spell, and passed over: the session writes each, ignored,
// by a name that is no makefile's part. Host-side proof: the host's make
// runs nothing it wrote.
func TestReplayReview23MakeIncludesUnresolved(t *testing.T) {
	harness.RequireTool(t, "make", "apt-get install make")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "Makefile"), "SRCS := main.c\nCONFS := $(sort $(wildcard conf.d/*.conf))\n"+
		"-include $(SRCS:.c=.dep)\n-include $(CONFS)\n-include $(shell ls local/* 2>/dev/null)\nall:\n\t@echo ok\n")
	h.Write(filepath.Join(proj, ".gitignore"), "*.dep\n/conf.d/\n/local/\n")
	harness.CommitAll(h, proj, "build")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "included files", `
		mkdir -p conf.d local
		printf 'X := $(shell touch `+marker+`.dep)\n' > main.dep
		printf 'Y := $(shell touch `+marker+`.conf)\n' > conf.d/a.conf
		printf 'Z := $(shell touch `+marker+`.shell)\n' > local/settings`)
	ran, _ := h.Command(proj, nil, "make").CombinedOutput()
	for _, what := range []string{"dep", "conf", "shell"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's make ran the .%s include the session wrote:\n%s\n%s", what, out, ran)
		}
	}
}

// TestReplayReview23SharedLibraryByItsName: the loader maps the library
// a program names (libgreet.so.1, by its soname, from its rpath) whatever
// its mode and extension, and git ignores a build's libraries with the
// program. The exit audit judged an ignored file by its mode, its #! and
// its extension, and .1 is none: the session rewrites the host's own
// build's library, mode 644. Host-side proof: the host's run of its own
// program runs nothing the session wrote.
func TestReplayReview23SharedLibraryByItsName(t *testing.T) {
	harness.RequireTool(t, "gcc", "apt-get install gcc")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "greet.c"), "#include <stdio.h>\nvoid greet(void) { puts(\"hello\"); }\n")
	h.Write(filepath.Join(proj, "main.c"), "void greet(void);\nint main(void) { greet(); return 0; }\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/build/\n")
	harness.CommitAll(h, proj, "build")
	h.Run(proj, nil, "mkdir", "-p", "build/lib")
	h.Run(proj, nil, "gcc", "-shared", "-fPIC", "-Wl,-soname,libgreet.so.1", "-o", "build/lib/libgreet.so.1", "greet.c")
	h.Run(proj, nil, "ln", "-s", "libgreet.so.1", "build/lib/libgreet.so")
	h.Run(proj, nil, "gcc", "-o", "build/app", "main.c", "-Lbuild/lib", "-lgreet", "-Wl,-rpath,$ORIGIN/lib")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "library", `
		printf '#include <stdio.h>\nvoid greet(void) { puts("hello"); }\n__attribute__((constructor)) static void run(void) { fclose(fopen("`+marker+`", "w")); }\n' > /tmp/evil.c
		gcc -shared -fPIC -Wl,-soname,libgreet.so.1 -o /tmp/evil.so /tmp/evil.c
		cat /tmp/evil.so > build/lib/libgreet.so.1
		chmod 644 build/lib/libgreet.so.1`)
	h.RunsNothingPlanted(out, proj, nil, "build/app")
}

// TestReplayReview23PdbStartupFile: Python's debugger runs the .pdbrc of
// the directory it starts in (after the home's), each line a command or
// a Python statement, at python -m pdb, pytest --pdb and every
// breakpoint(): an interpreter's startup file as .irbrc is irb's, which
// the exit audit did not know. The session writes one. Host-side proof:
// the host's pdb runs nothing the session wrote.
func TestReplayReview23PdbStartupFile(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "main.py"), "print('ok')\n")
	harness.CommitAll(h, proj, "main")
	marker := h.Marker()
	out := h.Plant(proj, "the .pdbrc", `printf 'import os; os.system("touch `+marker+`")\n' > .pdbrc`)
	h.RunsNothingPlanted(out, proj, nil, "python3", "-m", "pdb", "-c", "continue", "main.py")
}

// TestReplayReview23EnvrcSources: direnv asks again for an .envrc that
// changed, never for what it sources (source_env_if_exists config/local),
// which git ignores, by any name. The session writes that file. Host-side
// proof: the host's direnv, the .envrc allowed before, runs nothing the
// session wrote.
func TestReplayReview23EnvrcSources(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env_if_exists config/local\nsource_env_if_exists \"$PWD/config/more\"\n")
	h.Write(filepath.Join(proj, ".gitignore"), "/config/\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := harness.PlantUnseen(t, h, proj, "sourced files", `
		mkdir -p config
		printf 'touch `+marker+`.local\n' > config/local
		printf 'touch `+marker+`.more\n' > config/more`)
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "true").CombinedOutput()
	for _, what := range []string{"local", "more"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's direnv ran config/%s, which the session wrote:\n%s\n%s", what, out, ran)
		}
	}
}
