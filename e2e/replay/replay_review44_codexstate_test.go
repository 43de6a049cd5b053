package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/proxy"
)

// TestReplayReview44CodexQueuedMessageDropped: Codex keeps the messages
// queued for a conversation in its SQLite state (queue_1.sqlite), which
// crossed whole from one session of a project to the next. A session
// queued one for its own conversation (codex queue, as the agent inside
// may run it); the next session's codex exec resume sent it to the
// model as the user's own, before the user's message. Now each launch
// keeps nothing of the SQLite state (Codex rebuilds its list of
// conversations from their transcripts): the planted message is never
// sent, and the conversation still resumes.
func TestReplayReview44CodexQueuedMessageDropped(t *testing.T) {
	harness.RequireAgent(t, "codex", "@openai/codex")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	harness.WriteChatGPTLogin(h, proxy.UnsignedJWT(map[string]any{"exp": time.Now().Add(time.Hour).Unix()}))
	f := harness.StartFakeChatGPT(t, false, "", func() []harness.SandboxView { return nil })
	env := []string{harness.ChatGPTURLVar + "=" + f.URL + "/backend-api/codex", harness.CodexTokenURLVar + "=" + f.URL + "/oauth/token", harness.NoResolve}
	if out := h.Run(proj, env, "claudebox", "--agent", "codex", "exec", "FIRST-TURN"); !strings.Contains(out, "PONG-CHATGPT") {
		t.Fatalf("codex did not answer: %s", out)
	}
	// What the session inside writes with codex queue, written by the
	// same program into the instance's state.
	state := filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "agents", "codex")
	rollouts, _ := filepath.Glob(filepath.Join(state, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(rollouts) != 1 {
		t.Fatalf("the first session left %d transcripts, want 1", len(rollouts))
	}
	name := strings.TrimSuffix(filepath.Base(rollouts[0]), ".jsonl")
	thread := name[len(name)-36:]
	scratch := filepath.Join(h.Base, "codex-home")
	os.MkdirAll(scratch, 0o700)
	h.Chown()
	h.Run(proj, []string{"CODEX_HOME=" + scratch, "CODEX_SQLITE_HOME=" + filepath.Join(state, "sqlite")}, "codex", "queue", "--thread", thread, "--message", "PLANTED-QUEUED-44")

	f.Mu.Lock()
	f.Bodies = nil
	f.Mu.Unlock()
	h.Run(proj, env, "claudebox", "--agent", "codex", "exec", "resume", thread, "SECOND-TURN")
	f.Mu.Lock()
	bodies := strings.Join(f.Bodies, "\n")
	f.Mu.Unlock()
	if strings.Contains(bodies, "PLANTED-QUEUED-44") {
		t.Errorf("the next session sent the message the last one queued to the model as the user's")
	}
	if !strings.Contains(bodies, "SECOND-TURN") || !strings.Contains(bodies, "FIRST-TURN") {
		t.Errorf("the next session did not resume the conversation: %d calls", len(f.Bodies))
	}
}
