package secrets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview33rOpamSwitchRuns: an opam switch, whose bin/ opam env
// puts on PATH (~/.opam/default/bin), widens to its root, which is no
// checkout of one's own tools but OCaml's as opam installs it, its lib/
// the packages it built (25,000 files for a switch with dune, merlin and
// core). Judged file by file as a root of one's own, the launch took
// seconds to read them, and past 20,000 hid lib/ whole: the compiler and
// every tool of the switch failed inside, not finding their libraries.
// Proof: the switch's program runs inside with the library it reads.
func TestReplayReview33rOpamSwitchRuns(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	sw := filepath.Join(h.Home, ".opam", "default")
	h.Write(filepath.Join(sw, "bin", "ocaml"), "#!/bin/sh\ncat \"$(dirname \"$0\")/../lib/ocaml/VERSION\"\n")
	if err := os.Chmod(filepath.Join(sw, "bin", "ocaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(sw, "lib", "ocaml", "VERSION"), "OCAML-5.1.1-RUNS\n")
	for i := range 25000 {
		dir := filepath.Join(sw, "lib", fmt.Sprintf("pkg%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("m%d.ml", i)), []byte(fmt.Sprintf("let f x = x + %d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.Chown()
	env := []string{"PATH=" + filepath.Join(sw, "bin") + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; ocaml; true")
	if !strings.Contains(out, "OCAML-5.1.1-RUNS") {
		t.Errorf("inside, the opam switch's ocaml does not find its library:\n%s", out)
	}
}
