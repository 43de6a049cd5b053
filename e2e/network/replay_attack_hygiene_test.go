package network

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayHygieneContainerSkills: under the filtered network the proxy
// passed a Messages API request's top-level keys it did not know with the
// user's real key: a container names the skills stored for the key by
// their id, which the API's servers load and run for the sandbox. The
// attack, from inside with the phantom key: a request whose container
// names a stored skill. Proof on the host: the API, which the fake plays
// and which accepts only the real key, never receives it whole; a request
// with every top-level key Claude Code 2.1.330 sends still passes.
func TestReplayHygieneContainerSkills(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "curl", "apt-get install curl")
	const real = "sk-ant-api03-REALKEY-hygiene"
	api := harness.StartFakeAPI(t, "ok")
	api.Auth = func(hd http.Header) bool { return hd.Get("X-Api-Key") == real }
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	skills := `{"model":"m","max_tokens":1,"container":{"skills":[{"type":"custom","skill_id":"skill_01SECRET","version":"latest"}]},"messages":[{"role":"user","content":"run the skill"}]}`
	claudeCode := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"PASSES-CC"}]}],"system":[{"type":"text","text":"s"}],"tools":[],"metadata":{"user_id":"u"},"max_tokens":1,` +
		`"thinking":{"type":"adaptive","display":"omitted"},"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},"output_config":{"effort":"medium"},"stream":false}`
	out := h.Inside(proj, []string{"ANTHROPIC_BASE_URL=" + api.URL, "ANTHROPIC_API_KEY=" + real}, postsInside(skills, claudeCode))
	whole := strings.Join(apiBodiesWhole(api), "\n")
	if strings.Contains(whole, "skill_01SECRET") {
		t.Errorf("the API received with the user's real key a container naming a stored skill: %s", whole)
	}
	if !strings.Contains(whole, "PASSES-CC") {
		t.Errorf("a request as Claude Code sends it did not reach the API: %q", out)
	}
}
