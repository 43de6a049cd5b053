package session

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/instance"
)

// TestPruneAgentStateKeepsOnlyVerdicts: of Claude Code's state/ a launch
// keeps only the MCP servers' verdicts as a regular file of bounded size;
// what else a session left there (an organization's cached settings, a
// link, a directory, a FIFO or an oversized file under the kept name) is
// gone, and so is nothing of the directories kept whole.
func TestPruneAgentStateKeepsOnlyVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
		kept bool
	}{
		{"regular", func(p string) error { return os.WriteFile(p, []byte(`{"stdio:a":{}}`), 0o600) }, true},
		{"oversized", func(p string) error {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				return err
			}
			return os.Truncate(p, maxKeptState+1)
		}, false},
		{"link", func(p string) error { return os.Symlink("/etc/passwd", p) }, false},
		{"fifo", func(p string) error { return unix.Mkfifo(p, 0o600) }, false},
		{"directory", func(p string) error { return os.MkdirAll(filepath.Join(p, "x"), 0o700) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := makeAgentState(dir); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(dir, instance.AgentsDir, agent.Claude.Name, "state")
			history := filepath.Join(dir, instance.AgentsDir, agent.Claude.Name, "file-history", "s1")
			for _, p := range []string{filepath.Join(state, "served-calls", "a.jsonl"), history} {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(state, "hybrid-settings.json"), []byte(`{"settings":{}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := tc.make(filepath.Join(state, "mcp-discover-verdicts.json")); err != nil {
				t.Fatal(err)
			}
			if err := pruneAgentState(dir); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(state)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			var want []string
			if tc.kept {
				want = []string{"mcp-discover-verdicts.json"}
			}
			if !slices.Equal(names, want) {
				t.Errorf("state/ after the prune: %q, want %q", names, want)
			}
			if _, err := os.Stat(history); err != nil {
				t.Errorf("file-history lost its entry: %v", err)
			}
			if _, err := os.Stat("/etc/passwd"); err != nil {
				t.Errorf("the link's target: %v", err)
			}
		})
	}
}

// TestPruneAgentStateCodexSQLite: of Codex's sqlite/ a launch keeps
// nothing (its queued messages and goals are acted on when a conversation
// resumes), and its transcripts, from which it rebuilds the index, stay.
func TestPruneAgentStateCodexSQLite(t *testing.T) {
	dir := t.TempDir()
	if err := makeAgentState(dir); err != nil {
		t.Fatal(err)
	}
	codex := filepath.Join(dir, instance.AgentsDir, agent.Codex.Name)
	rollout := filepath.Join(codex, "sessions", "2026", "12", "02", "rollout-a.jsonl")
	for _, p := range []string{filepath.Join(codex, "sqlite", "queue_1.sqlite"), filepath.Join(codex, "sqlite", "goals_1.sqlite-wal"), filepath.Join(codex, "sqlite", "state_5.sqlite"), rollout} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := pruneAgentState(dir); err != nil {
		t.Fatal(err)
	}
	if entries, err := os.ReadDir(filepath.Join(codex, "sqlite")); err != nil || len(entries) > 0 {
		t.Errorf("sqlite/ after the prune: %v %v, want it empty", entries, err)
	}
	if _, err := os.Stat(rollout); err != nil {
		t.Errorf("sessions/ lost its transcript: %v", err)
	}
}
