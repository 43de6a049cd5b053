package instance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"syscall"

	"github.com/claudebox/claudebox/internal/jsonscan"
	"github.com/claudebox/claudebox/project"
	"github.com/claudebox/claudebox/untrusted"
)

// ClaudeJSONFile names the instance's own copy of ~/.claude.json
// (project.ClaudeJSONFile).
const ClaudeJSONFile = project.ClaudeJSONFile

// claudeJSONLimit is the most of the instance's claude.json a launch reads.
// It holds the carried keys and what Claude Code records for this project
// alone (its changelog and feature caches the most, hundreds of KB); one
// larger was grown by the sandbox, and is started afresh. Each launch
// decodes and writes again what it reads: 16 MiB of keys held a launch
// 30 s and 320 MiB on a 2-core machine.
const claudeJSONLimit = 4 << 20

// maxClaudeJSON is the most of the host's ~/.claude.json read: every
// project's record and the account, grown over years.
const maxClaudeJSON = 256 << 20

// carriedFile is, in the state directory (which the sandbox never sees),
// what claudebox last took from the host's ~/.claude.json, with the file's
// identity then: a launch reads the host file only when it has changed.
const carriedFile = "claude-json.carried"

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
	apiKeyResponses,
	"theme",
}

// carried is what the sandbox's copy takes from the host's ~/.claude.json:
// the identity keys, and for each directory a launch has asked about, the
// user's trust decision. Stamp identifies the host file it was read from.
type carried struct {
	Stamp   string                     `json:"stamp"`
	Keys    map[string]json.RawMessage `json:"keys"`
	Trusted map[string]bool            `json:"trusted"`
	// Imports is, for each directory a launch has asked about, whether
	// the user let its CLAUDE.md import files outside it
	// (hasClaudeMdExternalIncludesApproved): claude -p reads them only
	// then, and inside it reads only those shown.
	Imports map[string]bool `json:"imports"`
	// MCPUser names the host's user-scope MCP servers, and MCPLocal each
	// asked-about directory's own (names only: a definition may hold
	// tokens), for the launch to name those it leaves out.
	MCPUser  []string            `json:"mcpUser"`
	MCPLocal map[string][]string `json:"mcpLocal"`
	// MCP are the MCP server definitions the launch carries, by name: never
	// recorded.
	MCP map[string]json.RawMessage `json:"-"`
}

// HostClaudeJSON is what the host's ~/.claude.json carries into a
// launch's sandbox for the directories it asks about, read once for the
// launch: from the record in the state directory when the file is
// unchanged, else from the file itself, which SyncClaudeJSON then records.
type HostClaudeJSON struct {
	path, stateDir string
	c              carried
	fresh          bool // read from the file: to be recorded
	// offered are the MCP server definitions the file offered when it was
	// read (fresh) for trustPaths, which MCPServers gives a launch that
	// carries servers without reading the file again (1.8 MB measured
	// beside the host's claude, which rewrites it at every start).
	trustPaths []string
	offered    map[string]json.RawMessage
}

// ReadHostClaudeJSON reads what the host's ~/.claude.json at hostPath
// carries for trustPaths (the working directory and its ancestors). The
// host file is read only when it changed since the launch that last
// recorded it: what was carried from it is kept in stateDir, which the
// sandbox never sees, with the file's identity (device, inode, size,
// modification and change times). It writes nothing.
func ReadHostClaudeJSON(hostPath, stateDir string, trustPaths []string) (HostClaudeJSON, error) {
	c, offered, fresh, err := hostCarried(hostPath, stateDir, trustPaths)
	return HostClaudeJSON{path: hostPath, stateDir: stateDir, c: c, fresh: fresh, trustPaths: trustPaths, offered: offered}, err
}

// SyncClaudeJSON refreshes the instance's claude.json from what the host's
// ~/.claude.json carries, writing atomically and only when something
// changed, and records what was carried when host was read from the file.
// A path of trustPaths host was not read for is read for now.
//
// alias, when set, is an API key the sandbox holds in place of the user's
// (a phantom): Claude Code asks once per key whether to use it, and records
// the answer by the key's last 20 characters, so the phantom's are
// approved wherever the real key's are.
//
// servers are the MCP server definitions the launch carries: the sandbox's
// user-scope servers become exactly these, so one the user stops naming
// leaves with its tokens.
func SyncClaudeJSON(host HostClaudeJSON, dir string, trustPaths []string, alias KeyAlias, servers map[string]json.RawMessage) error {
	if !host.answers(trustPaths) {
		var err error
		if host, err = ReadHostClaudeJSON(host.path, host.stateDir, trustPaths); err != nil {
			return err
		}
	}
	if host.fresh {
		host.record()
	}
	c := host.c
	c.MCP = servers
	// Anything but a readable regular file here was left by the sandbox:
	// start afresh (the write replaces it) rather than read it.
	sandbox, _ := untrusted.ReadFile(dir, ClaudeJSONFile, claudeJSONLimit)
	c.Keys = maps.Clone(c.Keys)
	c.Keys[apiKeyResponses] = keyResponses(c.Keys[apiKeyResponses], sandbox, alias)
	out, changed, err := mergeClaudeJSON(c, sandbox, trustPaths)
	if err != nil || !changed {
		return err
	}
	return untrusted.WriteFile(dir, ClaudeJSONFile, out, 0o600)
}

// answers reports whether host was read for every one of paths.
func (host HostClaudeJSON) answers(paths []string) bool {
	for _, p := range paths {
		if _, ok := host.c.Trusted[p]; !ok {
			return false
		}
	}
	return true
}

// record keeps what was carried, for the next launch to read instead of
// the host file. The record only saves work: a launch that cannot write
// it reads the host file again next time.
func (host HostClaudeJSON) record() {
	if b, err := json.Marshal(host.c); err == nil && os.MkdirAll(host.stateDir, 0o700) == nil {
		untrusted.WriteFile(host.stateDir, carriedFile, b, 0o600)
	}
}

// KeyAlias is a key the sandbox holds (Phantom) in place of the user's
// (Real).
type KeyAlias struct{ Real, Phantom string }

// apiKeyResponses is where Claude Code records the keys the user approved
// or rejected, by their last 20 characters.
const apiKeyResponses = "customApiKeyResponses"

// keyResponses is the sandbox's record of the keys approved or rejected:
// the phantom's alone, by its last 20 characters, approved where the host
// approved the real key's, else as the sandbox's Claude Code answered. Never another key's: the host's record
// holds the last 20 characters of the real key and of every key the user
// ever answered for.
func keyResponses(host json.RawMessage, sandbox []byte, alias KeyAlias) json.RawMessage {
	type responses struct {
		Approved []string `json:"approved"`
		Rejected []string `json:"rejected"`
	}
	suffix := func(k string) string { return k[max(0, len(k)-20):] }
	out := responses{Approved: []string{}, Rejected: []string{}}
	if alias.Phantom != "" {
		phantom := suffix(alias.Phantom)
		var h, s responses
		json.Unmarshal(host, &h)
		var copied map[string]json.RawMessage
		if json.Unmarshal(sandbox, &copied) == nil {
			json.Unmarshal(copied[apiKeyResponses], &s)
		}
		real := suffix(alias.Real)
		switch {
		case slices.Contains(h.Approved, real):
			out.Approved = []string{phantom}
		case slices.Contains(s.Approved, phantom):
			out.Approved = []string{phantom}
		case slices.Contains(s.Rejected, phantom):
			out.Rejected = []string{phantom}
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// hostCarried returns what the host's ~/.claude.json carries into the
// sandbox for trustPaths: from the record in stateDir when the file is the
// one it was taken from and the record answers for every path, else read
// from the file (fresh).
func hostCarried(hostPath, stateDir string, trustPaths []string) (c carried, offered map[string]json.RawMessage, fresh bool, err error) {
	stamp := "absent"
	fi, err := os.Stat(hostPath)
	switch {
	case err == nil:
		st := fi.Sys().(*syscall.Stat_t)
		stamp = fmt.Sprintf("%d:%d:%d:%d.%09d:%d.%09d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec, st.Ctim.Sec, st.Ctim.Nsec)
	case !errors.Is(err, fs.ErrNotExist):
		return carried{}, nil, false, err
	}
	b, rerr := untrusted.ReadFile(stateDir, carriedFile, carriedLimit)
	if rerr != nil || json.Unmarshal(b, &c) != nil || c.Stamp != stamp {
		c = carried{Stamp: stamp}
	}
	paths := slices.Collect(maps.Keys(c.Trusted))
	answered := true
	for _, p := range trustPaths {
		if _, ok := c.Trusted[p]; !ok {
			answered = false
			paths = append(paths, p)
		}
	}
	if c.Keys != nil && c.MCPUser != nil && c.Imports != nil && answered {
		return c, nil, false, nil
	}
	scan := scanClaudeJSON(nil, paths)
	if stamp != "absent" {
		err := untrusted.ScanResolved(hostPath, maxClaudeJSON, func(host []byte) { scan = scanClaudeJSON(host, paths) })
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return carried{}, nil, false, err
		}
	}
	c.Keys, c.Trusted, c.Imports = scan.keys, scan.trusted, scan.imports
	c.MCPUser, c.MCPLocal = append([]string{}, slices.Sorted(maps.Keys(scan.user))...), map[string][]string{}
	for _, p := range paths {
		if defs, ok := scan.local[p]; ok {
			c.MCPLocal[p] = slices.Sorted(maps.Keys(defs))
		}
	}
	return c, scan.offered(trustPaths), true, nil
}

// importsApproved is where Claude Code records, per project, that the
// user let its CLAUDE.md import files outside it; importsWarningShown,
// that it asked.
const (
	importsApproved     = "hasClaudeMdExternalIncludesApproved"
	importsWarningShown = "hasClaudeMdExternalIncludesWarningShown"
)

// carriedLimit is the most of the record claudebox reads.
const carriedLimit = 1 << 20

// claudeJSONScan is what a launch takes from the host's ~/.claude.json:
// the identity keys, the trust decision for each asked-about path, the
// user scope's MCP server definitions and each asked-about path's own.
type claudeJSONScan struct {
	keys    map[string]json.RawMessage
	trusted map[string]bool
	imports map[string]bool
	user    map[string]json.RawMessage
	local   map[string]map[string]json.RawMessage
}

// scanClaudeJSON picks what a launch takes out of the host's
// ~/.claude.json for paths in one walk, skipping everything else
// unparsed: the file can be tens of megabytes, nearly all of it other
// projects' entries, so the projects are walked where they stand, each
// byte read once. A file that does not parse carries nothing from where
// it stops; a projects object that does not, no project's. What it keeps
// of host is copied: host may be the file mapped (untrusted.ScanResolved).
func scanClaudeJSON(host []byte, paths []string) claudeJSONScan {
	s := claudeJSONScan{keys: map[string]json.RawMessage{}, trusted: map[string]bool{}, imports: map[string]bool{}, user: map[string]json.RawMessage{}, local: map[string]map[string]json.RawMessage{}}
	for _, p := range paths {
		s.trusted[p] = false
	}
	jsonscan.Object(host, 0, func(quoted []byte, i int) int {
		key, ok := jsonscan.Key(quoted)
		if !ok {
			return -1
		}
		if key == "projects" {
			if end := s.projects(host, i); end >= 0 {
				return end
			}
			for p := range s.trusted {
				s.trusted[p] = false
			}
			clear(s.imports)
			clear(s.local)
		}
		end := jsonscan.SkipValue(host, i)
		if end < 0 {
			return -1
		}
		switch val := host[i:end]; {
		case slices.Contains(identityKeys, key):
			if json.Valid(val) {
				s.keys[key] = json.RawMessage(bytes.Clone(val))
			}
		case key == mcpServersKey:
			s.user = mcpServers(val)
		}
		return end
	})
	return s
}

// projects walks the projects object at host[i], taking from each
// asked-about path's entry its trust decision, its approval of imports and
// its MCP servers; it returns the index after the object, or -1. The
// others' entries are skipped, their paths looked up without a copy.
func (s claudeJSONScan) projects(host []byte, i int) int {
	return jsonscan.Object(host, i, func(quoted []byte, j int) int {
		end := jsonscan.SkipValue(host, j)
		if end < 0 {
			return -1
		}
		path := quoted[1 : len(quoted)-1]
		if bytes.IndexByte(quoted, '\\') >= 0 {
			decoded, ok := jsonscan.Key(quoted)
			if !ok {
				return -1
			}
			path = []byte(decoded)
		}
		if _, asked := s.trusted[string(path)]; !asked {
			return end
		}
		jsonscan.Members(host[j:end], func(k string, v []byte) {
			switch k {
			case "hasTrustDialogAccepted":
				s.trusted[string(path)] = string(v) == "true"
			case importsApproved:
				s.imports[string(path)] = string(v) == "true"
			case mcpServersKey:
				s.local[string(path)] = mcpServers(v)
			}
		})
		return end
	})
}

// carriedKeys picks the identity keys, and the trust decision for each of
// paths, out of the host's ~/.claude.json.
func carriedKeys(host []byte, paths []string) (map[string]json.RawMessage, map[string]bool) {
	s := scanClaudeJSON(host, paths)
	return s.keys, s.trusted
}

// mergeClaudeJSON returns the sandbox copy updated with the carried keys and
// the host's trust decisions and approvals of CLAUDE.md's imports from
// outside for trustPaths (the working directory and its
// ancestors, which is where Claude Code looks). changed is false when the
// sandbox copy already says all of it. A sandbox copy that does not parse
// is started afresh.
func mergeClaudeJSON(c carried, sandbox []byte, trustPaths []string) (out []byte, changed bool, err error) {
	var s map[string]json.RawMessage
	if json.Unmarshal(sandbox, &s) != nil || s == nil {
		s = map[string]json.RawMessage{}
		changed = true
	}
	for _, k := range identityKeys {
		v, ok := c.Keys[k]
		if ok && !jsonEqual(s[k], v) {
			s[k] = v
			changed = true
		}
	}
	if len(c.MCP) > 0 {
		want, err := json.Marshal(c.MCP)
		if err != nil {
			return nil, false, err
		}
		if !jsonEqual(s[mcpServersKey], want) {
			s[mcpServersKey] = want
			changed = true
		}
	} else if _, ok := s[mcpServersKey]; ok {
		delete(s, mcpServersKey)
		changed = true
	}
	var trusted []string
	for _, p := range trustPaths {
		if c.Trusted[p] || c.Imports[p] {
			trusted = append(trusted, p)
		}
	}
	if len(trusted) > 0 {
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
			var keys []string
			if c.Trusted[p] {
				keys = append(keys, "hasTrustDialogAccepted")
			}
			if c.Imports[p] {
				keys = append(keys, importsApproved, importsWarningShown)
			}
			for _, k := range keys {
				if !jsonEqual(projects[p][k], json.RawMessage("true")) {
					projects[p][k] = json.RawMessage("true")
					changed = true
				}
			}
		}
		if s["projects"], err = json.Marshal(projects); err != nil {
			return nil, false, err
		}
	}
	if !changed {
		return sandbox, false, nil
	}
	// Compact: indenting what the sandbox nested deep would grow it by the
	// square of its depth (200 bytes of brackets, 20 KB of spaces).
	out, err = json.Marshal(s)
	return append(out, '\n'), true, err
}

func jsonEqual(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// LoggedOutInside reports whether Claude Code inside logged out, as its
// /logout does: the instance's claude.json in dir no longer says it
// onboarded, which the launch carried from the host. The sandbox can
// write the file; only a note rests on the answer.
func (host HostClaudeJSON) LoggedOutInside(dir string) bool {
	if !bytes.Equal(bytes.TrimSpace(host.c.Keys["hasCompletedOnboarding"]), []byte("true")) {
		return false
	}
	sandbox, err := untrusted.ReadFile(dir, ClaudeJSONFile, claudeJSONLimit)
	if err != nil {
		return false
	}
	out := false
	jsonscan.Members(sandbox, func(key string, value []byte) {
		if key == "hasCompletedOnboarding" {
			out = bytes.Equal(bytes.TrimSpace(value), []byte("false"))
		}
	})
	return out
}
