package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
)

// The tests in this file launch the real sandbox. CI runs as root, and root
// keeps every capability inside bwrap, which would hide permission and
// escape bugs, so as root they run claudebox as an unprivileged user.

func TestSandboxIsolation(t *testing.T) {
	h := harness.NewHost(t)
	h.Write(filepath.Join(h.Home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	h.Write(filepath.Join(h.Home, "notes.txt"), "private\n")
	h.Write(filepath.Join(h.Home, ".claude", "settings.json"), "{}\n")
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "main.go"), "package main\n")

	extra := []string{"HOST_SECRET=do-not-pass", "ANTHROPIC_API_KEY=sk-test", "MY_TOOL=1"}
	out := h.Run(proj, extra, "claudebox", "--env", "MY_TOOL", "--shell", "-c", `
		check() { if eval "$2"; then echo "ok $1"; else echo "FAIL $1"; fi; }
		check ssh-hidden '! test -e ~/.ssh'
		check notes-hidden '! test -e ~/notes.txt'
		check claude-visible 'test -f ~/.claude/settings.json'
		check project-visible 'test -f main.go'
		check project-writable 'echo x > new.txt'
		check claude-private 'echo x > ~/.claude/written-inside'
		check settings-private 'echo "{\"x\":1}" > ~/.claude/settings.json'
		check usr-readonly '! touch /usr/x 2>/dev/null'
		check etc-readonly '! touch /etc/x 2>/dev/null'
		check home-private 'touch ~/scratch'
		check tmp-private 'touch /tmp/claudebox-e2e-marker'
		check instance-only 'test "$(cat ~/.claude/projects/project-root)" = "$PWD"'
		check project-root-readonly '! sh -c "echo /elsewhere > ~/.claude/projects/project-root" 2>/dev/null'
		check env-built '! env | grep -q HOST_SECRET'
		check env-passed 'test "$MY_TOOL" = 1'
		check key-phantom 'test -n "$ANTHROPIC_API_KEY" && test "$ANTHROPIC_API_KEY" != sk-test'
		check pid-ns 'test "$(ls /proc | grep -c "^[0-9]")" -lt 10'
	`)
	if strings.Contains(out, "FAIL") || !strings.Contains(out, "ok pid-ns") {
		t.Fatalf("inside the sandbox:\n%s", out)
	}
	// What was written to the private home, /tmp and the private copy of
	// settings.json stayed inside; what was written to the project reached
	// the host.
	for path, want := range map[string]bool{
		filepath.Join(h.Home, "scratch"):                   false,
		"/tmp/claudebox-e2e-marker":                        false,
		filepath.Join(proj, "new.txt"):                     true,
		filepath.Join(h.Home, ".claude", "written-inside"): false,
	} {
		if paths.Exists(path) != want {
			t.Errorf("%s exists on the host: %v, want %v", path, !want, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(h.Home, ".claude", "settings.json")); string(b) != "{}\n" {
		t.Errorf("the host's settings.json = %q, want it unchanged", b)
	}
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	if b, _ := os.ReadFile(filepath.Join(inst, instance.RootFile)); string(b) != proj+"\n" {
		t.Errorf("project-root = %q, want %q", b, proj+"\n")
	}
}

// TestSandboxHistoryPerProject runs the real Claude Code in three places: a
// repository, a linked worktree of it, and another project.
func TestSandboxHistoryPerProject(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-7f3a")
	env := api.Env("sk-ant-test-key")

	repo := filepath.Join(h.Home, "code", "repo")
	h.GitRepo(repo)
	wt := filepath.Join(h.Home, "code", "repo-feature")
	h.Run(repo, nil, "git", "worktree", "add", "-q", wt)
	other := filepath.Join(h.Home, "code", "other")
	h.Write(filepath.Join(other, "x"), "x\n")

	out := h.Run(repo, env, "claudebox", "-p", "hello")
	if !strings.Contains(out, "FAKE-REPLY-7f3a") {
		t.Fatalf("claudebox -p hello printed %q, want the fake reply", out)
	}
	stateDir := filepath.Join(h.Home, ".claudebox")
	repoInst := instance.Dir(stateDir, repo)
	transcripts, _ := filepath.Glob(filepath.Join(repoInst, "*", "*.jsonl"))
	if len(transcripts) == 0 {
		t.Fatalf("no transcript under %s", repoInst)
	}
	if real, _ := filepath.Glob(filepath.Join(h.Home, ".claude", "projects", "*")); len(real) != 0 {
		t.Fatalf("the real ~/.claude/projects holds %v, want nothing", real)
	}
	slug := filepath.Base(filepath.Dir(transcripts[0]))

	// The worktree shares the repository's instance; the other project
	// sees none of its sessions.
	if got := h.Inside(wt, nil, "ls ~/.claude/projects"); !strings.Contains(got, slug) {
		t.Errorf("worktree sees %q in ~/.claude/projects, want the main checkout's %s", got, slug)
	}
	if got := h.Inside(wt, nil, "git status --short && git log --oneline | wc -l"); strings.TrimSpace(got) != "1" {
		t.Errorf("git in the worktree printed %q, want one commit and a clean tree", got)
	}
	if got := h.Inside(other, nil, "ls -A ~/.claude/projects"); strings.Contains(got, slug) {
		t.Errorf("another project sees %q", got)
	}
	out = h.Run(other, env, "claudebox", "-p", "hello")
	if !strings.Contains(out, "FAKE-REPLY-7f3a") {
		t.Fatalf("claudebox -p hello in another project printed %q", out)
	}
	if _, err := os.Stat(filepath.Join(h.Home, ".claude", "SANDBOX.md")); err == nil {
		t.Error("a launch left SANDBOX.md in the real ~/.claude")
	}
	// bwrap leaves a missing mount point behind as an empty read-only
	// file, which would break the host's claude: there must be none.
	filepath.Walk(filepath.Join(h.Home, ".claude"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
			t.Errorf("read-only file left in the real ~/.claude: %s (%v)", p, fi.Mode())
		}
		return nil
	})
}

// TestSandboxInteractive drives an interactive session under tmux and checks
// that its prompt lands in the sandbox-side history.
func TestSandboxInteractive(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-tmux")
	const key = "sk-ant-test-interactive-key-0123456789"
	proj := filepath.Join(h.Home, "code", "tui")
	h.Write(filepath.Join(proj, "x"), "x\n")
	h.Onboarded(key, proj)
	hostJSON, _ := os.ReadFile(filepath.Join(h.Home, ".claude.json"))
	tmux := h.Tmux(proj)
	launch := "env " + strings.Join(api.Env(key), " ") + " TERM=xterm-256color claudebox"
	tmux("new-session", "-d", "-x", "120", "-y", "40", launch)

	screen := harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, ">") || strings.Contains(s, "❯") }, "the prompt")
	if strings.Contains(screen, "trust") || strings.Contains(screen, "Choose the text style") || strings.Contains(screen, "API key") {
		t.Fatalf("the sandbox asked again:\n%s", screen)
	}
	harness.Ask(t, tmux, "hello from tmux", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-tmux") }, "the fake reply")

	history := filepath.Join(instance.Dir(filepath.Join(h.Home, ".claudebox"), proj), "history.jsonl")
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(history)
		if bytes.Contains(b, []byte("hello from tmux")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the instance's history.jsonl = %q, want the prompt", b)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if b, _ := os.ReadFile(filepath.Join(h.Home, ".claude", "history.jsonl")); len(b) != 0 {
		t.Errorf("the real ~/.claude/history.jsonl got %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(h.Home, ".claude.json")); !bytes.Equal(b, hostJSON) {
		t.Errorf("the host's ~/.claude.json changed")
	}
}

// TestSandboxMDReachesClaude is decisive for SANDBOX.md: the request the
// real Claude Code sends must carry this project's sandbox facts and the
// user's own CLAUDE.md, whatever that CLAUDE.md says, and the user's file
// must be left byte for byte as it was.
func TestSandboxMDReachesClaude(t *testing.T) {
	for name, claudeMD := range map[string]string{
		"imports":     "USER-MARKER-5e1 keep answers short.\n@SANDBOX.md\n",
		"no-import":   "USER-MARKER-5e1 keep answers short.\n",
		"no-claudemd": "",
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			harness.RequireClaude(t)
			api := harness.StartFakeAPI(t, "FAKE-REPLY-md")
			env := api.Env("sk-ant-test-key")
			userMD := filepath.Join(h.Home, ".claude", "CLAUDE.md")
			if claudeMD != "" {
				h.Write(userMD, claudeMD)
			}
			projA := filepath.Join(h.Home, "code", "alpha")
			projB := filepath.Join(h.Home, "code", "beta")
			h.Write(filepath.Join(projA, "x"), "x\n")
			h.Write(filepath.Join(projB, "x"), "x\n")

			// Two projects at once: each must see its own facts.
			done := make(chan string, 2)
			for _, p := range []string{projA, projB} {
				go func() {
					var out bytes.Buffer
					c := h.Command(p, env, "claudebox", "-p", "hello")
					c.Stdout, c.Stderr = &out, &out
					if err := c.Run(); err != nil {
						done <- fmt.Sprintf("%s: %v: %s", p, err, out.String())
						return
					}
					done <- ""
				}()
			}
			for range 2 {
				if msg := <-done; msg != "" {
					t.Fatal(msg)
				}
			}
			bodies := api.Bodies()
			if len(bodies) < 2 {
				t.Fatalf("the fake API got %d requests, want 2", len(bodies))
			}
			for _, p := range []string{projA, projB} {
				fact := "- Project: " + p + " (read-write"
				n := 0
				for _, b := range bodies {
					if strings.Contains(b, fact) {
						n++
						if strings.Contains(b, "claudebox --env NAME") == false {
							t.Errorf("a request lacks the rest of SANDBOX.md")
						}
					}
				}
				if n != 1 {
					t.Errorf("%d requests carry %q, want exactly 1", n, fact)
				}
			}
			if claudeMD != "" && !api.Received("USER-MARKER-5e1") {
				t.Error("the user's CLAUDE.md did not reach Claude")
			}
			if claudeMD != "" {
				if b, _ := os.ReadFile(userMD); string(b) != claudeMD {
					t.Errorf("the user's CLAUDE.md changed: %q", b)
				}
			} else if paths.Exists(userMD) {
				t.Error("a launch created ~/.claude/CLAUDE.md")
			}
			if paths.Exists(filepath.Join(h.Home, ".claude", "SANDBOX.md")) {
				t.Error("a launch left SANDBOX.md in the real ~/.claude")
			}
		})
	}
}

// TestSandboxNativeInstallerClaude: the native installer's
// ~/.local/bin/claude -> ~/.local/share/claude/versions/X lives in the
// hidden $HOME, and must still run inside.
func TestSandboxNativeInstallerClaude(t *testing.T) {
	h := harness.NewHost(t)
	version := filepath.Join(h.Home, ".local", "share", "claude", "versions", "9.9.9")
	h.Write(version, "#!/bin/sh\necho native-claude-ran \"$@\"\n")
	os.Chmod(version, 0o755)
	link := filepath.Join(h.Home, ".local", "bin", "claude")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink("../share/claude/versions/9.9.9", link); err != nil {
		t.Fatal(err)
	}
	h.Chown()
	proj := filepath.Join(h.Home, "p")
	h.Write(filepath.Join(proj, "x"), "x\n")
	path := "PATH=" + filepath.Dir(link) + ":" + h.Bin + ":/usr/bin:/bin"
	out := h.Run(proj, []string{path, "ANTHROPIC_API_KEY=sk-ant-test"}, "claudebox", "-p", "hi")
	if !strings.Contains(out, "native-claude-ran --append-system-prompt-file") || !strings.HasSuffix(strings.TrimSpace(out), "-p hi") {
		t.Fatalf("claudebox printed %q", out)
	}
	if out := h.Run(proj, []string{path}, "claudebox", "--shell", "-c", "echo x > ~/.local/share/claude/versions/9.9.9 2>/dev/null || echo readonly"); !strings.Contains(out, "readonly") {
		t.Errorf("the sandbox could overwrite the host's claude binary: %q", out)
	}
}

// TestSandboxExitStatus: claudebox execs bwrap, so the exit status is the
// program's.
func TestSandboxExitStatus(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "p")
	h.Write(filepath.Join(proj, "x"), "x\n")
	err := h.Command(proj, nil, "claudebox", "--shell", "-c", "exit 7").Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("exit status: %v, want 7", err)
	}
}

// TestSandboxGCSkipsRunningSession: a running session holds its instance,
// so a concurrent --gc in another process keeps it even though its project
// was deleted mid-session; once the session ends, --gc removes it.
func TestSandboxGCSkipsRunningSession(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "doomed")
	h.Write(filepath.Join(proj, "README"), "doomed\n")
	inst := instance.Dir(filepath.Join(h.Home, ".claudebox"), proj)
	// It runs until the test is done with it: a session of a fixed time
	// could end, on a loaded machine, before the --gc beside it.
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", "touch started; until [ -e done ]; do sleep 0.05; done")
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Process.Kill() })
	harness.WaitFor(t, "the session to start", func() bool { return paths.Exists(filepath.Join(proj, "started")) })
	if !instance.InUse(inst) {
		t.Fatal("the running session does not hold its instance's lock")
	}
	// Moved away, not deleted: deleting it would remove guarded paths,
	// which ends the session.
	if err := os.Rename(proj, proj+"-elsewhere"); err != nil {
		t.Fatal(err)
	}
	out, err := h.Command(h.Home, nil, "claudebox", "--gc").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "kept "+inst+": root "+proj+" is gone, but a session is running in it") {
		t.Fatalf("--gc during the session: %v\n%s", err, out)
	}
	if !paths.Exists(filepath.Join(inst, instance.RootFile)) {
		t.Fatal("the running session's instance was removed")
	}
	harness.TouchDone(t, proj+"-elsewhere")
	session.Wait()
	out, err = h.Command(h.Home, nil, "claudebox", "--gc").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "removed "+inst+" ") || paths.Exists(inst) {
		t.Fatalf("--gc after the session: %v\n%s", err, out)
	}
}

// TestSandboxCheck runs --check against the real bwrap and claude: the
// trial sandbox passes and reports claude's version inside. Then, as root,
// it switches user namespaces off for a moment, so that real bwrap fails
// the way a locked-down kernel makes it fail, and --check must say so.
func TestSandboxCheck(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "chk")
	h.Write(filepath.Join(proj, "README"), "chk\n")
	key := []string{"ANTHROPIC_API_KEY=sk-test"}
	out := h.Run(proj, key, "claudebox", "--check")
	for _, want := range []string{"✓ trial sandbox: a sandbox built from this plan ran true; reached the session's proxy through the relay (the filtered network)", "(Claude Code) inside the sandbox", "✓ user namespaces", "✓ credentials: ANTHROPIC_API_KEY is set"} {
		if !strings.Contains(out, want) {
			t.Errorf("--check lacks %q:\n%s", want, out)
		}
	}
	// With an OAuth login and the host's network: where the login is, when
	// it expires, and the proxy at its loopback address.
	creds := filepath.Join(h.Home, ".claude", ".credentials.json")
	h.Write(creds, harness.LoginJSON("sk-ant-oat01-check", "sk-ant-ort01-check", time.Now().Add(3*time.Hour+30*time.Minute)))
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "network = \"host\"\n")
	out = h.Run(proj, nil, "claudebox", "--check")
	for _, want := range []string{"reached the session's proxy at its loopback address (--network=host)", "✓ credentials: OAuth login in " + creds + ", access token expires ", "(in 3h30m0s)"} {
		if !strings.Contains(out, want) {
			t.Errorf("--check with an OAuth login under the host's network lacks %q:\n%s", want, out)
		}
	}
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "")

	const knob = "/proc/sys/user/max_user_namespaces"
	old, err := os.ReadFile(knob)
	if h.UID < 0 || err != nil {
		t.Skip("SKIPPING the locked-down half: needs root to flip " + knob)
	}
	if err := os.WriteFile(knob, []byte("0"), 0o644); err != nil {
		t.Skipf("SKIPPING the locked-down half: %v", err)
	}
	t.Cleanup(func() { os.WriteFile(knob, old, 0o644) })
	cmd := h.Command(proj, key, "claudebox", "--check")
	b, err := cmd.Output()
	os.WriteFile(knob, old, 0o644)
	if err == nil {
		t.Fatalf("--check passed with user namespaces off:\n%s", b)
	}
	for _, want := range []string{"✗ user namespaces: user.max_user_namespaces = 0", "fix: sudo sysctl -w user.max_user_namespaces=15000", "✗ trial sandbox: bwrap: "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("--check lacks %q:\n%s", want, b)
		}
	}
}

// TestSandboxEnvAuditPrompt answers the approval question through a pty
// (tmux): yes passes the project's variable and its .claudebox.toml's mount
// into the real sandbox and is remembered; after the file changes, no stops
// the launch.
func TestSandboxEnvAuditPrompt(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "audit")
	h.Write(filepath.Join(proj, ".claudebox.env"), "TOOL=from-file\n")
	h.Write(filepath.Join(proj, ".claudebox.toml"), "ro-bind = [\"~/datasets:/data\"]\n")
	h.Write(filepath.Join(h.Home, "datasets", "readme"), "DATASET-VISIBLE\n")
	tmux := h.Tmux(proj)
	const launch = `claudebox --shell -c 'echo "inside: TOOL=$TOOL $(cat /data/readme)"; sleep 30'`

	tmux("new-session", "-d", "-s", "one", "-x", "120", "-y", "20", launch)
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "one"), func(s string) bool { return strings.Contains(s, "Allow them in this project's sandbox? [y/N]") }, "the audit's question")
	screen := tmux("capture-pane", "-p", "-J", "-t", "one") // -J: joined, as the lines were written
	for _, want := range []string{
		"TOOL (from " + filepath.Join(proj, ".claudebox.env") + ")",
		"--ro-bind " + filepath.Join(h.Home, "datasets") + ":/data (from " + filepath.Join(proj, ".claudebox.toml") + ")",
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the question does not name %q:\n%s", want, screen)
		}
	}
	tmux("send-keys", "-t", "one", "y", "Enter")
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "one"), func(s string) bool { return strings.Contains(s, "inside: TOOL=from-file DATASET-VISIBLE") }, "the variable and the mount inside the sandbox")

	// Approved: the next launch does not ask.
	tmux("new-session", "-d", "-s", "two", "-x", "120", "-y", "20", launch)
	screen = harness.WaitScreen(t, harness.TmuxTarget(tmux, "two"), func(s string) bool { return strings.Contains(s, "inside: TOOL=") }, "a launch without the question")
	if strings.Contains(screen, "[y/N]") {
		t.Errorf("asked again although approved:\n%s", screen)
	}

	// Changed: asked again; no stops it.
	h.Write(filepath.Join(proj, ".claudebox.toml"), "bind = [\"~/datasets:/data\"]\n")
	tmux("new-session", "-d", "-s", "three", "-x", "120", "-y", "20", launch+"; echo EXIT=$?; sleep 30")
	harness.WaitScreen(t, harness.TmuxTarget(tmux, "three"), func(s string) bool { return strings.Contains(s, "[y/N]") }, "the question after a change")
	tmux("send-keys", "-t", "three", "n", "Enter")
	screen = harness.WaitScreen(t, harness.TmuxTarget(tmux, "three"), func(s string) bool { return strings.Contains(s, "not approved") }, "the refusal")
	if strings.Contains(screen, "inside:") {
		t.Errorf("the sandbox started after no:\n%s", screen)
	}
}

// TestSandboxWithSSH: with --with-ssh, ssh-add inside lists the key of a
// test agent on the host, while ~/.ssh and the key file stay invisible.
func TestSandboxWithSSH(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "ssh")
	h.Write(filepath.Join(proj, "README"), "ssh\n")
	h.Write(filepath.Join(h.Home, ".ssh", "known_hosts"), "example.com ssh-ed25519 AAAA\n")
	env := harness.StartSSHAgent(t, h)

	out := h.Run(proj, env, "claudebox", "--with-ssh", "--shell", "-c", `
		ssh-add -l
		test -e ~/.ssh/id_ed25519 || echo KEY-HIDDEN
		test -f ~/.ssh/known_hosts && echo HOSTS-VISIBLE
		echo "sock=$SSH_AUTH_SOCK"
	`)
	for _, want := range []string{"alice@example.com (ED25519)", "KEY-HIDDEN", "HOSTS-VISIBLE", "sock=/run/claudebox/ssh-agent.sock"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	// Without the flag the agent is out of reach.
	out = h.Run(proj, env, "claudebox", "--shell", "-c", `ssh-add -l >/dev/null 2>&1 && echo AGENT-REACHED || echo NO-AGENT`)
	if strings.TrimSpace(out) != "NO-AGENT" {
		t.Errorf("without --with-ssh: %s", out)
	}
}

// TestSandboxMoveThenContinue: after a repository moves, --move carries its
// history so that the real claude --continue, in the new place, resumes the
// conversation: the request it sends carries the old prompt.
func TestSandboxMoveThenContinue(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-move")
	env := api.Env("sk-ant-test-key")
	old := filepath.Join(h.Home, "code", "before")
	h.GitRepo(old)
	h.Run(old, env, "claudebox", "-p", "remember the word PELICAN-8841")

	moved := filepath.Join(h.Home, "code", "after")
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	out, err := h.Command(moved, nil, "claudebox", "--move", old).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "moved 1 sessions of "+old+" to "+moved) {
		t.Fatalf("--move: %v\n%s", err, out)
	}
	before := len(api.Bodies())
	h.Run(moved, env, "claudebox", "-p", "--continue", "what was the word?")
	bodies := api.Bodies()[before:]
	if len(bodies) == 0 || !strings.Contains(strings.Join(bodies, "\n"), "PELICAN-8841") {
		t.Fatalf("claude --continue in the moved repository did not resume the old conversation (%d requests)", len(bodies))
	}
}

// TestSandboxClaudeSavesPrivateCopy: the real claude saving a protected
// project file (claude mcp add --scope project writes .mcp.json by rename,
// which a mount refuses, then in place) succeeds inside, into the session's
// private copy, and the host's file is unchanged.
func TestSandboxClaudeSavesPrivateCopy(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "mcp")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".mcp.json"), `{"mcpServers":{}}`+"\n")
	out := h.Inside(proj, []string{"ANTHROPIC_API_KEY=sk-ant-test-key"},
		`claude mcp add --scope project evil -- /tmp/evil && grep -q evil .mcp.json && echo SAVED-INSIDE`)
	if !strings.Contains(out, "SAVED-INSIDE") {
		t.Fatalf("claude could not save .mcp.json inside:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, ".mcp.json")); string(b) != `{"mcpServers":{}}`+"\n" {
		t.Errorf("the host's .mcp.json changed: %s", b)
	}
}

// TestSandboxUserBinds: extra mounts from config.toml and flags in the real
// sandbox. A read-write bind reaches the host, new files included, but for
// what the host runs (bin/, .git), which stays read-only; the whole home
// bound read-only shows the notes, not the keys; nothing is created on the
// host for a mount point.
func TestSandboxUserBinds(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	other := filepath.Join(h.Home, "code", "lib")
	h.GitRepo(other)
	h.Write(filepath.Join(other, "bin", "tool"), "#!/bin/sh\necho host tool\n")
	h.Write(filepath.Join(h.Home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	h.Write(filepath.Join(h.Home, ".config", "gh", "hosts.yml"), "oauth_token: gho_secret\n")
	h.Write(filepath.Join(h.Home, "notes", "todo.txt"), "buy milk\n")
	h.Write(filepath.Join(h.Home, ".config", "claudebox", "config.toml"), "bind = [\"~/code/lib:/opt/lib\"]\n")
	homeBefore := harness.Snapshot(h.Home)

	out := h.Run(proj, nil, "claudebox", "--ro-bind", "~/notes", "--shell", "-c", `
		cat ~/notes/todo.txt
		test -e ~/.ssh/id_ed25519 || echo KEY-HIDDEN
		test -e ~/.config/gh/hosts.yml || echo GH-HIDDEN
		echo edit >> ~/notes/todo.txt 2>/dev/null || echo NOTES-READ-ONLY
		echo new > /opt/lib/NEW && echo LIB-WRITTEN
		echo evil > /opt/lib/bin/tool 2>/dev/null || echo BIN-READ-ONLY
		mv /opt/lib/bin /opt/lib/bin2 2>/dev/null || echo BIN-STAYS
		echo evil > /opt/lib/.git/hooks/pre-commit 2>/dev/null || echo HOOKS-READ-ONLY
		echo x > ~/code/app/inside && echo PROJECT-WRITTEN
	`)
	for _, want := range []string{"buy milk", "KEY-HIDDEN", "GH-HIDDEN", "NOTES-READ-ONLY", "LIB-WRITTEN", "BIN-READ-ONLY", "BIN-STAYS", "HOOKS-READ-ONLY", "PROJECT-WRITTEN"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside: missing %q in:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(other, "NEW")); err != nil || string(b) != "new\n" {
		t.Errorf("a new file in the read-write bind did not reach the host: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "bin", "tool")); string(b) != "#!/bin/sh\necho host tool\n" {
		t.Errorf("bin/tool changed on the host: %q", b)
	}
	if paths.Exists(filepath.Join(other, ".git", "hooks", "pre-commit")) {
		t.Error("a hook was written into the bound repository")
	}
	// The host's home changed only where the sandbox may write: claudebox's
	// state, the project and the read-write bind.
	harness.NoPlaceholders(t, proj)
	os.Remove(filepath.Join(other, "NEW"))
	os.Remove(filepath.Join(proj, "inside"))
	os.RemoveAll(filepath.Join(h.Home, ".claudebox"))
	// The launch makes each guarded repository's folder of linked
	// worktrees where missing, empty and kept, as git's first git
	// worktree add would (read-only inside: the host's git gc follows a
	// link made there); os.Remove takes only an empty one.
	for _, repo := range []string{proj, other} {
		if err := os.Remove(filepath.Join(repo, ".git", "worktrees")); err != nil && !os.IsNotExist(err) {
			t.Errorf("%s/.git/worktrees: %v", repo, err)
		}
	}
	if after := harness.Snapshot(h.Home); after != homeBefore {
		t.Errorf("the host's home changed:\nbefore:\n%s\nafter:\n%s", homeBefore, after)
	}
}

// TestSandboxClaudeCtrlC: the real Claude Code TUI on the sandbox's own
// terminal under tmux: a prompt, the fake API's reply, then Ctrl-C twice
// ends it and the user's shell is back as it was.
func TestSandboxClaudeCtrlC(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	api := harness.StartFakeAPI(t, "FAKE-REPLY-ctrlc")
	const key = "sk-ant-test-ctrlc-key-0123456789"
	proj := filepath.Join(h.Home, "code", "ctrlc")
	h.Write(filepath.Join(proj, "README"), "c\n")
	h.Onboarded(key, proj)
	tmux := h.Tmux(proj)
	tmux("new-session", "-d", "-x", "120", "-y", "40", "bash --norc --noprofile")
	flags := func() string {
		return strings.TrimSpace(tmux("display-message", "-p", "#{mouse_any_flag} #{alternate_on} #{keypad_cursor_flag} #{cursor_flag}"))
	}
	before := flags()
	tmux("send-keys", "env "+strings.Join(api.Env(key), " ")+" TERM=xterm-256color claudebox; echo EX''IT-$?", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "❯") }, "the prompt")
	harness.Ask(t, tmux, "hello", func(s string) bool { return strings.Contains(s, "FAKE-REPLY-ctrlc") }, "the fake reply")
	harness.CtrlCTwice(t, tmux, func(s string) bool { return strings.Contains(s, "EXIT-0") }, "Claude to end on Ctrl-C")
	tmux("send-keys", "echo AL''IVE", "Enter")
	harness.WaitScreen(t, tmux, func(s string) bool { return strings.Contains(s, "ALIVE") }, "the shell after Claude")
	if after := flags(); after != before {
		t.Errorf("the pane's modes = %s after Claude, want %s as before", after, before)
	}
}
