package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// While a session runs, it plants a worktree entry whose gitdir names a
// repository it made in the project, with a fsmonitor in its config, on a
// branch that is merged: the host's claudebox --list, which looks at each
// worktree's status, ran git there, and so the planted command. Host-side
// proof: no marker; --list does not name the planted checkout.
func TestReplayListPlantedWorktree(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	marker := filepath.Join(h.Home, "PWNED")
	// Planted on the host, as a sandbox left it before .git/worktrees
	// was read-only inside.
	h.Run(proj, nil, "sh", "-c", `set -e
		branch=$(git symbolic-ref --short HEAD)
		mkdir -p evil && git -C evil init -q && git -C evil config core.fsmonitor "touch `+marker+`"
		mkdir -p .git/worktrees/evil && cd .git/worktrees/evil
		echo "$PWD/../../../evil/.git" > gitdir; echo "ref: refs/heads/$branch" > HEAD; echo ../.. > commondir`)
	_, out, exited := harness.StartSession(t, h, proj, `touch started; while ! test -e done; do sleep 0.05; done`)
	if len(exited) > 0 {
		t.Fatalf("the planting session ended early:\n%s", out)
	}
	list := h.Run(proj, nil, "claudebox", "--list")
	harness.TouchDone(t, proj)
	<-exited
	if paths.Exists(marker) {
		t.Errorf("claudebox --list ran the planted fsmonitor:\n%s", list)
	}
	if strings.Contains(list, filepath.Join(proj, "evil")) {
		t.Errorf("--list names the planted checkout:\n%s", list)
	}
}

// TestSandboxWorktreeOutside: git worktree add ../sibling inside fails at
// once, where before it landed in the private tmpfs and was lost at exit,
// leaving an entry in the host's repository. One inside the project, or in
// /run/claudebox/worktrees, is recorded in the session's own
// .git/worktrees, which no host git reads (its git gc followed a link made
// there): no entry is left in the host's, whose git worktree list shows
// the project alone, and whose git status shows the checkout the session
// left in the project as files it wrote.
func TestSandboxWorktreeOutside(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	out := h.Inside(proj, nil, `exec 2>&1
		git worktree add -q ../sibling && echo MADE-OUTSIDE
		git worktree add -q .wt/inside && echo MADE-INSIDE
		git worktree add -q /run/claudebox/worktrees/private && echo MADE-PRIVATE
		git worktree list --porcelain | grep -c '^worktree '`)
	if strings.Contains(out, "MADE-OUTSIDE") || !strings.Contains(out, "Read-only file system") || !strings.Contains(out, "MADE-INSIDE\nMADE-PRIVATE\n3\n") {
		t.Errorf("inside:\n%s", out)
	}
	if entries, _ := os.ReadDir(filepath.Join(proj, ".git", "worktrees")); len(entries) != 0 {
		t.Errorf("the session's worktrees left entries in the host's repository: %v", entries)
	}
	if out := h.Run(proj, nil, "git", "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Errorf("the host's git worktree list:\n%s", out)
	}
	if st := h.Run(proj, nil, "git", "status", "--porcelain"); st != "?? .wt/\n" {
		t.Errorf("the host's git status: %q", st)
	}
}

// Two tasks started at once with -w, each on its own branch, write the
// same file name: each lands in its own worktree beside the project and on
// its own branch, neither sees the other's, and both share the project's
// instance. Claude Code's own -w, given to claudebox, is the same flag. A
// second -w of a branch reuses its worktree; outside git, -w says why not.
func TestSandboxTaskWorktrees(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	script := func(task string) string {
		return `exec 2>&1; test -e note && echo SAW-OTHER; echo ` + task + ` > note && sleep 2 && git add note && git -c user.name=t -c user.email=t@example.com commit -qm ` + task + ` && echo COMMITTED-` + task
	}
	done := make(chan string, 2)
	// Both start at the same instant: each session's SANDBOX.md is its
	// own, so neither launch rewrites a file the other's bwrap binds.
	start := make(chan struct{})
	for _, task := range []string{"task-a", "task-b"} {
		go func() {
			<-start
			c := h.Command(proj, nil, "claudebox", "-w", task, "--shell", "-c", script(task))
			out, err := c.CombinedOutput()
			done <- fmt.Sprintf("%s: %v\n%s", task, err, out)
		}()
	}
	close(start)
	for range 2 {
		out := <-done
		// A worktree made while the other session ran is judged from its
		// own session's start: what git checked out there is no finding.
		if !strings.Contains(out, ": <nil>\n") || !strings.Contains(out, "COMMITTED-") || strings.Contains(out, "SAW-OTHER") || strings.Contains(out, "moved aside") {
			t.Errorf("%s", out)
		}
	}
	for _, task := range []string{"task-a", "task-b"} {
		if got := h.Run(proj, nil, "git", "show", task+":note"); got != task+"\n" {
			t.Errorf("branch %s holds %q", task, got)
		}
		if !paths.Exists(filepath.Join(h.Home, "code", "proj-"+task, ".git")) || !paths.Exists(filepath.Join(h.Home, "code", "proj-"+task, "note")) {
			t.Errorf("no worktree proj-%s beside the project", task)
		}
	}
	if paths.Exists(filepath.Join(proj, "note")) {
		t.Error("a task wrote into the main checkout")
	}
	entries, _ := os.ReadDir(filepath.Join(h.Home, ".claudebox", "projects"))
	if len(entries) != 1 {
		t.Errorf("instances: %d, want the project's one", len(entries))
	}
	// Again: the worktree is reused, with the task's commit.
	if out := h.Inside(proj, nil, "cat note; pwd"); strings.Contains(out, "task-a") {
		t.Errorf("the main checkout holds a task's note: %s", out)
	}
	out := h.Run(proj, nil, "claudebox", "-w", "task-a", "--shell", "-c", "cat note; pwd")
	if !strings.Contains(out, "task-a\n"+filepath.Join(h.Home, "code", "proj-task-a")) {
		t.Errorf("-w task-a again: %s", out)
	}
	outside := filepath.Join(h.Home, "scratch")
	h.Write(filepath.Join(outside, "x"), "")
	c := h.Command(outside, nil, "claudebox", "-w", "t", "--shell", "-c", "true")
	if out, err := c.CombinedOutput(); err == nil || !strings.Contains(string(out), "is not in a git repository") {
		t.Errorf("-w outside git: %v %s", err, out)
	}
}

// --list names the project's worktrees; --gc names (without a terminal)
// and on a terminal removes a worktree whose branch is merged and whose
// tree is clean, and never offers one with uncommitted work.
func TestSandboxWorktreeGC(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	for _, task := range []string{"done", "dirty"} {
		h.Run(proj, nil, "claudebox", "-w", task, "--shell", "-c", "echo "+task+" > "+task+".txt && git add . && git -c user.name=t -c user.email=t@example.com commit -qm "+task)
		h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "merge", "-q", "--no-edit", task)
	}
	h.Write(filepath.Join(h.Home, "code", "proj-dirty", "wip.txt"), "uncommitted\n")
	h.Chown()
	out := h.Run(proj, nil, "claudebox", "--list")
	if !strings.Contains(out, filepath.Join(h.Home, "code", "proj-done")+"  done  merged") || !strings.Contains(out, "proj-dirty  dirty\n") {
		t.Errorf("--list:\n%s", out)
	}
	// A session in one worktree: --list says so of that one alone.
	running := h.Command(proj, nil, "claudebox", "-w", "dirty", "--shell", "-c", "touch started; sleep 30")
	if err := running.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200 && !paths.Exists(filepath.Join(h.Home, "code", "proj-dirty", "started")); i++ {
		time.Sleep(50 * time.Millisecond)
	}
	out = h.Run(proj, nil, "claudebox", "--list")
	running.Process.Signal(syscall.SIGTERM)
	running.Wait()
	if !strings.Contains(out, "proj-dirty  dirty  a session runs here\n") || strings.Count(out, "a session runs here") != 1 {
		t.Errorf("--list during a session in proj-dirty:\n%s", out)
	}
	os.Remove(filepath.Join(h.Home, "code", "proj-dirty", "started"))
	c := h.Command(proj, nil, "claudebox", "--gc")
	res, err := c.CombinedOutput()
	if err != nil || !strings.Contains(string(res), "to remove it: git worktree remove "+filepath.Join(h.Home, "code", "proj-done")) || strings.Contains(string(res), "proj-dirty") {
		t.Errorf("--gc: %v\n%s", err, res)
	}
	tm := h.Tmux(proj)
	tm("new-session", "-d", "-x", "200", "-y", "40", "env -i HOME="+h.Home+" PATH="+h.Bin+":/usr/local/bin:/usr/bin:/bin TERM=xterm-256color bash --norc --noprofile -i")
	tm("send-keys", "claudebox --gc", "Enter")
	on := func(s string) func(string) bool {
		return func(screen string) bool { return strings.Contains(screen, s) }
	}
	harness.WaitScreen(t, tm, on("Remove worktree"), "the question")
	tm("send-keys", "y", "Enter")
	harness.WaitScreen(t, tm, on("removed worktree"), "the removal")
	if paths.Exists(filepath.Join(h.Home, "code", "proj-done")) || !paths.Exists(filepath.Join(h.Home, "code", "proj-dirty", "wip.txt")) {
		t.Errorf("after --gc's yes: %s", tm("capture-pane", "-p"))
	}
}

// Claude Code's own -w NAME, given to claudebox, with the real claude: its
// Bash tool runs in the task's worktree beside the project, commits on the
// task's branch, and the conversation is the project's.
func TestSandboxClaudeWorktreeFlag(t *testing.T) {
	h := harness.NewHost(t)
	harness.RequireClaude(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	api := harness.StartScriptedAPI(t, "FAKE-REPLY-worktree",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "pwd && echo from-claude > task.txt && git add task.txt && git -c user.name=c -c user.email=c@example.com commit -qm task", "description": "commit"}},
	)
	out := h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "-w", "feat", "--allowedTools", "Bash", "-p", "commit a file")
	if !strings.Contains(out, "FAKE-REPLY-worktree") {
		t.Fatalf("claude -p printed %q", out)
	}
	wt := filepath.Join(h.Home, "code", "proj-feat")
	if r := api.ToolResults(); !strings.Contains(fmt.Sprint(r), wt) {
		t.Errorf("Bash ran elsewhere than %s: %v", wt, r)
	}
	if got := h.Run(proj, nil, "git", "show", "feat:task.txt"); got != "from-claude\n" {
		t.Errorf("branch feat holds %q", got)
	}
	if paths.Exists(filepath.Join(proj, "task.txt")) {
		t.Error("the task wrote into the main checkout")
	}
	entries, _ := os.ReadDir(filepath.Join(h.Home, ".claudebox", "projects"))
	if len(entries) != 1 {
		t.Errorf("instances: %d, want the project's one", len(entries))
	}
}

// TestSandboxWorktreeMadeDuringSession: -w makes a worktree while another
// session of the project runs, so git writes the worktree (its .git file,
// the branch's files) after the project's sessions began. Whichever
// session leaves last, the exit audit judges that worktree from its own
// session's start: nothing git checked out there is moved aside, and the
// worktree still works.
func TestSandboxWorktreeMadeDuringSession(t *testing.T) {
	for _, worktreeLast := range []bool{false, true} {
		t.Run(fmt.Sprintf("worktree-last=%v", worktreeLast), func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "proj")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".envrc"), "export A=1\n")
			h.Run(proj, nil, "git", "add", ".envrc")
			h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
			// Each sandbox sees its own checkout: each waits there.
			w := filepath.Join(h.Home, "code", "proj-task")
			wait := `touch started; until test -e release; do sleep 0.02; done`
			_, mainOut, mainExited := harness.StartSession(t, h, proj, wait)
			script := "echo work > note"
			if worktreeLast {
				script += "; " + wait
			}
			task := h.Command(proj, nil, "claudebox", "-w", "task", "--shell", "-c", script)
			taskOut := &strings.Builder{}
			task.Stdout, task.Stderr = taskOut, taskOut
			if err := task.Start(); err != nil {
				t.Fatal(err)
			}
			taskExited := make(chan error, 1)
			go func() { taskExited <- task.Wait() }()
			first, firstOut, second, secondOut := taskExited, taskOut, mainExited, mainOut
			if worktreeLast {
				first, firstOut, second, secondOut = mainExited, mainOut, taskExited, taskOut
				harness.WaitFor(t, "the task's session", func() bool { return paths.Exists(filepath.Join(w, "started")) || len(taskExited) > 0 })
			} else if err := <-first; err != nil {
				t.Fatalf("%v\n%s", err, firstOut)
			}
			h.Write(filepath.Join(proj, "release"), "")
			if worktreeLast {
				if err := <-first; err != nil {
					t.Fatalf("%v\n%s", err, firstOut)
				}
				h.Write(filepath.Join(w, "release"), "")
			}
			if err := <-second; err != nil {
				t.Fatalf("%v\n%s", err, secondOut)
			}
			all := mainOut.String() + taskOut.String()
			if strings.Contains(all, "moved aside") || strings.Contains(all, "the host replaced") {
				t.Errorf("the exit audit took what git checked out for the sandbox's:\n%s", all)
			}
			for _, name := range []string{".git", ".envrc", "note"} {
				if !paths.Exists(filepath.Join(w, name)) {
					t.Errorf("%s is gone from the worktree\n%s", name, all)
				}
			}
			if out := h.Run(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "cat note"); !strings.Contains(out, "work") {
				t.Errorf("-w task again: %s", out)
			}
		})
	}
}

// TestReplayWorktreeMadeDuringSessionPlanted: what -w made in the
// repository's git directory while a session ran is the host's only as
// made. The running session's sandbox rewrites the new worktree's
// commondir in place and plants its config.worktree (now refused: the
// repository's .git/worktrees is the session's own inside, where what the
// host makes during the session is not seen);
// host-side proof: neither is on the host as the sandbox wrote it,
// whichever session leaves last.
func TestReplayWorktreeMadeDuringSessionPlanted(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	admin := filepath.Join(proj, ".git", "worktrees", "proj-task")
	_, mainOut, mainExited := harness.StartSession(t, h, proj, `touch started; until test -e release; do sleep 0.02; done
		echo ../.. >> .git/worktrees/proj-task/commondir
		printf '[core]\n\tfsmonitor = touch /tmp/pwned\n' 2>/dev/null > .git/worktrees/proj-task/config.worktree; true`)
	out := h.Run(proj, nil, "claudebox", "-w", "task", "--shell", "-c", "true")
	h.Write(filepath.Join(proj, "release"), "")
	if err := <-mainExited; err != nil {
		t.Fatalf("%v\n%s", err, mainOut)
	}
	all := out + mainOut.String()
	if b, err := os.ReadFile(filepath.Join(admin, "commondir")); err == nil && strings.Count(string(b), "\n") > 1 {
		t.Errorf("commondir, rewritten, is on the host: %q\n%s", b, all)
	}
	// Its stand-in, while the project's sessions run, or moved aside.
	if b, err := os.ReadFile(filepath.Join(admin, "config.worktree")); err == nil {
		t.Errorf("config.worktree on the host: %q\n%s", b, all)
	}
}
