package agent

import (
	"github.com/pelletier/go-toml/v2"
)

// Codex keeps the user's answer to "Trust this folder?" in its
// config.toml, per path (measured with 0.169.0: [projects."<the git
// repository's root>"] trust_level = "trusted", the answer asked for in
// every session whose config.toml has none). Inside, that file is a
// private copy, so claudebox carries the answer for the project's own
// paths from one session to the next (a record in its state directory,
// out of every sandbox's reach), never into the host's file.

// trustLevels are the answers Codex saves.
var trustLevels = map[string]bool{"trusted": true, "untrusted": true}

// CodexTrustLevels are the answers config (a session's private copy,
// written by the sandbox) holds for paths, the project's own: any other
// path's, and any other value, are left out.
func CodexTrustLevels(config []byte, paths []string) map[string]string {
	var top struct {
		Projects map[string]struct {
			TrustLevel string `toml:"trust_level"`
		} `toml:"projects"`
	}
	if toml.Unmarshal(config, &top) != nil {
		return nil
	}
	levels := map[string]string{}
	for _, p := range paths {
		if e, ok := top.Projects[p]; ok && trustLevels[e.TrustLevel] {
			levels[p] = e.TrustLevel
		}
	}
	return levels
}

// WithCodexTrust is the private copy of config.toml with the recorded
// answers added for the paths it has none for: the user's own entries win.
// A file that is not TOML is left as it is (Codex then reports it).
func WithCodexTrust(config []byte, levels map[string]string) []byte {
	if len(levels) == 0 {
		return config
	}
	var top map[string]any
	if toml.Unmarshal(config, &top) != nil {
		return config
	}
	if top == nil {
		top = map[string]any{}
	}
	projects, ok := top["projects"].(map[string]any)
	if !ok && top["projects"] != nil {
		return config
	}
	if projects == nil {
		projects = map[string]any{}
	}
	changed := false
	for p, level := range levels {
		if _, has := projects[p]; has || !trustLevels[level] {
			continue
		}
		projects[p] = map[string]any{"trust_level": level}
		changed = true
	}
	if !changed {
		return config
	}
	top["projects"] = projects
	out, err := toml.Marshal(top)
	if err != nil {
		return config
	}
	return out
}
