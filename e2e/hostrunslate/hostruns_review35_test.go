package hostrunslate

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview35IgnoredScriptRunByHook: a git hook of the user's (in
// .git/hooks, or the core.hooksPath directory .githooks), and the hooks
// and MCP servers of the project's Claude Code settings, run a file git
// ignores by its path (sh tools/check), as a makefile's recipe does. The
// exit asked only the task files in the file's directory and above it
// (a makefile, a package.json) whether they named it: the tools/check the
// session made (no #! line, extension or execute bit) stayed, git status
// showed nothing, and the host's git commit (claude -p) ran it.
// Host-side proof: the host's git commit and claude -p run nothing
// planted.
func TestReplayReview35IgnoredScriptRunByHook(t *testing.T) {
	commit := []string{"git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x"}
	for name, c := range map[string]struct {
		files  map[string]string
		config []string
		claude bool
	}{
		"git hook":    {files: map[string]string{".git/hooks/pre-commit": "#!/bin/sh\nsh tools/check\n"}},
		"hooks path":  {files: map[string]string{".githooks/pre-commit": "#!/bin/sh\nsh tools/check\n"}, config: []string{"core.hooksPath", ".githooks"}},
		"claude hook": {files: map[string]string{".claude/settings.json": `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"sh tools/check"}]}]}}` + "\n"}, claude: true},
		"mcp server": {files: map[string]string{
			".mcp.json":             `{"mcpServers":{"lint":{"command":"sh","args":["tools/check"]}}}` + "\n",
			".claude/settings.json": `{"enableAllProjectMcpServers":true}` + "\n",
		}, claude: true},
	} {
		t.Run(name, func(t *testing.T) {
			if c.claude {
				harness.RequireClaude(t)
			}
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "hooked")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/tools/\n")
			for f, text := range c.files {
				h.Write(filepath.Join(proj, f), text)
				if filepath.Base(f) == "pre-commit" {
					harness.Must(t, os.Chmod(filepath.Join(proj, f), 0o755))
				}
			}
			if c.config != nil {
				h.Run(proj, nil, "git", append([]string{"config"}, c.config...)...)
			}
			h.Run(proj, nil, "git", "add", ".")
			h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--no-verify", "-m", "hooks")
			const key = "sk-ant-test-key-hookrun-0123456789abcdef"
			if c.claude {
				h.Onboarded(key, proj)
			}
			out := harness.PlantUnseen(t, h, proj, "ignored script a hook runs", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/check`)
			if !c.claude {
				h.RunsNothingPlanted(out, proj, nil, commit[0], commit[1:]...)
				return
			}
			api := harness.StartFakeAPI(t, "FAKE-REPLY-hookrun")
			h.RunsNothingPlanted(out, proj, api.Env(key), "claude", "-p", "hello")
			if len(api.Bodies()) == 0 {
				t.Fatalf("the host's claude sent nothing: the test proves nothing")
			}
		})
	}
}

// TestReplayReview35UntrackedHidden: where git's configuration sets
// status.showUntrackedFiles = no (the repository's, as a large
// repository's setup advises, or the user's own), git status names no
// untracked file. The exit left a module the session made that git does
// not ignore to the user's review, as git status would name it: a json.py
// beside a tracked app.py stayed, git status showed nothing, and the
// host's python3 app.py imported it for the standard library's.
// Host-side proof: the host's python3 app.py runs nothing planted.
func TestReplayReview35UntrackedHidden(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	for _, where := range []string{"repository", "global"} {
		t.Run(where, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "quiet")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, "app.py"), "import json\nprint(json.dumps(1))\n")
			if where == "repository" {
				h.Run(proj, nil, "git", "config", "status.showUntrackedFiles", "no")
			} else {
				h.Write(filepath.Join(h.Home, ".gitconfig"), "[status]\n\tshowUntrackedFiles = no\n")
			}
			harness.CommitAll(h, proj, "app")
			out := h.Plant(proj, "an untracked module", `sleep 2; echo 'open("`+h.Marker()+`", "w")' > json.py`)
			if st := h.Run(proj, nil, "git", "status", "--porcelain"); st != "" {
				t.Fatalf("the host's git status shows what the session left: the test proves nothing\n%s", st)
			}
			h.RunsNothingPlanted(out, proj, nil, "python3", "app.py")
		})
	}
}

// serverOnConnect is a host server of the user's that runs what a client
// asks of it, as tmux's and a superuser's PostgreSQL do: it listens at its
// argument, as given (a relative path from its own directory, as
// overmind binds ./.overmind.sock), and makes the file its second argument
// names when a client connects.
const serverOnConnect = `import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
open(sys.argv[1] + ".ready", "w").close()
c, _ = s.accept()
open(sys.argv[2], "w").close()
`

// TestReplayReview35ServerSocketInProject: a server of the user's whose
// socket lies below the project's top (tmux -S .run/tmux.sock, devenv's
// PostgreSQL in .devenv/state, one bound by a relative path) answers the
// sandbox as it answers the user: a read-only mount does not stop
// connect(), and the kernel's Landlock has no right for it. The sandbox's
// tmux -S .run/tmux.sock run-shell had the host's tmux server run its
// command on the host, outside the sandbox. Host-side proof: while the
// session runs, the host's servers in the project run nothing the
// sandbox sends them.
func TestReplayReview35ServerSocketInProject(t *testing.T) {
	harness.RequireTool(t, "tmux", "apt-get install tmux")
	harness.RequireTool(t, "python3", "apt-get install python3")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "served")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/.run/\n/serve.py\n")
	h.Write(filepath.Join(proj, "serve.py"), serverOnConnect)
	h.Write(filepath.Join(proj, ".run", "keep"), "")
	harness.CommitAll(h, proj, "ignore")
	tmuxSock := filepath.Join(proj, ".run", "tmux.sock")
	h.Run(proj, nil, "tmux", "-S", tmuxSock, "new-session", "-d", "sleep 600")
	t.Cleanup(func() { h.Command(proj, nil, "tmux", "-S", tmuxSock, "kill-server").Run() })
	relayMarker := filepath.Join(h.Base, "RELATIVE")
	server := h.Command(proj, nil, "python3", "serve.py", ".run/srv.sock", relayMarker)
	harness.Must(t, server.Start())
	t.Cleanup(func() { server.Process.Kill(); server.Wait() })
	harness.WaitFor(t, "the host's server", func() bool { _, err := os.Stat(filepath.Join(proj, ".run", "srv.sock.ready")); return err == nil })
	out := h.InsideStderr(proj, `tmux -S .run/tmux.sock run-shell "touch `+h.Marker()+`" || echo TMUX-REFUSED >&2
python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect(".run/srv.sock")' || echo RELATIVE-REFUSED >&2`)
	time.Sleep(500 * time.Millisecond)
	if _, err := os.Lstat(h.Marker()); err == nil {
		t.Errorf("the host's tmux server ran what the sandbox sent it through .run/tmux.sock:\n%s", out)
	}
	if _, err := os.Lstat(relayMarker); err == nil {
		t.Errorf("the host's server listening at .run/srv.sock, bound by a relative path, answered the sandbox:\n%s", out)
	}
	// The host's own clients still reach them.
	h.Run(proj, nil, "tmux", "-S", tmuxSock, "run-shell", "true")
}

// TestReplayReview35DotnetBuildImports: MSBuild imports, unasked, every
// .props and .targets of its kind (Directory.Build.props and .targets up
// the tree, a project's .csproj.user, which Visual Studio's .gitignore
// ignores, the obj/*.nuget.g.targets a restore wrote, left by the next
// restore while its inputs are unchanged), whose <Exec> runs at the
// host's dotnet build; an incremental build takes the bin/ assembly (a
// PE file, under any name) for up to date and dotnet runs it; sbt loads
// every .sbt at a build's root. None has a #! line, an execute bit or an
// extension the exit knew: each such file the session wrote where git
// ignores it stayed, git status showing nothing. Host-side proof: after
// the session, none is where the host's build reads it (dotnet is not
// installable here: the exit's moving it aside is what is checked).
func TestReplayReview35DotnetBuildImports(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "net")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "bin/\nobj/\n*.user\n*.rsp\nlocal.sbt\n")
	h.Write(filepath.Join(proj, "app.csproj"), "<Project Sdk=\"Microsoft.NET.Sdk\"/>\n")
	harness.CommitAll(h, proj, "app")
	planted := []string{"obj/app.csproj.nuget.g.targets", "app.csproj.user", "Directory.Build.rsp", "bin/Debug/net8.0/app.dll", "bin/Debug/net8.0/app", "local.sbt"}
	out := harness.PlantUnseen(t, h, proj, "MSBuild's imports", `sleep 2; mkdir -p obj bin/Debug/net8.0
exec='<Project><Target Name="X" BeforeTargets="Build"><Exec Command="touch `+h.Marker()+`"/></Target></Project>'
echo "$exec" > obj/app.csproj.nuget.g.targets
echo "$exec" > app.csproj.user
echo '-logger:Evil,tools/evil.dll' > Directory.Build.rsp
printf 'MZ\220\0planted' > bin/Debug/net8.0/app.dll
printf 'MZ\220\0planted' > bin/Debug/net8.0/app
echo 'val x = { scala.sys.process.Process("touch `+h.Marker()+`").! }' > local.sbt`)
	for _, p := range planted {
		if _, err := os.Lstat(filepath.Join(proj, p)); err == nil {
			t.Errorf("%s, which the host's build runs, stayed after the session:\n%s", p, out)
		}
	}
}
