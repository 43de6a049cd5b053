package hostruns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview29rMercurialIncludeThroughLink: the user's .hg/hgrc
// includes the team's configuration the project tracks (%include
// ../conf/hgrc.team). hg opens it following links, a directory's on the
// way too; the exit audit read each include without following one, and
// took an include it could not reach for none. The session moves conf
// aside and puts a link in its place to a directory of its own holding
// an hgrc.team with a pre-status hook. Host-side proof: after the
// session, the host's hg status runs nothing the session wrote.
func TestReplayReview29rMercurialIncludeThroughLink(t *testing.T) {
	harness.RequireTool(t, "hg", "apt-get install mercurial")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "main.py"), "print(1)\n")
	h.Write(filepath.Join(proj, "conf", "hgrc.team"), "[ui]\nmerge = internal:merge\n")
	h.Run(proj, nil, "hg", "init")
	h.Write(filepath.Join(proj, ".hg", "hgrc"), "[paths]\ndefault = https://hg.example.com/proj\n%include ../conf/hgrc.team\n")
	h.Run(proj, nil, "hg", "--config", "ui.username=u <u@example.com>", "commit", "-q", "-A", "-m", "main")
	marker := h.Marker()
	out := h.InsideStderr(proj, `mkdir team && printf '[hooks]\npre-status.t = touch `+marker+`\n' > team/hgrc.team &&
		mv conf conf.old && ln -s team conf && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the link could not be planted:\n%s", out)
	}
	ran, _ := h.Command(proj, nil, "hg", "status").CombinedOutput()
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the host's hg status ran the hook the session put behind its link:\n%s\n%s", out, ran)
	}
}

// TestReplayReview29rEnvrcSourceThroughLink: the project's .envrc,
// allowed, sources the tracked conf/env.sh and puts tools/bin on PATH.
// direnv follows links, a directory's on the way too; the exit audit
// read each name without following one, and took a name it could not
// reach for none. The session moves conf and tools aside and puts a
// link in the place of each to a directory of its own, an env.sh and a
// bin/git in it. Host-side proof: the host's git status under direnv
// runs nothing the session wrote.
func TestReplayReview29rEnvrcSourceThroughLink(t *testing.T) {
	harness.RequireTool(t, "direnv", "apt-get install direnv")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".envrc"), "source_env conf/env.sh\nPATH_add tools/bin\n")
	h.Write(filepath.Join(proj, "conf", "env.sh"), "export APP_ENV=dev\n")
	h.Write(filepath.Join(proj, "tools", "bin", "README"), "tools\n")
	harness.CommitAll(h, proj, "envrc")
	h.Run(proj, nil, "direnv", "allow", ".")
	marker := h.Marker()
	out := h.InsideStderr(proj, `mkdir -p team/bin && printf 'touch `+marker+`.env\n' > team/env.sh &&
		printf '#!/bin/sh\ntouch `+marker+`.git\n' > team/bin/git && chmod +x team/bin/git &&
		mv conf conf.old && ln -s team conf && mv tools tools.old && ln -s team tools && echo PLANTED >&2`)
	if !strings.Contains(out, "PLANTED") {
		t.Fatalf("the links could not be planted:\n%s", out)
	}
	ran, _ := h.Command(proj, nil, "direnv", "exec", ".", "sh", "-c", "git status").CombinedOutput()
	for _, what := range []string{"env", "git"} {
		if _, err := os.Stat(marker + "." + what); err == nil {
			t.Errorf("the host's git status under direnv ran the session's %s behind its link:\n%s\n%s", what, out, ran)
		}
	}
}
