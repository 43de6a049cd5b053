package firstday

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestFirstDay36BuildOutputSaysBuildAgain: a make inside builds into
// build/, which git ignores; the exit moves the program and its object
// file aside (make would take them for up to date) and said "if you
// changed one yourself during the session, put it back; otherwise read
// it first", where what the user needs is to build again (a Node
// project's host npm start failed with MODULE_NOT_FOUND until npm run
// build). It says so, and claudebox --changes, which listed
// "created build/app (ignored)" as if it were there, names where each
// went. The host's make test builds again and runs.
func TestFirstDay36BuildOutputSaysBuildAgain(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "cproj")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "build/\n")
	h.Write(filepath.Join(proj, "main.c"), "#include <stdio.h>\nint main(void) { puts(\"hi-36\"); return 0; }\n")
	h.Write(filepath.Join(proj, "Makefile"), "build/app: build/main.o\n\tcc -o $@ $<\nbuild/main.o: main.c\n\tmkdir -p build && cc -c -o $@ main.c\ntest: build/app\n\t./build/app\n.PHONY: test\n")
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "c project")

	out := h.InsideStderr(proj, "make -s test")
	if !strings.Contains(out, "hint: git ignores these, as it does what a build or an install makes: to have them again, make them on the host as the session did (make, npm run build, python3 -m venv)") || strings.Contains(out, "otherwise read it first") {
		t.Errorf("the exit does not say to build again:\n%s", out)
	}
	changes := h.Run(proj, nil, "claudebox", "--changes")
	aside := filepath.Join(h.Home, ".claudebox", "moved-aside")
	for _, f := range []string{"build/app", "build/main.o"} {
		i := strings.Index(changes, "  created  "+f+" (ignored)\n           moved aside by the session's end to "+aside+"/")
		if i < 0 || !strings.Contains(changes[i:], "/"+f+"\n") {
			t.Errorf("claudebox --changes does not say where %s went:\n%s", f, changes)
		}
	}
	if got := h.Run(proj, nil, "make", "-s", "test"); !strings.Contains(got, "hi-36") {
		t.Errorf("make test on the host after the session: %s", got)
	}
}

// TestFirstDay36HuskyInstallSaysWhy: husky's install, npm install's
// prepare in a project that uses it, runs git config core.hooksPath
// .husky/_ and prints what git said: "could not write config file
// .git/config: Device or resource busy", which told the user nothing of
// the sandbox. claudebox's git inside says why, in its own voice, without
// repeating what the command set (the host's git would run it); git's
// exit status and the host's configuration stay as they were.
func TestFirstDay36HuskyInstallSaysWhy(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "npm", "nodejs")
	proj := filepath.Join(h.Home, "code", "husky")
	h.GitRepo(proj)
	// husky 9's install, as it calls git and reports what git said.
	h.Write(filepath.Join(proj, "package.json"), `{"name":"husky-36","version":"1.0.0","scripts":{"prepare":"node install-hooks.js"}}`+"\n")
	h.Write(filepath.Join(proj, "install-hooks.js"), "const r = require('child_process').spawnSync('git', ['config', 'core.hooksPath', '.husky/_'])\nif (r.status) console.log('husky: ' + r.stderr)\n")
	config := h.Run(proj, nil, "cat", ".git/config")

	out := h.Inside(proj, nil, "npm install --offline --no-audit --no-fund 2>&1; git config core.hooksPath .husky/_ 2>&1; echo status=$?")
	const why = "claudebox: git could not write its configuration, which this sandbox protects (the host's git runs what it sets)"
	if strings.Count(out, why) != 2 || !strings.Contains(out, "husky: error: could not write config file") {
		t.Errorf("husky's install inside does not say why git could not write its configuration:\n%s", out)
	}
	if strings.Contains(out, why+"; run") || strings.Contains(out, `"git config core.hooksPath`) {
		t.Errorf("the message repeats what the command would set:\n%s", out)
	}
	if !strings.Contains(out, "status=4") {
		t.Errorf("git config's exit status is not git's own (4):\n%s", out)
	}
	if got := h.Run(proj, nil, "cat", ".git/config"); got != config {
		t.Errorf("the host's .git/config changed:\n%s", got)
	}
}

// TestFirstDay36MCPAnswerSaysWhereToKeepIt: a project's .mcp.json names a
// local server; claude inside asks whether to use it, and saves the
// answer into the project's .claude/settings.local.json, a private copy
// inside, discarded at the end. The end named the file with "make the
// change on the host to keep it", and the next session asked again, the
// user not told that the answer was what changed, nor where to give it:
// the host's settings.local.json, which each session reads. It says
// both, and with the answer given there, claude inside connects to the
// server unasked.
func TestFirstDay36MCPAnswerSaysWhereToKeepIt(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "mcpapp")
	h.GitRepo(proj)
	const key = "sk-ant-test-key-mcp36-0123456789abcdef"
	h.Onboarded(key, proj)
	h.Write(filepath.Join(proj, "server.js"), `const rl = require('readline').createInterface({input: process.stdin})
rl.on('line', l => {
  const m = JSON.parse(l)
  if (m.id === undefined) return
  let r = {}
  if (m.method === 'initialize') r = {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'local', version: '1'}}
  if (m.method === 'tools/list') r = {tools: [{name: 'ping', description: 'ping', inputSchema: {type: 'object', properties: {}}}]}
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result: r}) + '\n')
})
`)
	h.Write(filepath.Join(proj, ".mcp.json"), `{"mcpServers":{"local":{"command":"node","args":["server.js"]}}}`+"\n")
	api := harness.StartFakeAPI(t, "FAKE-REPLY-mcp36")
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "150", "-y", "40", "bash --norc --noprofile")
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" claudebox", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "New MCP server found in this project: local") }, "claude's question")
	// "Use this MCP server", two above where the cursor starts (CI saw
	// a key sent while the question was still drawn lost).
	harness.Choose(t, tmux, "Use this MCP server", func(s string) bool {
		return strings.Contains(s, "❯") && !strings.Contains(s, "New MCP server")
	}, "claude's prompt")
	screen := harness.Slash(t, tmux, "/exit", func(s string) bool { return strings.Contains(s, "each session reads") }, "the end's messages")
	if !strings.Contains(screen, "settings.local.json (your answer to the project's MCP servers)") {
		t.Errorf("the end does not say the answer is what the discarded copy held:\n%s", screen)
	}
	if strings.Contains(screen, "make the change on the host") {
		t.Errorf("the end says only to make the change on the host:\n%s", screen)
	}

	// Given on the host, as the hint says, it is read inside.
	h.Write(filepath.Join(proj, ".claude", "settings.local.json"), `{"enabledMcpjsonServers": ["local"]}`+"\n")
	if out := h.Run(proj, api.Env(key), "claudebox", "mcp", "list"); !strings.Contains(out, "local: node server.js - ✔ Connected") {
		t.Errorf("claudebox mcp list with the answer given on the host:\n%s", out)
	}
}

// TestFirstDay36VenvNotCountedAgain: python3 -m venv .venv inside, where
// git ignores .venv: the exit moves aside the virtualenv's scripts and
// links and the packages of its site-packages, each said, and then said
// again ".venv/: 754 files changed, which git ignores" with "claudebox
// --changes lists them", counting the files of the packages it had just
// moved aside. They are not counted again, and the hint over the
// virtualenv's files names how it was made, not only a build.
func TestFirstDay36VenvNotCountedAgain(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireTool(t, "python3", "python3-venv")
	proj := filepath.Join(h.Home, "code", "py")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\n")
	h.Run(proj, nil, "git", "add", "-A")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "py project")

	out := h.InsideStderr(proj, "python3 -m venv .venv")
	if !strings.Contains(out, "packages moved aside to ") && !strings.Contains(out, "1 package moved aside to ") {
		t.Fatalf("the exit does not move the virtualenv's packages aside:\n%s", out)
	}
	if strings.Contains(out, "claudebox: .venv/: ") {
		t.Errorf("the exit counts again, as changed there, the virtualenv's files it moved aside:\n%s", out)
	}
	if !strings.Contains(out, "make them on the host as the session did (make, npm run build, python3 -m venv)") {
		t.Errorf("the hint over the virtualenv's files does not say how to make them again:\n%s", out)
	}
}
