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
	commitAll(h, proj, "build")
	marker := h.Marker()
	out := plantUnseen(t, h, proj, "included files", `
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
