package session

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
)

// everyFeature is a host laid out for a launch with every feature on:
// its home, the project's directory, and the flags that turn them on.
type everyFeature struct {
	home, state, project string
	// gpgSocket and ca are the host's paths the plan binds from outside
	// the home; requested, the variables --env names.
	gpgSocket, ca string
	requested     map[string]bool
}

// newEveryFeatureHost lays out a home that offers everything a launch can
// carry in (settings, MCP servers, SSH and gpg agents, a CA bundle, a
// toolchain under $HOME, the other agents' configuration) and sets the
// process's environment and working directory to it.
func newEveryFeatureHost(t *testing.T) everyFeature {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	home := filepath.Join(root, "home")
	project := filepath.Join(home, "code", "proj")
	bin := filepath.Join(root, "bin")
	gpgHome := filepath.Join(home, ".gnupg")
	gpgRun := filepath.Join(root, "gpgrun")
	writeFiles(t, home, map[string]string{
		".claude/settings.json":                       `{"permissions":{"allow":["Bash(ls:*)"]},"statusLine":{"type":"command","command":"~/bin/status.sh"},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cat >> ~/.claude/logs/stop.log"},{"type":"command","command":"~/.claude/hooks/notify.sh"}]}]}}`,
		".claude/hooks/notify.sh":                     "#!/bin/sh\n",
		"bin/status.sh":                               "#!/bin/sh\n",
		".claude/logs/stop.log":                       "",
		".claude/CLAUDE.md":                           "be brief\n",
		".claude/commands/hi.md":                      "hi\n",
		".claude.json":                                `{"mcpServers":{"notes":{"command":"` + home + `/.local/share/notes/notes-mcp"}}}`,
		".local/share/notes/notes-mcp":                "#!/bin/sh\n",
		".claude/plugins/known_marketplaces.json":     `{"mkt":{"source":{"source":"directory","path":"` + home + `/src/mkt"}}}`,
		".claude/skills/review/SKILL.md":              "---\nname: review\n---\n",
		".claude/plugins/store/notes.json":            "{}\n",
		".claude/plugins/marketplaces/corp/.git/HEAD": "ref: refs/heads/main\n",
		"src/mkt/.claude-plugin/marketplace.json":     "{}\n",
		".ssh/known_hosts":                            "github.com ssh-ed25519 AAAA\n",
		".ssh/config":                                 "Host gh\n  HostName github.com\n",
		".ssh/id_ed25519":                             "PRIVATE\n",
		".ssh/id_ed25519.pub":                         "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl u@h\n",
		".codex/auth.json":                            `{"tokens":{"access_token":"a","refresh_token":"r","id_token":"i"}}`,
		".gemini/oauth_creds.json":                    `{"access_token":"a","refresh_token":"r","expiry_date":1}`,
		"code/proj/sub/lib/.git/HEAD":                 "ref: refs/heads/main\n",
		"code/proj/pkg/.claude/settings.json":         "{}\n",
		".gitconfig":                                  "[user]\n\tname = U\n[url \"https://oauth2:tok@git.example.com/\"]\n\tinsteadOf = https://git.example.com/\n",
		".config/git/config":                          "[core]\n\tautocrlf = false\n\texcludesFile = ~/.gitignore_global\n[include]\n\tpath = work.inc\n",
		".config/git/work.inc":                        "[http]\n\textraHeader = Authorization: Bearer tok\n",
		".config/git/ignore":                          "*.swp\n",
		".gitignore_global":                           ".DS_Store\n",
		".config/go/env":                              "GOPRIVATE=example.com/*\n",
		".cargo/config.toml":                          "[net]\ngit-fetch-with-cli = true\n",
		".cargo/config":                               "[net]\noffline = true\n",
		".pip/pip.conf":                               "[global]\ntimeout = 60\n",
		".config/pip/pip.conf":                        "[global]\nindex-url = https://pypi.example.com/simple\n",
		".config/uv/uv.toml":                          "offline = true\n",
		".config/claudebox/config.toml":               "env = [\"CROSSINGS_FROM_CONFIG=1\"]\n",
		".gnupg/pubring.kbx":                          "keyring",
		".gnupg/gpg.conf":                             "default-key ABCD\n",
		".gnupg/private-keys-v1.d/k.key":              "SECRET",
		".local/bin/tool":                             "#!/bin/sh\n",
		".codex/config.toml":                          "model = \"o3\"\n[mcp_servers.notes]\ncommand = \"notes-mcp\"\n",
		".codex/AGENTS.md":                            "codex notes\n",
		".gemini/settings.json":                       `{"theme":"x","mcpServers":{"notes":{"command":"notes-mcp"}}}`,
		".gemini/GEMINI.md":                           "gemini notes\n",

		".gemini/extensions/jira/gemini-extension.json":          `{"name":"jira"}`,
		".gemini/extensions/jira/.gemini-extension-install.json": `{"source":"https://git.example.com/jira.git","type":"git"}`,
		".gemini/extensions/jira/.env":                           `JIRA_API_TOKEN=tok`,
		"data/readme":                                            "shown read-only\n",
		"work/readme":                                            "shown read-write\n",
		"work/bin/run":                                           "#!/bin/sh\n",
		"work/repo/.git/HEAD":                                    "ref: refs/heads/main\n",
		".claude/settings.local.json":                            "{}\n",
		"code/proj/main.go":                                      "package main\n",
		"code/proj/.claude/settings.json":                        "{}\n",
		"code/proj/.envrc":                                       "use nix\n",
	})
	for _, name := range []string{"bwrap", "claude", "codex", "gemini"} {
		writeFiles(t, bin, map[string]string{name: "#!/bin/sh\nexit 0\n"})
	}
	writeFiles(t, bin, map[string]string{"gpgconf": "#!/bin/sh\n[ \"$1\" = --list-dirs ] && printf 'homedir:%s\\nagent-extra-socket:%s\\n' " + gpgHome + " " + gpgRun + "/S.gpg-agent.extra\nexit 0\n"})
	for _, name := range []string{"bwrap", "claude", "codex", "gemini", "gpgconf"} {
		os.Chmod(filepath.Join(bin, name), 0o755)
	}
	os.Chmod(filepath.Join(home, ".local/bin/tool"), 0o755)
	// A linked worktree beside the project: its git directory lies
	// outside its checkout, and it has no .claude.
	for _, args := range [][]string{
		{"init", "-q", project},
		{"-C", project, "-c", "user.name=u", "-c", "user.email=u@h", "commit", "-q", "--allow-empty", "-m", "start"},
		{"-C", project, "worktree", "add", "-q", filepath.Join(home, "code", "task"), "-b", "task"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	os.MkdirAll(gpgRun, 0o700)
	listen := func(path string) {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
	listen(filepath.Join(root, "ssh-agent.sock"))
	listen(filepath.Join(gpgRun, "S.gpg-agent.extra"))
	ca := filepath.Join(root, "ca.pem")
	os.WriteFile(ca, testCertificate(t), 0o644)

	environ := os.Environ()
	os.Clearenv()
	t.Cleanup(func() {
		os.Clearenv()
		for _, kv := range environ {
			k, v, _ := strings.Cut(kv, "=")
			os.Setenv(k, v)
		}
	})
	for k, v := range map[string]string{
		"HOME": home, "USER": "u", "PATH": filepath.Join(home, ".local/bin") + ":" + bin + ":/usr/bin:/bin",
		"TERM": "xterm", "LANG": "C.UTF-8", "GOPATH": filepath.Join(home, "go"),
		"SSH_AUTH_SOCK":     filepath.Join(root, "ssh-agent.sock"),
		"ANTHROPIC_API_KEY": "sk-ant-api03-crossings", "OPENAI_API_KEY": "sk-crossings", "GEMINI_API_KEY": "gm-crossings",
		"SSL_CERT_FILE": ca, "NODE_EXTRA_CA_CERTS": ca, "REQUESTS_CA_BUNDLE": ca, "CURL_CA_BUNDLE": ca, "GIT_SSL_CAINFO": ca,
		"CROSSINGS_FLAG": "1", "GITHUB_TOKEN": "ghp_notpassed",
	} {
		os.Setenv(k, v)
	}
	t.Chdir(project)
	return everyFeature{
		home: home, state: filepath.Join(home, ".claudebox"), project: project,
		gpgSocket: filepath.Join(gpgRun, "S.gpg-agent.extra"), ca: ca,
		requested: map[string]bool{"CROSSINGS_FLAG": true},
	}
}

// flags turns every feature on, with the network mode given.
func (h everyFeature) flags(network string) config.Settings {
	yes, memory, cpus, pids := true, "4G", 2, 512
	return config.Settings{
		Bind:       []string{filepath.Join(h.home, "work")},
		RoBind:     []string{filepath.Join(h.home, "data")},
		Env:        []string{"CROSSINGS_FLAG", "CROSSINGS_SET=x"},
		WithSSH:    &yes,
		WithGPG:    &yes,
		GPU:        &yes,
		Network:    &network,
		AllowHosts: []string{"example.com"},
		DenyHosts:  []string{"bad.example.com"},
		Publish:    []string{"18080:8080"},
		Forward:    []string{"15432"},
		MCP:        []string{"notes"},
		Memory:     &memory,
		CPUs:       &cpus,
		Pids:       &pids,
	}
}

// testCertificate is a self-signed CA certificate, PEM-encoded.
func testCertificate(t *testing.T) []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "crossings CA"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// writeFiles lays out files (path: content) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		testfs.Write(t, filepath.Join(root, name), content)
	}
}

// crossingsDoc is the page whose table names every crossing.
const crossingsDoc = "../docs/security.md"

// crossingsHeading opens the table's section.
const crossingsHeading = "## Every crossing, and its rule"

// crossingRow is one row of the table: the plan's items it names
// (backquoted, starting with "--" for a mount or "$" for a variable), and
// its test cell.
type crossingRow struct {
	line     int
	patterns []string
	tests    string
}

// readCrossings parses the table in docs/security.md.
func readCrossings(t *testing.T) []crossingRow {
	t.Helper()
	b, err := os.ReadFile(crossingsDoc)
	if err != nil {
		t.Fatal(err)
	}
	var rows []crossingRow
	in := false
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			in = line == crossingsHeading
			continue
		case !in || !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| crossing"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 5 {
			t.Fatalf("%s:%d: a row of the crossings table has 5 cells (crossing, way, what, rule, test), this one %d", crossingsDoc, i+1, len(cells))
		}
		row := crossingRow{line: i + 1, tests: cells[4]}
		for _, quoted := range backquoted.FindAllStringSubmatch(cells[0], -1) {
			if p := quoted[1]; planPattern(p) {
				row.patterns = append(row.patterns, p)
			}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		t.Fatalf("%s has no table under %q", crossingsDoc, crossingsHeading)
	}
	return rows
}

// planPattern says a backquoted item names what a plan holds: a mount
// (its first word a bwrap mount operation) or a variable.
func planPattern(p string) bool {
	kind, _, _ := strings.Cut(p, " ")
	switch mount.Kind(strings.TrimSuffix(kind, "*")) {
	case mount.RoBind, mount.RoBindTry, mount.Bind, mount.Symlink, mount.Tmpfs, mount.Proc, mount.Dev, mount.BindData, mount.RoBindData, mount.File, mount.RemountRO:
		return true
	}
	return strings.HasPrefix(p, "$")
}

var backquoted = regexp.MustCompile("`([^`]+)`")

// patternRegexp reads a row's pattern: * stands for any part of one path
// component, ** for anything.
func patternRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch {
		case strings.HasPrefix(p[i:], "**"):
			b.WriteString(".*")
			i++
		case p[i] == '*':
			b.WriteString("[^/ ]*")
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// crossingNamer writes a plan's paths as the table names them: a path
// under one of the named places as that place's name and the rest.
type crossingNamer []namedPlace

type namedPlace struct{ path, name string }

func (n *crossingNamer) add(path, name string) {
	if path != "" {
		*n = append(*n, namedPlace{filepath.Clean(path), name})
	}
}

func (n crossingNamer) name(path string) string {
	best := -1
	for i, p := range n {
		if (path == p.path || strings.HasPrefix(path, p.path+"/")) && (best < 0 || len(p.path) > len(n[best].path)) {
			best = i
		}
	}
	if best < 0 {
		return path
	}
	return n[best].name + path[len(n[best].path):]
}

// crossingItems are the plan's mounts, copies, sockets and variables as
// the table names them, each with what the plan says of it.
func (h everyFeature) crossingItems(s *Session) map[string]string {
	p := s.Plan()
	var n crossingNamer
	n.add(h.home, "~")
	n.add(p.Project.Checkout, "<project>")
	n.add(filepath.Dir(p.Project.Checkout), "<project>/..")
	for _, d := range p.Project.GitDirs {
		n.add(d, "<gitdir>")
	}
	n.add(p.Instance, "<instance>")
	n.add(filepath.Join(h.state, "caches"), "<caches>")
	n.add(runDir(h.state), "<run>")
	// The private copies' directory where the runtime directory or
	// /dev/shm holds it (dirCopiesAt): in the table among the run files.
	n.add(probe.RuntimeDir(os.Getenv), "<run>")
	for _, d := range mount.SystemDirs {
		n.add(d, "<system>")
	}
	if target, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil {
		n.add(target, "<resolv.conf>")
	}
	for _, b := range p.Binds {
		n.add(b.Src, "<bind>")
	}
	for _, tc := range p.Toolchains {
		for _, r := range tc.Roots {
			n.add(r.Path, "<toolchain>")
		}
	}
	for _, c := range p.Caches {
		n.add(c.Dest, "<cache>")
	}
	for _, g := range p.Guards {
		n.add(g.Path, "<guard>")
	}
	for _, m := range p.Mounts {
		if m.Role == mount.Protection && m.Kind == mount.Bind && m.Src == m.Dest {
			n.add(m.Dest, "<pin>")
		}
	}
	if exe, err := os.Executable(); err == nil {
		n.add(exe, "<claudebox>")
	}
	n.add(filepath.Dir(p.Command[0]), "<command-dir>")
	n.add(os.Getenv("SSH_AUTH_SOCK"), "$SSH_AUTH_SOCK")
	n.add(h.gpgSocket, "<gpg-extra-socket>")
	n.add(h.ca, "<ca-bundle>")
	for _, m := range p.Mounts {
		if strings.Contains(m.Why, ", named in ~/.claude") || strings.Contains(m.Why, " (--with-mcp), read-only") {
			n.add(m.Dest, "<setup>")
		}
		if strings.HasPrefix(m.Why, "the file claude's --") {
			n.add(m.Dest, "<claude-flag-file>")
		}
	}

	items := map[string]string{}
	for _, m := range p.Mounts {
		item := string(m.Kind) + " " + n.name(m.Dest)
		if m.Src != "" && m.Src != m.Dest {
			item = string(m.Kind) + " " + n.name(m.Src) + " " + n.name(m.Dest)
		}
		items[item] = m.Why
	}
	// Every name the plan passes, whatever its value: a lookup that knows
	// them all, marking the values that come from it.
	const fromLookup = "\x00from the host's environment or the user's"
	requested := map[string]bool{}
	for _, e := range s.env.Names {
		if _, ok := s.env.Values[e]; ok {
			requested[e] = true
		}
	}
	for _, kv := range p.Environ(func(string) (string, bool) { return fromLookup, true }) {
		name, value, _ := strings.Cut(kv, "=")
		item := "$" + name
		switch {
		case !strings.Contains(value, fromLookup):
			// Set by the launch: the table names each.
		case requested[name] || h.requested[name]:
			item = "$<env>"
		case allowlisted(name):
			item = "$<allowlist>"
		}
		items[item] = "a variable"
	}
	return items
}

// allowlisted says the environment's allowlist passes name by itself.
func allowlisted(name string) bool {
	env, err := environment.Resolve([]string{name + "=x"}, nil, nil)
	return err == nil && slices.Contains(env.Names, name)
}

// TestCrossingsInventory: every mount, private copy, socket and variable a
// launch's plan holds, with every feature turned on (--with-ssh,
// --with-gpg, --with-mcp, binds, a CA bundle, a toolchain under $HOME,
// the tool caches, published and forwarded ports, each network mode,
// each agent, a shell), is a row of docs/security.md's table of
// crossings; and each such row names something a plan holds. A new
// feature adds its row, with its rule and its test.
func TestCrossingsInventory(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares 17 launches (10 s); run without -short")
	}
	rows := readCrossings(t)
	h := newEveryFeatureHost(t)
	type launch struct {
		agent   agent.Agent
		shell   bool
		network string
		setup   func()
		args    []string
	}
	var launches []launch
	for _, network := range []string{config.NetworkFiltered, config.NetworkHost, config.NetworkNone} {
		for _, a := range []agent.Agent{agent.Claude, agent.Codex, agent.Gemini} {
			launches = append(launches, launch{agent: a, network: network})
		}
		launches = append(launches, launch{agent: agent.Claude, shell: true, network: network})
	}
	// A linked worktree; Claude with its other credentials; Codex and
	// Gemini with their own logins rather than keys.
	launches = append(launches,
		launch{agent: agent.Claude, network: config.NetworkFiltered, setup: func() { t.Chdir(filepath.Join(h.home, "code", "task")) }},
		launch{agent: agent.Claude, network: config.NetworkFiltered, setup: func() {
			t.Chdir(h.project)
			os.Unsetenv("ANTHROPIC_API_KEY")
			os.Setenv("ANTHROPIC_AUTH_TOKEN", "crossings-token")
		}},
		launch{agent: agent.Claude, network: config.NetworkFiltered, setup: func() {
			os.Unsetenv("ANTHROPIC_AUTH_TOKEN")
			writeFiles(t, h.home, map[string]string{".claude/.credentials.json": `{"claudeAiOauth":{"accessToken":"a","refreshToken":"r","expiresAt":1}}`})
		}},
	)
	// The settings and MCP servers claude's own flags name by a file.
	writeFiles(t, h.home, map[string]string{"conf/settings.json": `{"model":"m"}`, "conf/mcp.json": `{"mcpServers":{}}`})
	launches = append(launches, launch{agent: agent.Claude, network: config.NetworkFiltered, args: []string{
		"--settings", filepath.Join(h.home, "conf", "settings.json"), "--mcp-config", filepath.Join(h.home, "conf", "mcp.json"),
	}})
	for _, a := range []agent.Agent{agent.Codex, agent.Gemini} {
		launches = append(launches, launch{agent: a, network: config.NetworkFiltered, setup: func() {
			os.Unsetenv("OPENAI_API_KEY")
			os.Unsetenv("GEMINI_API_KEY")
			os.Setenv("GOOGLE_GENAI_USE_GCA", "true")
		}})
	}
	seen := map[string]bool{}
	for _, l := range launches {
		if l.setup != nil {
			l.setup()
		}
		what := fmt.Sprintf("--agent %s --network %s", l.agent.Name, l.network)
		if l.shell {
			what += " --shell"
		}
		s, err := Prepare(Options{Home: Home{Dir: h.home, State: h.state}, Flags: h.flags(l.network), Agent: l.agent, Shell: l.shell, Args: append(l.args, "-p", "hi")})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for item, why := range h.crossingItems(s) {
			named := false
			for _, r := range rows {
				for _, p := range r.patterns {
					if patternRegexp(p).MatchString(item) {
						named, seen[p] = true, true
					}
				}
			}
			if !named {
				t.Errorf("%s: `%s` (%s) is in the plan but no row of %s's table of crossings names it: add its row, with its rule and its test", what, item, why, crossingsDoc)
			}
		}
	}
	for _, r := range rows {
		if !strings.Contains(r.tests, "Test") && !strings.Contains(r.tests, ".txtar") && !strings.Contains(r.tests, "_test.go") {
			t.Errorf("%s:%d: the row names no test", crossingsDoc, r.line)
		}
		for _, p := range r.patterns {
			if !seen[p] && !machineDependent(p) {
				t.Errorf("%s:%d: `%s` names nothing in any plan with every feature on: remove it, or turn on what makes it in this test", crossingsDoc, r.line, p)
			}
		}
	}
}

// machineDependent are the table's items that only some hosts' plans hold.
func machineDependent(pattern string) bool {
	// What of /etc only the user may read depends on the user (as root,
	// /etc/shadow); which of the system's settings files the tools read
	// there are private copies of, on the machine.
	return strings.Contains(pattern, "<resolv.conf>") || strings.HasPrefix(pattern, "--tmpfs <system>/") || strings.HasPrefix(pattern, "--ro-bind <system>/") || strings.HasPrefix(pattern, "--ro-bind-data <system>/") || (strings.HasPrefix(pattern, "--file <system>/") && pattern != "--file <system>/**") || strings.HasPrefix(pattern, "--symlink usr/* <system>") || strings.HasPrefix(pattern, "--ro-bind <run>/*.claude/* <system>/") ||
		strings.HasPrefix(pattern, "--dev-bind-try ") || pattern == "--ro-bind-try /run/opengl-driver" || pattern == "--ro-bind-try /usr/lib/wsl"
}
