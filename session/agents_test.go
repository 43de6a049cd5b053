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

// TestPruneAgentStateEmptied: of Codex's sqlite/ and Gemini's history/ a
// launch keeps nothing (Codex's queued messages and goals are acted on
// when a conversation resumes; Gemini's checkpoint repository's
// configuration is obeyed by its git), and the directories kept whole
// beside them (Codex's transcripts, from which it rebuilds its index)
// stay.
func TestPruneAgentStateEmptied(t *testing.T) {
	for _, tc := range []struct {
		agent   agent.Agent
		emptied string
		planted []string
		kept    string
	}{
		{agent.Codex, "sqlite", []string{"queue_1.sqlite", "goals_1.sqlite-wal", "state_5.sqlite"}, "sessions/2026/12/02/rollout-a.jsonl"},
		{agent.Gemini, "history", []string{"app/.git/config", "app/.git/info/attributes"}, "tmp/app/chats/session-a.json"},
	} {
		t.Run(tc.agent.Name, func(t *testing.T) {
			dir := t.TempDir()
			if err := makeAgentState(dir); err != nil {
				t.Fatal(err)
			}
			state := filepath.Join(dir, instance.AgentsDir, tc.agent.Name)
			kept := filepath.Join(state, tc.kept)
			paths := []string{kept}
			for _, p := range tc.planted {
				paths = append(paths, filepath.Join(state, tc.emptied, p))
			}
			for _, p := range paths {
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
			if entries, err := os.ReadDir(filepath.Join(state, tc.emptied)); err != nil || len(entries) > 0 {
				t.Errorf("%s/ after the prune: %v %v, want it empty", tc.emptied, entries, err)
			}
			if _, err := os.Stat(kept); err != nil {
				t.Errorf("%s lost: %v", tc.kept, err)
			}
		})
	}
}
