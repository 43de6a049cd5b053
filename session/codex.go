package session

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/untrusted"
)

// chatGPTURLVariable, in claudebox's own environment on the host,
// replaces the ChatGPT backend: for tests, which play it on 127.0.0.1.
// Nothing in a sandbox or a project can set it.
const chatGPTURLVariable = "CLAUDEBOX_CHATGPT_URL"

// trustPaths are the paths whose trust the agent's answers carry: the
// project's checkout (Codex keys a git repository's trust by its root)
// and the working directory.
func (s *Session) trustPaths() []string {
	paths := []string{s.plan.Project.Checkout}
	if s.plan.Chdir != s.plan.Project.Checkout {
		paths = append(paths, s.plan.Chdir)
	}
	return paths
}

// agentConfigFile is the copy of the agent's configuration file in the
// instance dir, relative to it.
func (s *Session) agentConfigFile() string {
	a := s.plan.Agent
	return filepath.Join(instance.AgentsDir, a.Name, agent.ConfigState, filepath.Base(a.Config))
}

// writeAgentConfig writes, in the instance dir, the copy of the agent's
// configuration file the sandbox sees: what the host's (read now, as a
// data mount's source is) holds that is known harmless, with the MCP
// servers carried in and the project's recorded trust added.
func (s *Session) writeAgentConfig(dir string) error {
	a := s.plan.Agent
	if a == nil || a.Config == "" {
		return nil
	}
	var host []byte
	if b, _, err := untrusted.ReadResolved(a.Config, maxCopy); err == nil {
		host = b
	}
	var levels map[string]string
	recDir, name := instance.RecordPath(s.stateDir, instance.TrustRecords, s.plan.Project.Root)
	if b, err := untrusted.ReadFile(recDir, name, 1<<16); err == nil {
		json.Unmarshal(b, &levels)
	}
	content, leftOut := agent.CodexConfigCopy(host, s.agentMCP, s.plan.Project.Root)
	s.leaveOut(a.Config, leftOut)
	if err := untrusted.WriteFile(dir, s.agentConfigFile(), agent.WithCodexTrust(content, levels), 0o600); err != nil {
		return hint.Errorf("move it aside: the sandbox may have put something there", "cannot write %s's configuration in %s: %v", a.Name, dir, err)
	}
	return nil
}

// keepTrust records, once the session is over, the answers the agent
// saved in its copy of its configuration for the project's paths: the
// next session does not ask again. The copy is the sandbox's to write,
// so it is read as untrusted, and only those paths, and only the values
// the agent writes, are taken from it; the host's own file is never
// changed.
func (s *Session) keepTrust() {
	a := s.plan.Agent
	if a == nil || a.Config == "" || s.plan.Instance == "" {
		return
	}
	b, err := untrusted.ReadFile(s.plan.Instance, s.agentConfigFile(), maxCopy)
	if err != nil {
		return
	}
	levels := agent.CodexTrustLevels(b, s.trustPaths())
	if len(levels) == 0 {
		return
	}
	dir, name := instance.RecordPath(s.stateDir, instance.TrustRecords, s.plan.Project.Root)
	out, _ := json.Marshal(levels)
	// Unrecorded, the next session asks again.
	if os.MkdirAll(dir, 0o700) == nil {
		untrusted.WriteFile(dir, name, out, 0o600)
	}
}
