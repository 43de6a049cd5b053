package replay

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// The eval runs' replay suite: what a run's sandbox can leave in its
// workspace and its ~/.claude so that the host, copying the run's
// artifacts and session files out into DIR/<run-id>/, reads or writes
// where it should not, hangs, or fills the disk.

// TestReplayEvalHostileWorkspace: the run's Bash plants, in the workspace
// and among Claude Code's session files, symlinks to a host secret (by its
// host path, which the sandbox cannot read and the host can) and to the
// host's root, a FIFO, a 100 GiB sparse file, a file whose name carries
// terminal escapes and a newline, and a directory it made unreadable
// (chmod 000) with a file in it.
// Host-side proof: the run ends; its folder holds no symlink, FIFO or
// copy of the secret, no file over the copy-out limit; the escaped name
// appears in changes.patch only quoted; what was not copied is named in
// metrics.json; and nothing of the run is left in the temporary directory.
func TestReplayEvalHostileWorkspace(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	secret := filepath.Join(h.Home, ".ssh", "id_ed25519")
	h.Write(secret, "HOST-SECRET-KEY-41d9\n")
	tmp := filepath.Join(h.Base, "tmp")
	h.Write(filepath.Join(tmp, ".keep"), "")
	plant := strings.Join([]string{
		"ln -s " + secret + " leak.txt",
		"ln -s / rootlink",
		"mkfifo fifo",
		"truncate -s 100G huge.bin",
		`printf 'named\n' > "$(printf 'evil\033[2J\nname')"`,
		"mkdir locked && echo inside > locked/f && chmod 000 locked",
		"echo ok > plain.txt",
		"d=$(ls -d ~/.claude/projects/*/ | head -1) && ln -s " + secret + " \"$d/leak.jsonl\" && mkfifo \"$d/fifo.jsonl\" && ln -s / \"$d/rootdir\"",
	}, " && ")
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": plant, "description": "plant"}},
	)
	out := filepath.Join(h.Base, "evals")
	stdout := h.Run(proj, append(api.Env("sk-ant-test-key"), "TMPDIR="+tmp), "claudebox", "--eval", "--out", out, "--prompt", "plant", "--", "--allowedTools", "Bash")
	if r := api.ToolResults()["toolu_fake_0"]; strings.HasPrefix(r, "ERROR") {
		t.Fatalf("the planting failed: %s", r)
	}
	if strings.ContainsAny(stdout, "\x1b") {
		t.Errorf("stdout carries a raw escape: %q", stdout)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	run := runs[0]
	filepath.WalkDir(run, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		fi, _ := d.Info()
		switch {
		case d.Type()&fs.ModeSymlink != 0, d.Type()&fs.ModeNamedPipe != 0:
			t.Errorf("the run's folder holds %s (%v)", p, d.Type())
		case d.Type().IsRegular() && fi.Size() > 64<<20:
			t.Errorf("the run's folder holds %s of %d bytes", p, fi.Size())
		case d.Type().IsRegular():
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("HOST-SECRET-KEY")) {
				t.Errorf("the run's folder holds the host's secret, in %s", p)
			}
		}
		return nil
	})
	if b, _ := os.ReadFile(filepath.Join(run, "artifacts", "plain.txt")); string(b) != "ok\n" {
		t.Errorf("artifacts/plain.txt = %q", b)
	}
	b, _ := os.ReadFile(filepath.Join(run, "changes.patch"))
	if bytes.Contains(b, []byte("\x1b")) || !bytes.Contains(b, []byte(`"a/evil\033[2J\nname"`)) {
		t.Errorf("changes.patch does not quote the hostile name:\n%q", b)
	}
	for _, link := range []string{"leak.txt", "rootlink"} {
		if !bytes.Contains(b, []byte("diff --git a/"+link+" b/"+link+"\nnew file mode 120000\n")) {
			t.Errorf("changes.patch does not show the link %s as a link:\n%s", link, b)
		}
	}
	var m struct {
		NotCopied []struct{ Path, Reason string } `json:"not_copied"`
	}
	mb, _ := os.ReadFile(filepath.Join(run, "metrics.json"))
	json.Unmarshal(mb, &m)
	named := map[string]bool{}
	for _, n := range m.NotCopied {
		named[n.Path] = true
	}
	for _, want := range []string{"workspace/fifo", "workspace/huge.bin", "workspace/locked"} {
		if !named[want] {
			t.Errorf("metrics.json does not name %s as not copied: %s", want, mb)
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 1 {
		t.Errorf("the run left %d entries in its temporary directory", len(left)-1)
	}
}

// TestReplayEvalArtifactsObeyed: the run makes, in its workspace, a new
// repository with a commit whose config sets core.fsmonitor to a command,
// and an .envrc and a mise.toml beside it. Copied into artifacts/ as
// they are, the repository is one the host's git would use there: the
// user's `git status` in the folder (a prompt runs it on cd) would run
// the command.
// Host-side proof: git status, run by the user in the artifacts'
// directories, runs nothing; what the host would obey is named in
// metrics.json and is in changes.patch to be read.
func TestReplayEvalArtifactsObeyed(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	pwned := filepath.Join(h.Base, "PWNED")
	plant := strings.Join([]string{
		"git init -q sub",
		"echo x > sub/f && git -C sub add f && git -C sub -c user.name=a -c user.email=a@example.com commit -q -m x",
		"git -C sub config core.fsmonitor 'touch " + pwned + "; :'",
		"echo 'touch " + pwned + "' > sub/.envrc",
		"echo ok > plain.txt",
	}, " && ")
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": plant, "description": "plant"}},
	)
	out := filepath.Join(h.Base, "evals")
	h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "plant", "--", "--permission-mode", "bypassPermissions")
	if r := api.ToolResults()["toolu_fake_0"]; strings.HasPrefix(r, "ERROR") {
		t.Fatalf("the planting failed: %s", r)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	artifacts := filepath.Join(runs[0], "artifacts")
	for _, dir := range []string{artifacts, filepath.Join(artifacts, "sub")} {
		if paths.Exists(dir) {
			h.Command(dir, nil, "git", "status").Run()
		}
	}
	if paths.Exists(pwned) {
		t.Errorf("git status in the run's artifacts ran the sandbox's command")
	}
	if b, _ := os.ReadFile(filepath.Join(artifacts, "plain.txt")); string(b) != "ok\n" {
		t.Errorf("artifacts/plain.txt = %q", b)
	}
	mb, _ := os.ReadFile(filepath.Join(runs[0], "metrics.json"))
	pb, _ := os.ReadFile(filepath.Join(runs[0], "changes.patch"))
	for _, want := range []string{"sub/.git", "sub/.envrc"} {
		if !strings.Contains(string(mb), `"artifacts/`+want) {
			t.Errorf("metrics.json does not name %s as left out: %s", want, mb)
		}
		if !strings.Contains(string(pb), "b/"+want) {
			t.Errorf("changes.patch does not hold %s", want)
		}
	}
}

// TestReplayEvalTerminalControls: the run writes a file whose text holds
// terminal controls (OSC 52, which sets the clipboard, a C1 CSI and a
// bidirectional override, the Trojan Source trick that shows code other
// than it is), a file whose name holds the C1 CSI and the override, and a
// FIFO so named, which metrics.json names as not copied. The user reads
// `cat changes.patch` or `cat metrics.json` in a terminal, which obeys
// what they hold raw.
// Host-side proof: neither file holds a control character raw (the text
// file's change is shown as binary, the names quoted as git quotes
// them), and git apply of changes.patch on the project (but for the
// change shown as binary) still makes the file with the hostile name.
func TestReplayEvalTerminalControls(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	plant := strings.Join([]string{
		`printf 'ok\033]52;c;cHduZWQ=\007 \302\2332J x\342\200\256y\n' > esc.txt`,
		`printf 'named\n' > "$(printf 'n\302\233ame\342\200\256.txt')"`,
		`mkfifo "$(printf 'fifo\302\233\342\200\256')"`,
	}, " && ")
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": plant, "description": "plant"}},
	)
	out := filepath.Join(h.Base, "evals")
	h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "plant", "--", "--allowedTools", "Bash")
	if r := api.ToolResults()["toolu_fake_0"]; strings.HasPrefix(r, "ERROR") {
		t.Fatalf("the planting failed: %s", r)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	for _, name := range []string{"changes.patch", "metrics.json"} {
		b, _ := os.ReadFile(filepath.Join(runs[0], name))
		for _, raw := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
			if bytes.Contains(b, []byte(raw)) {
				t.Errorf("%s holds %q raw:\n%q", name, raw, b)
			}
		}
	}
	if mb, _ := os.ReadFile(filepath.Join(runs[0], "metrics.json")); !bytes.Contains(mb, []byte(`workspace/fifo\u009b\u202e`)) {
		t.Errorf("metrics.json does not name the FIFO, escaped:\n%s", mb)
	}
	h.Run(proj, nil, "git", "apply", "--exclude=esc.txt", filepath.Join(runs[0], "changes.patch"))
	if b, err := os.ReadFile(filepath.Join(proj, "n\u009bame\u202e.txt")); err != nil || string(b) != "named\n" {
		t.Errorf("git apply of changes.patch did not make the file with the hostile name: %q, %v", b, err)
	}
}

// TestReplayEvalSkillFlood: the run's model (prompt-injected by the
// workspace) calls the Skill tool, again and again, for a skill whose
// name is megabytes long. The run's line, which names the skills invoked,
// and metrics.json carry each name whole: the user's terminal gets
// megabytes per run, the host's memory their copies.
// Host-side proof: claudebox's output and metrics.json stay small, and
// the flood is cut, not dropped silently (the line says more were
// invoked).
func TestReplayEvalSkillFlood(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	long := strings.Repeat("s", 4<<20)
	var calls []harness.ToolCall
	for range 40 {
		calls = append(calls, harness.ToolCall{Name: "Skill", Input: map[string]any{"skill": "a"}})
	}
	calls = append(calls, harness.ToolCall{Name: "Skill", Input: map[string]any{"skill": long}}, harness.ToolCall{Name: "Skill", Input: map[string]any{"skill": long}})
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE", calls...)
	out := filepath.Join(h.Base, "evals")
	stdout, _ := h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "skills").Output()
	if len(stdout) > 4096 || !strings.Contains(string(stdout), ", skill a, a, a, a, a, a, a, a, … (") {
		t.Errorf("the run's line is %d bytes: %.200q", len(stdout), stdout)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*", "metrics.json"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	if fi, err := os.Stat(runs[0]); err != nil || fi.Size() > 64<<10 {
		t.Errorf("metrics.json: %v, %d bytes", err, fi.Size())
	}
}

// TestReplayEvalRawOutput: the run's Bash writes terminal controls (OSC 52,
// which sets the clipboard, a C1 CSI, a CR that overwrites a line)
// straight into Claude Code's own stdout and stderr, reopened through
// /proc/<pid>/fd of its ancestors, past the stream's JSON encoding. The
// user reads stderr.log or transcript.jsonl with cat when a run fails.
// Host-side proof: neither file holds a control character raw but the
// lines' newlines, and the marker written is there, escaped.
func TestReplayEvalRawOutput(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	plant := `p=$$; while [ "$p" -gt 1 ]; do for fd in 1 2; do printf 'RAW-MARK\033]52;c;cHduZWQ=\007\302\233\r\n' > /proc/$p/fd/$fd 2>/dev/null; done; p=$(awk '/^PPid:/{print $2}' /proc/$p/status); done; echo done`
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": plant, "description": "plant"}},
	)
	out := filepath.Join(h.Base, "evals")
	h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "plant", "--", "--allowedTools", "Bash").Run()
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	for _, name := range []string{"stderr.log", "transcript.jsonl"} {
		b, _ := os.ReadFile(filepath.Join(runs[0], name))
		if !bytes.Contains(b, []byte("RAW-MARK")) {
			t.Errorf("%s does not hold the marker:\n%q", name, b)
		}
		for _, raw := range []string{"\x1b", "\x07", "\r", "\u009b"} {
			if bytes.Contains(b, []byte(raw)) {
				t.Errorf("%s holds %q raw", name, raw)
			}
		}
	}
}

// TestReplayEvalStagingThroughLinks: a session of the project leaves in
// it a symlink named fixtures and a .claude that is a symlink, both to
// directories of the host's (the sandbox may make links to any path).
// The user then evaluates a skill with fixtures: staging the workspace
// copies the links as links, then writes the fixtures into fixtures/ and
// removes and writes .claude/skills/<name> — through the links, on the
// host.
// Host-side proof: the host's directory the links name stays as it was
// (the user's skill of that name is not replaced, nothing is written
// beside it); the run is offered the skill and its patch is empty.
func TestReplayEvalStagingThroughLinks(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	victim := filepath.Join(h.Home, "victim")
	h.Write(filepath.Join(victim, "skills", "evalskill", "SKILL.md"), "the user's own skill\n")
	h.Write(filepath.Join(victim, "fixtures-here"), "the user's\n")
	h.Inside(proj, nil, "ln -s "+victim+" fixtures")
	// A .claude the sandbox cannot replace (its stand-in is a mount); a
	// repository the user cloned can hold it as a link all the same.
	if err := os.Symlink(victim, filepath.Join(proj, ".claude")); err != nil {
		t.Fatal(err)
	}
	fixtures := filepath.Join(h.Base, "fix")
	h.Write(filepath.Join(fixtures, "input.txt"), "fixture\n")
	skill := filepath.Join(h.Base, "skills", "evalskill")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: evalskill\ndescription: test\n---\nthe skill under test\n")
	api := harness.StartFakeAPI(t, "FAKE-EVAL-DONE")
	out := filepath.Join(h.Base, "evals")
	c := h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "hi", "--fixtures", fixtures, "--skill", skill)
	if b, err := c.CombinedOutput(); err != nil {
		t.Fatalf("the run: %v\n%s", err, b)
	}
	if got, err := os.ReadFile(filepath.Join(victim, "skills", "evalskill", "SKILL.md")); err != nil || string(got) != "the user's own skill\n" {
		t.Errorf("the host's skill through the .claude link: %q, %v", got, err)
	}
	if entries, _ := os.ReadDir(victim); len(entries) != 2 {
		t.Errorf("the host's directory behind the links gained entries: %v", entries)
	}
	patches, _ := filepath.Glob(filepath.Join(out, "*", "changes.patch"))
	if len(patches) != 1 {
		t.Fatalf("runs: %v", patches)
	}
	if b, _ := os.ReadFile(patches[0]); len(b) != 0 {
		t.Errorf("changes.patch of a run that changed nothing:\n%s", b)
	}
	if !api.Received("evalskill") {
		t.Error("the run was not offered the skill under test")
	}
}

// TestReplayEvalOutInProject: the user keeps the eval's output in the
// project (--out evals) while a session of the project runs. That
// session's agent waits for the run's folder and makes its session/ a
// link to the user's home; the run's own agent leaves a .bashrc among
// Claude Code's session files. Copying those out would write through the
// link: the user's next shell runs the payload.
// Host-side proof: the eval refuses an --out in the project before any
// run starts, and the user's ~/.bashrc is never written.
func TestReplayEvalOutInProject(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	pwned := filepath.Join(h.Base, "PWNED")
	h.Write(filepath.Join(h.Home, ".bashrc"), "# the user's\n")
	watcher := h.Command(proj, nil, "claudebox", "--shell", "-c", `for i in $(seq 200); do for d in evals/*/; do if [ -d "$d" ]; then ln -s `+h.Home+` "${d}session"; exit 0; fi; done; sleep 0.05; done`)
	if err := watcher.Start(); err != nil {
		t.Fatal(err)
	}
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": "mkdir -p ~/.claude/projects && printf 'touch " + pwned + "\\n' > ~/.claude/projects/.bashrc && echo x > ~/.claude/projects/planted.txt && sleep 3", "description": "plant"}},
	)
	out, _ := h.Command(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", "evals", "--prompt", "plant", "--", "--permission-mode", "bypassPermissions").CombinedOutput()
	watcher.Process.Kill()
	watcher.Wait()
	if b, err := os.ReadFile(filepath.Join(h.Home, ".bashrc")); string(b) != "# the user's\n" {
		t.Errorf("the run wrote or removed the user's ~/.bashrc through the planted link: %q, %v\n%s", b, err, out)
	}
	if paths.Exists(filepath.Join(h.Home, "planted.txt")) {
		t.Errorf("the run wrote into the user's home through the planted link:\n%s", out)
	}
	if !strings.Contains(string(out), "--out") {
		t.Errorf("the eval did not refuse an --out in the project:\n%s", out)
	}
}
