package mount

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnvironAgreesWithScript: the environment the launch's exec gives the
// sandbox is the one --dry-run's script gives it when a shell runs it, for
// every kind of variable: fixed by the plan, by the relay, by the agent's
// row and by the launch (one name by both), the home, PATH behind the git
// wrapper, a value read back from an env file, and the caller's own.
func TestEnvironAgreesWithScript(t *testing.T) {
	envFile := filepath.Join(t.TempDir(), "it's.env")
	if err := os.WriteFile(envFile, []byte("export FROMFILE=from the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	caller := map[string]string{
		"HOME": "/elsewhere", "PATH": "/usr/bin:/bin", "X": `it's "quoted" $HOME`, "FROMFILE": "from the file",
		updaterOff: "0", "HTTPS_PROXY": "http://host-proxy", "BOTH": "the host's", "EMPTY": "",
	}
	p := Plan{
		Home:     "/home/al ice",
		Env:      []string{"HOME", "PATH", "X", "FROMFILE", updaterOff, "HTTPS_PROXY", "BOTH", "EMPTY"},
		SSHAgent: true,
		Relay:    &Relay{Socket: "/s"},
		SetEnv:   []string{"BOTH=the launch's", "TZ=UTC"},
		Agent:    &AgentConfig{Env: []string{"BOTH=the agent's", "AGENT=1"}},
		Mounts:   []Mount{{Kind: RoBindData, Dest: "/w/git", executable: true}},
		envSetBy: map[string]envSource{"FROMFILE": {file: envFile, lines: true}},
		Chdir:    "/",
		Command:  []string{"true"},
	}
	script := p.Script("BWRAP")
	for strings.HasPrefix(script, "#") {
		_, script, _ = strings.Cut(script, "\n")
	}
	envLine, _, _ := strings.Cut(script, " \\\n")
	cmd := exec.Command("sh", "-c", envLine+" /usr/bin/env -0")
	for name, value := range caller {
		cmd.Env = append(cmd.Env, name+"="+value)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", envLine, err)
	}
	fromScript := lastWins(strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"))
	fromExec := lastWins(p.Environ(func(n string) (string, bool) { v, ok := caller[n]; return v, ok }))
	for name, v := range fromExec {
		if fromScript[name] != v {
			t.Errorf("%s: exec gives %q, the script %q", name, v, fromScript[name])
		}
	}
	for name, v := range fromScript {
		if _, ok := fromExec[name]; !ok {
			t.Errorf("%s: only the script gives it (%q)", name, v)
		}
	}
}

// lastWins is an environment as a process sees it: of two values of a
// name, the later one (as exec and env -i set them).
func lastWins(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		m[name] = value
	}
	return m
}
