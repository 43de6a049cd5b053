package faults

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/guard"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayFaultsTerminalClosedAtExit: the user closes the terminal (a
// tmux session killed: the shell gets SIGHUP and passes it to its job)
// while a session ends, held at each phase of its exit: after its command
// ended (the guard watcher, in claudebox's process group, gets it too),
// between the exit audit's judgement and its moves aside, between a move
// and its words, and in the export. What claudebox says then goes to a
// closed terminal. Host-side proof once it ended: no stand-in or record of
// it is left, the user's file, the prompt history, the conversation and
// the export are kept, no process holds the project, and the .envrc the
// session wrote a level down is in place or its move aside is said, with
// the command that puts it back, on the terminal before it closed or by
// the next claudebox command on the host: the session had said it to the
// closed terminal (a write that failed) and forgot it.
func TestReplayFaultsTerminalClosedAtExit(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, "README"), "hi\n")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "export-dir = \"~/notes\"\n")
	inbox := filepath.Join(h.Home, "notes", "proj")
	state := filepath.Join(h.Home, ".claudebox")
	inst := instance.Dir(state, proj)
	hash := filepath.Base(inst)
	h.Inside(proj, nil, "true")
	for i, hold := range []string{"command", "audit judged", "moved aside", "export rendered"} {
		t.Run(hold, func(t *testing.T) {
			prompt := fmt.Sprintf(`{"display":"hangup %d"}`, i)
			id := fmt.Sprintf("c105ed%02d-0000-4000-8000-202612020000", i)
			turn := `{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-12-02T10:00:00Z","message":{"role":"user","content":"hangup ` + strconv.Itoa(i) + `"}}`
			script := `echo '` + prompt + `' >> "$HOME/.claude/history.jsonl"; echo mine > work` + strconv.Itoa(i) +
				`; mkdir -p sub ~/.claude/projects/-p; echo 'export X=1' > sub/.envrc; echo '` + turn + `' > ~/.claude/projects/-p/` + id + `.jsonl`
			shown := closeTerminalAt(t, h, proj, hold, strconv.Quote(script))
			noneHolding(t, proj)
			for _, n := range guard.WorkTreeNames() {
				if p := filepath.Join(proj, n); paths.Exists(p) && instance.IsPlaceholder(p) {
					t.Errorf("the stand-in %s outlived the session", n)
				}
			}
			for _, ext := range []string{".placeholders", ".guards", ".since"} {
				if paths.Exists(filepath.Join(state, "live", hash+ext)) {
					t.Errorf("the session left %s", hash+ext)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(proj, "work"+strconv.Itoa(i))); string(b) != "mine\n" {
				t.Errorf("the session's file: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(inst, "history.jsonl")); !bytes.Contains(b, []byte(prompt)) {
				t.Errorf("the prompt history lost the session's prompt:\n%s", b)
			}
			kept := false
			filepath.WalkDir(inst, func(path string, d fs.DirEntry, err error) error {
				if b, _ := os.ReadFile(path); err == nil && d.Name() == id+".jsonl" && bytes.Contains(b, []byte(`"hangup `+strconv.Itoa(i)+`"`)) {
					kept = true
				}
				return nil
			})
			if !kept {
				t.Errorf("the instance lost the session's conversation %s", id)
			}
			var next strings.Builder
			n := h.Command(proj, nil, "claudebox", "--shell", "-c", "true")
			n.Stderr = &next
			if err := n.Run(); err != nil {
				t.Fatalf("the next launch: %v\n%s", err, next.String())
			}
			if envrc := filepath.Join(proj, "sub", ".envrc"); !paths.Exists(envrc) && !strings.Contains(shown+next.String(), "    to put it back: mv -n ") {
				t.Errorf("the session's %s was moved aside while the terminal was closed, and the next launch said nothing of it:\n%s", envrc, next.String())
			}
			if len(harness.Globs(inbox, "*"+id[:8]+"*.md")) == 0 {
				t.Errorf("the inbox lacks the session's export: %v", harness.Globs(inbox, "*"))
			}
			if half := harness.Globs(inbox, ".*"); len(half) > 0 {
				t.Errorf("the inbox holds what an export left half made: %v", half)
			}
			os.RemoveAll(filepath.Join(proj, "sub"))
		})
	}
}

// supervisorOf is the pid of the claudebox session the shell shell runs
// (not its guard watcher).
func supervisorOf(t *testing.T, shell int) int {
	t.Helper()
	for _, p := range harness.Descendants(shell) {
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); err == nil && bytes.HasPrefix(b, []byte("claudebox\x00--shell\x00")) {
			return p
		}
	}
	t.Fatalf("no claudebox session under the shell %d", shell)
	return 0
}
