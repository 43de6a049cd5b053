package instance

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestSyncClaudeJSONCarriesImportsApproval: the user let the project's
// CLAUDE.md import files outside it on the host; claude -p inside read
// none of them (the sandbox's copy did not say so), though they were
// shown. The approval is carried for the asked-about paths, never a
// refusal, never another project's; a record written before it was
// carried is read again.
func TestSyncClaudeJSONCarriesImportsApproval(t *testing.T) {
	base := t.TempDir()
	host, state, inst := filepath.Join(base, ".claude.json"), filepath.Join(base, "state"), filepath.Join(base, "inst")
	os.MkdirAll(inst, 0o700)
	os.MkdirAll(state, 0o700)
	if err := os.WriteFile(host, []byte(`{"projects": {
		"/w": {"hasTrustDialogAccepted": true, "hasClaudeMdExternalIncludesApproved": true},
		"/x": {"hasClaudeMdExternalIncludesApproved": false},
		"/other": {"hasClaudeMdExternalIncludesApproved": true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// What a launch before recorded: the same host file, no approvals.
	if _, _, _, err := hostCarried(host, state, []string{"/w", "/x", "/"}); err != nil {
		t.Fatal(err)
	}
	c, _, _, _ := hostCarried(host, state, []string{"/w", "/x", "/"})
	c.Imports = nil
	b, _ := json.Marshal(c)
	os.WriteFile(filepath.Join(state, carriedFile), b, 0o600)
	if err := SyncClaudeJSON(HostClaudeJSON{path: host, stateDir: state}, inst, []string{"/w", "/x", "/"}, KeyAlias{}, nil); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(filepath.Join(inst, ClaudeJSONFile))
	var got struct {
		Projects map[string]map[string]bool `json:"projects"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if w := got.Projects["/w"]; !w[importsApproved] || !w[importsWarningShown] || !w["hasTrustDialogAccepted"] {
		t.Errorf("/w's approval not carried: %s", b)
	}
	for _, p := range []string{"/x", "/other"} {
		if _, ok := got.Projects[p]; ok {
			t.Errorf("%s carried: %s", p, b)
		}
	}
}
