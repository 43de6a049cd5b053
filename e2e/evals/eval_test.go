package evals

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// TestEvalCleanSlate runs claudebox --eval twice with the real Claude Code
// against the fake API, on a host full of the user's state: a global
// CLAUDE.md and skill, an ancestor CLAUDE.md and .claude/skills above the
// project, auto-memory, a user MCP server, and a previous session of the
// project. None of it reaches the API; the staged skill does, and fires
// through the Skill tool. The two runs send the same requests, apart from
// ids and timestamps; each run's folder holds exactly what it wrote, and
// the project on the host stays byte-identical.
func TestEvalCleanSlate(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	code := filepath.Join(h.Home, "code")
	proj := filepath.Join(code, "proj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "CLAUDE.md"), "MARK-PROJECT-CLAUDEMD\n")
	h.Write(filepath.Join(proj, "keep.txt"), "old\n")
	h.Write(filepath.Join(h.Home, ".claude", "CLAUDE.md"), "MARK-GLOBAL-CLAUDEMD\n")
	h.Write(filepath.Join(h.Home, ".claude", "skills", "userskill", "SKILL.md"), skillMD("userskill", "MARK-USER-SKILL"))
	h.Write(filepath.Join(code, "CLAUDE.md"), "MARK-ANCESTOR-CLAUDEMD\n")
	h.Write(filepath.Join(code, ".claude", "skills", "ancestorskill", "SKILL.md"), skillMD("ancestorskill", "MARK-ANCESTOR-SKILL"))
	h.Write(filepath.Join(h.Home, ".claude", "projects", strings.ReplaceAll(proj, "/", "-"), "memory", "MEMORY.md"), "MARK-AUTO-MEMORY\n")
	h.Write(filepath.Join(h.Home, ".claude.json"), fmt.Sprintf(`{"hasCompletedOnboarding": true, "mcpServers": {"markmcpserver": {"command": "/bin/true", "args": ["MARK-MCP-SERVER"]}},
  "projects": {%q: {"hasTrustDialogAccepted": true, "mcpServers": {"markprojectmcp": {"command": "/bin/true"}}}}}`, proj))
	skills := filepath.Join(h.Base, "skills")
	h.Write(filepath.Join(skills, "evalskill", "SKILL.md"), skillMD("evalskill", "MARK-STAGED-SKILL")+"MARK-SKILL-BODY follow these steps.\n")

	// A previous session of the project, in claudebox's instance.
	prev := harness.StartFakeAPI(t, "FAKE-PREVIOUS")
	h.Run(proj, prev.Env("sk-ant-test-key"), "claudebox", "-p", "MARK-PREVIOUS-SESSION")
	// and its auto-memory, where claudebox keeps the project's ~/.claude/projects.
	h.Write(filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), strings.ReplaceAll(proj, "/", "-"), "memory", "MEMORY.md"), "MARK-INSTANCE-MEMORY\n")
	before := harness.TreeDigest(t, proj)

	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Skill", Input: map[string]any{"skill": "evalskill"}},
		harness.ToolCall{Name: "Write", Input: map[string]any{"file_path": "/workspace/out.txt", "content": "written by the run\n"}},
	)
	out := filepath.Join(h.Base, "evals")
	stdout := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "do the task", "--skill", filepath.Join(skills, "evalskill"),
		"--repeat", "2", "--", "--allowedTools", "Skill,Write")
	t.Logf("stdout:\n%s", stdout)

	bodies := api.Bodies()
	if len(bodies) == 0 || len(bodies)%2 != 0 {
		t.Fatalf("%d requests, want the same number from each of two runs", len(bodies))
	}
	all := strings.Join(bodies, "\n")
	for _, marker := range []string{"MARK-GLOBAL-CLAUDEMD", "MARK-USER-SKILL", "MARK-ANCESTOR-CLAUDEMD", "MARK-ANCESTOR-SKILL", "MARK-AUTO-MEMORY", "MARK-INSTANCE-MEMORY", "markmcpserver", "markprojectmcp", "MARK-PREVIOUS-SESSION", "FAKE-PREVIOUS"} {
		if strings.Contains(all, marker) {
			t.Errorf("%s reached the API in an eval run", marker)
		}
	}
	for _, marker := range []string{"MARK-STAGED-SKILL", "MARK-SKILL-BODY", "MARK-PROJECT-CLAUDEMD"} {
		if !strings.Contains(all, marker) {
			t.Errorf("%s did not reach the API", marker)
		}
	}
	first, second := normalize(bodies[:len(bodies)/2]), normalize(bodies[len(bodies)/2:])
	for i := range first {
		if first[i] != second[i] {
			t.Errorf("request %d differs between the runs:\n%s\n---\n%s", i, first[i], second[i])
		}
	}

	if after := harness.TreeDigest(t, proj); after != before {
		t.Errorf("the project changed on the host:\nbefore %s\nafter  %s", before, after)
	}
	// --gc, which removes instances, leaves eval runs alone.
	h.Run(proj, nil, "claudebox", "--gc")
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 2 {
		t.Fatalf("runs in %s: %v, want 2", out, runs)
	}
	for _, run := range runs {
		if !strings.Contains(stdout, "PASS "+run+": exit 0, $") || !strings.Contains(stdout, "s, skill evalskill\n") {
			t.Errorf("stdout does not name %s as passed:\n%s", run, stdout)
		}
		if got := harness.TreeListing(t, filepath.Join(run, "artifacts")); got != "out.txt=written by the run\n" {
			t.Errorf("artifacts/ holds %q", got)
		}
		wantPatch := "diff --git a/out.txt b/out.txt\nnew file mode 100644\n--- /dev/null\n+++ b/out.txt\n@@ -0,0 +1 @@\n+written by the run\n"
		if b, _ := os.ReadFile(filepath.Join(run, "changes.patch")); string(b) != wantPatch {
			t.Errorf("changes.patch = %q, want %q", b, wantPatch)
		}
		var m map[string]any
		b, err := os.ReadFile(filepath.Join(run, "metrics.json"))
		if err != nil || json.Unmarshal(b, &m) != nil {
			t.Fatalf("metrics.json: %v: %s", err, b)
		}
		for _, field := range []string{"wall_time_ms", "exit_status", "cost_usd", "usage", "num_turns", "duration_ms", "claude_code_version", "claudebox_version", "model", "network", "prompt_digest", "input_commit"} {
			if v, ok := m[field]; !ok || v == nil || v == "" {
				t.Errorf("metrics.json: %s = %v", field, v)
			}
		}
		if invoked, _ := m["skills_invoked"].([]any); len(invoked) != 1 || invoked[0] != "evalskill" {
			t.Errorf("metrics.json: skills_invoked = %v, want the staged skill", m["skills_invoked"])
		}
		if m["exit_status"] != 0.0 || !strings.HasPrefix(m["claude_code_version"].(string), "2.") {
			t.Errorf("metrics.json: %s", b)
		}
		sessions, _ := filepath.Glob(filepath.Join(run, "session", "*", "*.jsonl"))
		if len(sessions) != 1 {
			t.Errorf("session files: %v", sessions)
		}
		// The stream's init event lists the MCP servers configured, even
		// those that failed to start, and the skills found.
		transcript, _ := os.ReadFile(filepath.Join(run, "transcript.jsonl"))
		for _, marker := range []string{"markmcpserver", "markprojectmcp", "userskill", "ancestorskill"} {
			if strings.Contains(string(transcript), marker) {
				t.Errorf("the run's stream names %s", marker)
			}
		}
		if !strings.Contains(string(transcript), "evalskill") {
			t.Errorf("the run's stream does not name the staged skill")
		}
		for _, f := range []string{"transcript.jsonl", "plan.sh"} {
			if fi, err := os.Stat(filepath.Join(run, f)); err != nil || fi.Size() == 0 {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}

func skillMD(name, description string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n", name, description)
}

// normalize drops what differs between any two runs of the same requests:
// ids (UUIDs, hex ids) and timestamps.
func normalize(bodies []string) []string {
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z?`)
	var out []string
	for _, b := range bodies {
		out = append(out, ids.ReplaceAllString(b, "<id>"))
	}
	return out
}

// TestEvalInterrupted: a SIGTERM to claudebox --eval ends the run under
// way (its command is still sleeping), starts none of the others, and
// leaves nothing of the run in the temporary directory; the total says so.
func TestEvalInterrupted(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	tmp := filepath.Join(h.Base, "tmp")
	h.Write(filepath.Join(tmp, ".keep"), "")
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE", harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "touch started && tail -f /dev/null", "description": "wait"}})
	out := filepath.Join(h.Base, "evals")
	cmd := h.Command(proj, append(api.Env("sk-ant-test-key"), "TMPDIR="+tmp), "claudebox", "--eval", "--out", out, "--prompt", "wait", "--repeat", "3", "--", "--allowedTools", "Bash")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	started := func() bool {
		m, _ := filepath.Glob(filepath.Join(tmp, "claudebox-eval-*", "workspace", "started"))
		return len(m) > 0
	}
	for deadline := time.Now().Add(60 * time.Second); !started(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the run never reached its Bash call")
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("claudebox --eval exited 0 after a SIGTERM")
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("claudebox --eval did not end after a SIGTERM")
	}
	if !strings.Contains(stdout.String(), "(interrupted: 2 not started)") {
		t.Errorf("stdout:\n%s", stdout.String())
	}
	if runs, _ := filepath.Glob(filepath.Join(out, "*")); len(runs) != 1 {
		t.Errorf("runs: %v, want the one interrupted", runs)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 1 {
		t.Errorf("the run left %d entries in its temporary directory", len(left)-1)
	}
}

// TestEvalParallel: --jobs runs at once, each with its own sandbox,
// workspace and proxy socket; every one ends with its own folder. The
// claude run is the one --claude names.
func TestEvalParallel(t *testing.T) {
	harness.RequireClaude(t)
	// The claude on the unprivileged user's PATH (the test's own PATH may
	// lead to a wrapper only root can run).
	var claude string
	for _, dir := range []string{"/usr/local/bin", "/usr/bin", "/bin"} {
		if p := filepath.Join(dir, "claude"); claude == "" && paths.Exists(p) {
			claude = p
		}
	}
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Write", Input: map[string]any{"file_path": "/workspace/out.txt", "content": "written\n"}})
	out := filepath.Join(h.Base, "evals")
	stdout := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "write", "--repeat", "3", "--jobs", "3", "--claude", claude, "--", "--allowedTools", "Write")
	if !strings.Contains(stdout, "total: 3 runs, 3 passed, 0 failed") {
		t.Errorf("stdout:\n%s", stdout)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*", "artifacts", "out.txt"))
	if len(runs) != 3 {
		t.Errorf("artifacts: %v, want one out.txt in each of 3 runs", runs)
	}
	plans, _ := filepath.Glob(filepath.Join(out, "*", "plan.sh"))
	// The claude named, by its directory's real path, as a launch names it.
	dir, _ := filepath.EvalSymlinks(filepath.Dir(claude))
	for _, p := range plans {
		if b, _ := os.ReadFile(p); !strings.Contains(string(b), " -- "+filepath.Join(dir, "claude")+" -p ") {
			t.Errorf("%s does not run %s:\n%s", p, claude, b)
		}
	}
}
