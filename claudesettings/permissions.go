package claudesettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/printable"
)

// PermissionLists are the lists of a settings file's permissions that
// hold rules, the only part of a private copy claudebox carries to the
// host (never hooks, env, defaultMode or additionalDirectories).
var PermissionLists = []string{"allow", "ask", "deny"}

// Rule is a permission rule a session's private copy of a settings file
// gained: File is the settings file on the host, List one of
// PermissionLists.
type Rule struct {
	File string `json:"file"`
	List string `json:"list"`
	Rule string `json:"rule"`
}

// IsSettings reports whether path is a Claude Code settings file whose
// permission rules a session may add (the user's or a project's).
func IsSettings(path string) bool { return isClaudeSettings(path) }

// AddedRules returns the rules after holds in its permission lists that
// before did not, as the private copy of file: what Claude Code saved when
// the user answered "don't ask again", or what the sandbox wrote there.
// A file that is not a JSON object adds none.
func AddedRules(file string, before, after []byte) []Rule {
	had := permissionRules(before)
	var added []Rule
	for _, list := range PermissionLists {
		for _, r := range permissionRules(after)[list] {
			if !slices.Contains(had[list], r) && !slices.ContainsFunc(added, func(a Rule) bool { return a.List == list && a.Rule == r }) {
				added = append(added, Rule{File: file, List: list, Rule: r})
			}
		}
	}
	return added
}

// mcpAnswerKeys are where Claude Code keeps the user's answer to a
// project's MCP servers (.mcp.json): its dialog saves it into the
// project's settings.local.json.
var mcpAnswerKeys = []string{"enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers"}

// MCPAnswerChanged says whether after holds another answer to the
// project's MCP servers than before (mcpAnswerKeys).
func MCPAnswerChanged(before, after []byte) bool {
	var b, a map[string]json.RawMessage
	json.Unmarshal(before, &b)
	if json.Unmarshal(after, &a) != nil {
		return false
	}
	for _, k := range mcpAnswerKeys {
		if !bytes.Equal(compactJSON(b[k]), compactJSON(a[k])) {
			return true
		}
	}
	return false
}

func compactJSON(raw json.RawMessage) []byte {
	var out bytes.Buffer
	if json.Compact(&out, raw) != nil {
		return raw
	}
	return out.Bytes()
}

// permissionRules reads the string rules of each permission list.
func permissionRules(settings []byte) map[string][]string {
	var s struct {
		Permissions map[string]json.RawMessage `json:"permissions"`
	}
	rules := map[string][]string{}
	if json.Unmarshal(settings, &s) != nil {
		return rules
	}
	for _, list := range PermissionLists {
		var entries []json.RawMessage
		json.Unmarshal(s.Permissions[list], &entries)
		for _, e := range entries {
			var r string
			if json.Unmarshal(e, &r) == nil {
				rules[list] = append(rules[list], r)
			}
		}
	}
	return rules
}

// maxRule is longer than any rule Claude Code saves.
const maxRule = 1024

// Refusal says why r is not carried to the host, or "" when it may be.
// The sandbox can write its private copy, so a rule is hostile input:
// deny and ask rules only narrow what the host's claude does and pass; an
// allow rule passes only when it names what it allows, since a whole tool
// or a pattern matching everything (Bash, Bash(*), Edit(**)) would let a
// later session on the host run or write anything without asking.
func Refusal(r Rule) string {
	switch {
	case len(r.Rule) > maxRule:
		return fmt.Sprintf("longer than %d bytes", maxRule)
	case !utf8.ValidString(r.Rule) || printable.Escape(r.Rule) != r.Rule:
		return "holds control characters"
	case r.List != "allow":
		return ""
	}
	tool, spec, ok := strings.Cut(r.Rule, "(")
	if parts := strings.Split(r.Rule, "__"); !ok && len(parts) == 3 && parts[0] == "mcp" && strings.Trim(parts[2], "*") != "" {
		return "" // one tool of an MCP server
	}
	if !ok || !strings.HasSuffix(spec, ")") {
		return "allows the whole tool " + tool
	}
	pattern := strings.TrimPrefix(strings.TrimSuffix(spec, ")"), "domain:")
	if strings.Trim(pattern, "*:/~. ") == "" {
		return "allows everything " + tool + " does"
	}
	// A pattern names what its literal beginning, before the first
	// wildcard (Bash's *, a path's gitignore-style *, ?, [ and {), names:
	// one that begins with a wildcard (Bash(*e*), Edit(**/?*)), or whose
	// beginning stops inside a word (Bash(e*): env, eval, exec), matches
	// nearly every use of the tool, and is nothing Claude Code saves (a
	// command, a command's prefix, a path).
	if i := strings.IndexAny(pattern, "*?[{"); i >= 0 {
		literal := pattern[:i]
		if strings.Trim(literal, "*:/~. ") == "" || !strings.ContainsAny(literal[i-1:], boundaries(tool)) {
			return fmt.Sprintf("matches more than it names: a wildcard after %q", literal)
		}
	}
	return ""
}

// boundaries are the characters a pattern's literal beginning must end
// with before a wildcard, to name a whole command word (npm test:*, git *)
// or, for the file tools, a whole directory (src/**). A tool not known
// for paths gets the commands' (a path's / would let Bash(/usr/bin/*) run
// any program there).
func boundaries(tool string) string {
	switch tool {
	case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep":
		return " :/"
	}
	return " :"
}

// MergePermissions returns settings (a file's content; empty for a new
// file) with rules added to its permission lists, each once. The rest of
// the file stays as it is: its keys in their order, their values as
// written, indented as Claude Code writes it (two spaces). A file that is
// not a JSON object, or holds a key twice, is refused rather than
// rewritten.
func MergePermissions(settings []byte, rules []Rule) ([]byte, error) {
	if len(bytes.TrimSpace(settings)) == 0 {
		settings = []byte("{}")
	}
	top, err := orderedObject(settings)
	if err != nil {
		return nil, err
	}
	perms := object{}
	if raw, ok := top.get("permissions"); ok {
		if perms, err = orderedObject(raw); err != nil {
			return nil, fmt.Errorf("its permissions: %w", err)
		}
	}
	for _, list := range PermissionLists {
		var entries []json.RawMessage
		if raw, ok := perms.get(list); ok {
			if err := json.Unmarshal(raw, &entries); err != nil {
				return nil, fmt.Errorf("its permissions.%s is not a list", list)
			}
		}
		var existing []string
		for _, e := range entries {
			var r string
			if json.Unmarshal(e, &r) == nil {
				existing = append(existing, r)
			}
		}
		changed := false
		for _, r := range rulesOf(rules, list) {
			if slices.Contains(existing, r) {
				continue
			}
			quoted, _ := json.Marshal(r)
			entries = append(entries, quoted)
			existing = append(existing, r)
			changed = true
		}
		if changed {
			b, _ := json.Marshal(entries)
			perms.set(list, b)
		}
	}
	if len(rules) > 0 {
		top.set("permissions", perms.encode())
	}
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func rulesOf(rules []Rule, list string) []string {
	var out []string
	for _, r := range rules {
		if r.List == list {
			out = append(out, r.Rule)
		}
	}
	return out
}

// object is a JSON object's members in their order, values as written.
type object struct {
	keys   []string
	values []json.RawMessage
}

func (o *object) get(key string) (json.RawMessage, bool) {
	if i := slices.Index(o.keys, key); i >= 0 {
		return o.values[i], true
	}
	return nil, false
}

func (o *object) set(key string, v json.RawMessage) {
	if i := slices.Index(o.keys, key); i >= 0 {
		o.values[i] = v
		return
	}
	o.keys, o.values = append(o.keys, key), append(o.values, v)
}

func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(o.values[i])
	}
	b.WriteByte('}')
	return b.Bytes()
}

var errNotObject = errors.New("it is not a JSON object")

// orderedObject reads a JSON object's members in order, refusing a key
// that appears twice (which of the two Claude Code obeys is its choice).
func orderedObject(data []byte) (object, error) {
	var o object
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return o, errNotObject
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, errNotObject
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return o, errNotObject
		}
		if slices.Contains(o.keys, key) {
			return o, fmt.Errorf("it holds the key %q twice", printable.Escape(key))
		}
		o.keys, o.values = append(o.keys, key), append(o.values, v)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return o, errNotObject
	}
	if _, err := dec.Token(); err == nil {
		return o, errors.New("it holds more than one JSON value")
	}
	return o, nil
}

// pendingFile is where the rules the sessions of the instance dir added
// wait for claudebox --keep-permissions: a record in claudebox's state,
// which no sandbox sees (the instance is not: the sandbox writes there).
func pendingFile(stateDir, dir string) string {
	return filepath.Join(stateDir, instance.PermissionRecords, filepath.Base(dir))
}

// maxPending bounds the record: a session that adds more rules than this
// is not one to carry to the host.
const maxPending = 1 << 20

// Pending reads the rules waiting for the instance dir.
func Pending(stateDir, dir string) ([]Rule, error) {
	data, err := os.ReadFile(pendingFile(stateDir, dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rules []Rule
	if err := json.Unmarshal(data, &rules); err != nil {
		return nil, fmt.Errorf("%s: %v", pendingFile(stateDir, dir), err)
	}
	return rules, nil
}

// AddPending adds rules to those waiting for the instance dir, each once,
// under a lock: the sessions of a project may end together.
func AddPending(stateDir, dir string, rules []Rule) error {
	return updatePending(stateDir, dir, func(pending []Rule) []Rule {
		for _, r := range rules {
			if !slices.Contains(pending, r) {
				pending = append(pending, r)
			}
		}
		return pending
	})
}

// LeavePending leaves only rules waiting for the instance dir (none:
// the record goes), under the lock AddPending takes.
func LeavePending(stateDir, dir string, rules []Rule) error {
	if len(rules) == 0 {
		return ForgetPending(stateDir, dir)
	}
	return updatePending(stateDir, dir, func([]Rule) []Rule { return rules })
}

// updatePending replaces the rules waiting for the instance dir with what
// change makes of them, holding the records' lock.
func updatePending(stateDir, dir string, change func([]Rule) []Rule) error {
	records := filepath.Dir(pendingFile(stateDir, dir))
	if err := os.MkdirAll(records, 0o700); err != nil {
		return err
	}
	lock, err := os.Open(records)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return err
	}
	pending, err := Pending(stateDir, dir)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(change(pending), "", "  ")
	if len(data) > maxPending {
		return fmt.Errorf("more than %d bytes of permission rules", maxPending)
	}
	return atomicfile.Write(pendingFile(stateDir, dir), append(data, '\n'), 0o600)
}

// MovePending carries, with --move, the rules waiting for the instance
// oldDir to newDir (added to those waiting there, with --merge), each
// settings file under oldRoot named at its place under newRoot.
func MovePending(stateDir, oldDir, newDir, oldRoot, newRoot string) error {
	rules, err := Pending(stateDir, oldDir)
	if err != nil {
		return err
	}
	for i, r := range rules {
		if rel, err := filepath.Rel(oldRoot, r.File); err == nil && filepath.IsLocal(rel) {
			rules[i].File = filepath.Join(newRoot, rel)
		}
	}
	if len(rules) > 0 {
		if err := AddPending(stateDir, newDir, rules); err != nil {
			return err
		}
	}
	return ForgetPending(stateDir, oldDir)
}

// ForgetPending removes the record of the instance dir's waiting rules.
func ForgetPending(stateDir, dir string) error {
	err := os.Remove(pendingFile(stateDir, dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// Risk says what an allow rule that may be kept grants beyond what it
// names, or "" when it is known to grant nothing a later claude on the
// host could turn against the user: running any code, reading a secret,
// or editing what the host runs. Default-deny: a rule is harmless only
// when its tool's use is known to be (a Bash command from knownHarmless,
// a file tool's path inside the project, away from what the host runs);
// every other rule is kept only when the user confirms it by itself.
func Risk(r Rule) string {
	if r.List != "allow" {
		return ""
	}
	tool, spec, ok := strings.Cut(r.Rule, "(")
	spec = strings.TrimSuffix(spec, ")")
	switch {
	case !ok && strings.HasPrefix(tool, "mcp__"):
		return "calls an MCP server's tool unasked; what it does is the server's"
	case !ok:
		return "allows the whole tool " + tool
	case tool == "Bash":
		return bashRisk(spec)
	case tool == "Read" || tool == "Glob" || tool == "Grep":
		if outsideProject(spec) {
			return "reads outside the project, where your secrets are (~/.ssh, ~/.aws, ~/.claude)"
		}
		return ""
	case slices.Contains(editTools, tool):
		if outsideProject(spec) {
			return "edits outside the project: your dotfiles, ~/.claude and what the host runs"
		}
		if hostRuns(spec) {
			return "edits what the host runs or obeys in the project (dotfiles such as .envrc, .git/hooks, .claude, .vscode)"
		}
		return ""
	case tool == "WebFetch":
		return "fetches from " + strings.TrimPrefix(spec, "domain:") + " unasked: what the host's claude puts in the address leaves with it"
	}
	return "claudebox does not know what " + tool + " does"
}

// editTools are Claude Code's tools that write files.
var editTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// knownHarmless are the commands known to run no other program, read no
// file's content and write no file, whatever their arguments: a Bash rule
// for one of them, with or without a wildcard, grants nothing more. Most
// commands do one of those with some option (date -f reads a file, tree
// -o writes one, wc --files0-from prints a file's lines in its errors,
// git log --output writes one, echo > redirects, find -exec runs), so the
// list is short and git's only entry is status.
var knownHarmless = []string{"cd", "ls", "pwd", "which", "whoami", "id", "uname", "nproc", "true", "false", "git status"}

// interpreters run the code or the program their arguments give them:
// named in what a rule for one grants.
var interpreters = []string{
	"sh", "bash", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "busybox", "pwsh",
	"node", "nodejs", "deno", "bun", "bunx", "npx", "pnpx", "uvx", "perl", "ruby", "php", "lua", "Rscript", "julia", "tclsh", "osascript",
	"awk", "gawk", "mawk", "sed", "find", "xargs", "env", "exec", "eval", "command", "builtin", "source", ".",
	"nice", "nohup", "timeout", "time", "stdbuf", "setsid", "sudo", "su", "doas", "watch", "strace", "gdb", "script", "expect", "parallel",
}

// bashRisk says what a Bash rule's command (npm test:*, git *, ls) grants
// beyond its name, "" for a command of knownHarmless without shell
// operators.
func bashRisk(spec string) string {
	command := strings.TrimSpace(strings.TrimSuffix(spec, ":*"))
	if strings.ContainsAny(command, ";&|<>$`(){}\\\n") {
		return "runs a command line with shell operators or substitutions: what it runs is not the command it names"
	}
	words := strings.Fields(strings.ReplaceAll(command, "*", " * "))
	if len(words) == 0 {
		return "runs any command"
	}
	name := words[0]
	if slices.Contains(interpreters, name) || strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") || strings.HasPrefix(name, "lua") {
		return "runs any code: " + name + " runs the code or program its arguments give it"
	}
	for _, harmless := range knownHarmless {
		h := strings.Fields(harmless)
		if len(words) >= len(h) && slices.Equal(words[:len(h)], h) && !slices.Contains(words[:len(h)], "*") {
			return ""
		}
	}
	if name == "git" && len(words) > 1 && strings.HasPrefix(words[1], "-") {
		return "runs any code: git's options before its command (-c, --exec-path) name programs it runs"
	}
	return "may run any code, read your files or write what the host runs: " + name + " is not among the commands known to do none of these (" + strings.Join(knownHarmless, ", ") + ")"
}

// outsideProject says a file tool's path pattern may reach outside the
// project: from the filesystem's root (//), the home (~), the settings
// file's own folder (/; ~/.claude for the user's), or up through "..".
func outsideProject(pattern string) bool {
	return strings.HasPrefix(pattern, "/") || strings.HasPrefix(pattern, "~") || slices.Contains(strings.Split(pattern, "/"), "..")
}

// hostRuns says a project path pattern may match what the host runs or
// obeys there: a dotfile or dot-directory (.envrc, .git/hooks, .claude,
// .vscode), named or matched by a wildcard that can stand for one.
func hostRuns(pattern string) bool {
	for _, seg := range strings.Split(strings.TrimPrefix(pattern, "./"), "/") {
		if strings.HasPrefix(seg, ".") || seg != "" && strings.ContainsRune("*?[{", rune(seg[0])) {
			return true
		}
	}
	return false
}
