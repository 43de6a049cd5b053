package instance

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// ClaudeJSONFile names the instance's own copy of ~/.claude.json. Claude Code
// replaces that file by rename, which a single-file bind mount refuses
// (EBUSY), so the sandbox's ~/.claude.json is a symlink into the instance
// directory: measured with Claude Code 2.1.330, it resolves the link and
// renames beside the real file.
const ClaudeJSONFile = "claude.json"

// identityKeys are the top-level ~/.claude.json keys that say the user has
// onboarded and logged in. They are refreshed from the host at every launch
// so the sandbox never asks again. Everything else in the host file stays
// out: MCP server definitions may carry tokens, and other projects' entries
// are not this project's business.
var identityKeys = []string{
	"hasCompletedOnboarding",
	"lastOnboardingVersion",
	"oauthAccount",
	"userID",
	"customApiKeyResponses",
	"theme",
}

// MergeClaudeJSON returns the sandbox copy updated with the host's identity
// keys and its trust decisions for trustPaths (the working directory and its
// ancestors, which is where Claude Code looks). changed is false when the
// sandbox copy already says all of it. A host file that does not parse
// contributes nothing; a sandbox copy that does not parse is started afresh.
func MergeClaudeJSON(host, sandbox []byte, trustPaths []string) (out []byte, changed bool, err error) {
	var h map[string]json.RawMessage
	if json.Unmarshal(host, &h) != nil {
		h = nil
	}
	var s map[string]json.RawMessage
	if json.Unmarshal(sandbox, &s) != nil || s == nil {
		s = map[string]json.RawMessage{}
		changed = true
	}
	for _, k := range identityKeys {
		v, ok := h[k]
		if ok && !jsonEqual(s[k], v) {
			s[k] = v
			changed = true
		}
	}
	if trusted := hostTrust(h, trustPaths); len(trusted) > 0 {
		var projects map[string]map[string]json.RawMessage
		if raw, ok := s["projects"]; ok && json.Unmarshal(raw, &projects) != nil {
			projects = nil
		}
		if projects == nil {
			projects = map[string]map[string]json.RawMessage{}
		}
		for _, p := range trusted {
			if projects[p] == nil {
				projects[p] = map[string]json.RawMessage{}
			}
			if !jsonEqual(projects[p]["hasTrustDialogAccepted"], json.RawMessage("true")) {
				projects[p]["hasTrustDialogAccepted"] = json.RawMessage("true")
				changed = true
			}
		}
		if s["projects"], err = json.Marshal(projects); err != nil {
			return nil, false, err
		}
	}
	if !changed {
		return sandbox, false, nil
	}
	out, err = json.MarshalIndent(s, "", "  ")
	return append(out, '\n'), true, err
}

// hostTrust lists the paths among trustPaths whose trust dialog the user
// accepted on the host.
func hostTrust(h map[string]json.RawMessage, trustPaths []string) []string {
	raw, ok := h["projects"]
	if !ok {
		return nil
	}
	var projects map[string]struct {
		HasTrustDialogAccepted bool `json:"hasTrustDialogAccepted"`
	}
	if json.Unmarshal(raw, &projects) != nil {
		return nil
	}
	var trusted []string
	for _, p := range trustPaths {
		if projects[p].HasTrustDialogAccepted {
			trusted = append(trusted, p)
		}
	}
	return trusted
}

func jsonEqual(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// SyncClaudeJSON refreshes the instance's claude.json from the host's
// ~/.claude.json, writing atomically and only when something changed. The
// host file is only read.
func SyncClaudeJSON(hostPath, sandboxPath string, trustPaths []string) error {
	host, err := os.ReadFile(hostPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	// A symlink here was left by the sandbox: start afresh (the write
	// replaces the link) rather than read what it points to.
	sandbox, err := ReadFileNoFollow(sandboxPath)
	if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, unix.ELOOP) {
		return err
	}
	out, changed, err := MergeClaudeJSON(host, sandbox, trustPaths)
	if err != nil || !changed {
		return err
	}
	return WriteFileAtomic(sandboxPath, out, 0o600)
}
