package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview34rBytecodeBesideProgramsAndToolchainTop: Python's
// bytecode of a source left out is left out too, where the walk that
// judges the bytecode's __pycache__ knew the source's verdict. A PATH
// directory's own files (~/bin) and a /usr/local toolchain's top are
// judged apart from their directories, each walked on its own: ~/bin's
// helper module settings.py (not a program, so not shown) and
// /usr/local/tools' config.py (left out for its password) kept their
// passwords in __pycache__, which was shown. The attack, from inside:
// grep the bytecode. Proof: neither password is inside; a harmless
// module's bytecode and the programs still are.
func TestReplayReview34rBytecodeBesideProgramsAndToolchainTop(t *testing.T) {
	h := harness.NewHost(t)
	if h.UID < 0 {
		t.Skip("a mount over /usr/local needs root")
	}
	harness.RequireTool(t, "python3", "apt-get install python3")
	const secret = "R34pyctop"
	proj := filepath.Join(h.Home, "code", "p")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "deploy"), "#!/usr/bin/env python3\nimport settings, util\nprint('R34-DEPLOY')\n")
	h.Write(filepath.Join(bin, "settings.py"), "DB_PASSWORD = \""+secret+"BinPw\"\n")
	h.Write(filepath.Join(bin, "util.py"), "NAME = 'R34-BINUTIL'\n")
	harness.Must(t, os.Chmod(filepath.Join(bin, "deploy"), 0o755))
	stage := filepath.Join(h.Base, "usr-local")
	tools := filepath.Join(stage, "tools")
	h.Write(filepath.Join(tools, "bin", "tool"), "#!/bin/sh\necho R34-TOOL\n")
	h.Write(filepath.Join(tools, "config.py"), "API_PASSWORD = \""+secret+"TopPw\"\n")
	h.Write(filepath.Join(tools, "common.py"), "NAME = 'R34-TOPUTIL'\n")
	// The host runs them: Python writes each module's bytecode beside it.
	h.Run(bin, nil, "python3", "-c", "import settings, util")
	h.Run(tools, nil, "python3", "-c", "import config, common")
	filepath.WalkDir(stage, func(p string, d os.DirEntry, err error) error {
		if err == nil && (d.IsDir() || filepath.Base(filepath.Dir(p)) == "bin") {
			os.Chmod(p, 0o755)
		} else if err == nil {
			os.Chmod(p, 0o644)
		}
		return nil
	})
	if host := h.Run(h.Home, nil, "sh", "-c", "cat "+bin+"/__pycache__/settings.*.pyc "+tools+"/__pycache__/config.*.pyc"); strings.Count(host, secret) != 2 {
		t.Fatalf("the host's Python kept no bytecode holding the literals, the test proves nothing:\n%q", host)
	}
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/tools/bin:/usr/local/bin:/usr/bin:/bin"}
	out := h.RunOver(stage, "/usr/local", proj, "env", append(env, "claudebox", "--shell", "-c", "exec 2>&1; grep -rao '"+secret+"[A-Za-z0-9]*' "+bin+" /usr/local/tools; grep -rhoa 'R34-[A-Z]*' "+bin+"/__pycache__ /usr/local/tools/__pycache__; tool; true")...)
	t.Log(out)
	if strings.Contains(out, secret) {
		t.Errorf("the bytecode of a source left out is readable inside, beside a PATH directory's programs or at a toolchain's top")
	}
	for _, want := range []string{"R34-BINUTIL", "R34-TOPUTIL", "R34-TOOL"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %s", want)
		}
	}
}
