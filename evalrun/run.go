package evalrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/untrusted"
)

// fixedEnv makes runs alike whatever the host's settings: the time zone,
// the locale, and no server-side feature flags, which could change Claude
// Code's behaviour between runs.
var fixedEnv = []string{"TZ=UTC", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}

// outputLimit is the most of the command's stdout (the stream) and stderr
// kept; the sandbox writes them.
const outputLimit = 1 << 30

// Run runs the eval: Repeat runs, Jobs at a time, each printing one line
// as it ends, then a total. It checks everything first and creates
// nothing when something is wrong; it fails (silently, with status 1)
// when a run did.
func Run(home session.Home, o Options, stdout io.Writer) error {
	c, err := check(o)
	if err != nil {
		return err
	}
	project, err := session.EvalProject(home)
	if err != nil {
		return err
	}
	// The sandbox is worked out once before anything is made, so that a
	// missing claude or login is said before any folder exists.
	if _, err := session.Prepare(c.sandbox(home, project, mount.Eval{}, "")); err != nil {
		return err
	}
	if c.Out, err = outsideProject(c.Out, project); err != nil {
		return err
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return hint.Errorf("name a directory you can write with --out", "cannot create %s: %v", c.Out, err)
	}
	// Opened once, by its real path with no symlink in it: a session of
	// another project that holds the folder can swap any directory in it
	// for a link while the runs write, and every write is made beneath
	// this descriptor, never by path from the root again.
	if c.outDir, err = untrusted.OpenDir("/", strings.TrimPrefix(c.Out, "/")); err != nil {
		return hint.Errorf("name a folder no one else changes with --out", "cannot open %s: %v", c.Out, err)
	}
	defer c.outDir.Close()
	commit := inputCommit(project)
	// A signal ends the runs under way (each gets SIGTERM), starts no
	// more, and leaves claudebox to clean up after them.
	ctx, cancel := signal.NotifyContext(context.Background(), unix.SIGINT, unix.SIGTERM, unix.SIGHUP)
	defer cancel()
	var mu sync.Mutex
	var passed, failed int
	var cost float64
	began := time.Now()
	jobs := make(chan struct{}, c.Jobs)
	var wg sync.WaitGroup
	runs := 0
	for ; runs < c.Repeat; runs++ {
		jobs <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-jobs }()
			dir, m, err := c.one(ctx, home, project, commit)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed++
				printable.Say(stdout, "FAIL %s: %v", dir, err)
				return
			}
			status := "PASS"
			if m.ExitStatus != 0 {
				status = "FAIL"
				failed++
			} else {
				passed++
			}
			if m.CostUSD != nil {
				cost += *m.CostUSD
			}
			line := fmt.Sprintf("%s %s: exit %d, %s, %.1fs", status, dir, m.ExitStatus, dollars(m.CostUSD), float64(m.WallTimeMS)/1000)
			if n := len(m.SkillsInvoked) + m.SkillsNotListed; n > lineSkills {
				line += fmt.Sprintf(", skill %s, … (%d calls)", strings.Join(m.SkillsInvoked[:lineSkills], ", "), n)
			} else if n > 0 {
				line += ", skill " + strings.Join(m.SkillsInvoked, ", ")
			}
			printable.Say(stdout, "%s", line)
		}()
	}
	wg.Wait()
	total := fmt.Sprintf("total: %d runs, %d passed, %d failed, $%.4f, %.1fs", runs, passed, failed, cost, time.Since(began).Seconds())
	if runs < c.Repeat {
		total += fmt.Sprintf(" (interrupted: %d not started)", c.Repeat-runs)
	}
	printable.Say(stdout, "%s", total)
	if failed > 0 || runs < c.Repeat {
		return session.ExitCode(1)
	}
	return nil
}

// lineSkills is how many of the skills invoked a run's line names; the
// rest are in metrics.json.
const lineSkills = 8

// outsideProject returns out, the runs' folder, with its links resolved,
// and refuses it in the project: a session of the project writes there,
// and could swap a run's folder, or one in it, for a link to the user's
// files while the host copies a run out into it.
func outsideProject(out string, p instance.Project) (string, error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return "", err
	}
	real := abs
	for d := abs; ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			rest, _ := filepath.Rel(d, abs)
			real = filepath.Join(r, rest)
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	dirs := append([]string{p.Checkout}, p.GitDirs...)
	if paths.UnderAny(abs, dirs) || paths.UnderAny(real, dirs) {
		return "", hint.Errorf("name a folder outside the project with --out, e.g. --out ../"+filepath.Base(p.Checkout)+"-evals", "--out %s lies in the project, which its sessions can write", printable.Escape(out))
	}
	return real, nil
}

// dollars is a run's cost for its line, when the stream gave one.
func dollars(c *float64) string {
	if c == nil {
		return "cost unknown"
	}
	return fmt.Sprintf("$%.4f", *c)
}

// sandbox is the launch a run is: a session.Prepare with eval options.
func (c checked) sandbox(home session.Home, project instance.Project, e mount.Eval, socket string) session.Options {
	args := []string{"-p", "--output-format", "stream-json", "--verbose"}
	if c.Model != "" {
		args = append(args, "--model", c.Model)
	}
	args = append(args, c.Args...)
	return session.Options{Home: home, Args: append(args, "--", c.prompt), Eval: &session.EvalOptions{
		Project: project, Claude: c.Claude, Network: c.network, Allow: c.allow, Eval: e, Socket: socket, SetEnv: fixedEnv,
	}}
}

// one makes one run, in a folder of its own under Out, which it returns.
func (c checked) one(ctx context.Context, home session.Home, project instance.Project, commit string) (string, metrics, error) {
	id := runID()
	dir := filepath.Join(c.Out, id)
	m := metrics{RunID: id, Claudebox: c.Version, ModelAsked: c.Model, PromptDigest: c.digest, InputCommit: commit, Network: network{Mode: c.network}, Skills: []string{}, SkillsInvoked: []string{}}
	for _, r := range c.allow {
		m.Network.Allow = append(m.Network.Allow, r.String())
	}
	for _, s := range c.skills {
		m.Skills = append(m.Skills, s.name)
	}
	if err := unix.Mkdirat(int(c.outDir.Fd()), id, 0o755); err != nil {
		return dir, m, &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	run, err := untrusted.OpenDir(untrusted.FDPath(c.outDir), id)
	if err != nil {
		return dir, m, err
	}
	defer run.Close()
	at := untrusted.FDPath(run)
	scratch, err := os.MkdirTemp("", "claudebox-eval-")
	if err != nil {
		return dir, m, err
	}
	defer untrusted.RemoveAll(filepath.Dir(scratch), filepath.Base(scratch))
	e, staged, err := stage(c, project.Checkout, scratch)
	if err != nil {
		return dir, m, fmt.Errorf("cannot stage the workspace: %w", err)
	}
	s, err := session.Prepare(c.sandbox(home, project, e, filepath.Join(scratch, "proxy.sock")))
	if err != nil {
		return dir, m, err
	}
	if err := untrusted.WriteFile(at, "plan.sh", []byte(s.Script()), 0o644); err != nil {
		return dir, m, err
	}
	transcript, err := createAt(run, "transcript.jsonl")
	if err != nil {
		return dir, m, err
	}
	defer transcript.Close()
	stderr, err := createAt(run, "stderr.log")
	if err != nil {
		return dir, m, err
	}
	defer stderr.Close()
	out := &capped{w: transcript, left: outputLimit}
	stream, errs := &escaping{w: out, escape: jsonEscape}, &escaping{w: &capped{w: stderr, left: outputLimit}, escape: textEscape}
	began := time.Now()
	status, err := s.RunEval(ctx, stream, errs)
	m.WallTimeMS = time.Since(began).Milliseconds()
	if err != nil {
		return dir, m, err
	}
	stream.flush()
	errs.flush()
	m.ExitStatus, m.TranscriptCutOff = status, out.cut
	if _, err := transcript.Seek(0, 0); err == nil {
		m.readStream(transcript)
	}
	// A file's ctime is the kernel's, a little behind this clock at most.
	copied := time.Now().Add(-time.Second)
	sessionFiles, skips := scan(filepath.Join(e.ClaudeDir, "projects"))
	sessionDir, err := mkdirAt(run, "session")
	if err != nil {
		return dir, m, err
	}
	defer sessionDir.Close()
	m.NotCopied = copyOut(filepath.Join(e.ClaudeDir, "projects"), untrusted.FDPath(sessionDir), regularFiles(sessionFiles), prefixed("session", skips))
	m.NotCopied = append(m.NotCopied, leaveOutObeyed(untrusted.FDPath(sessionDir), "session", copied)...)
	after, skips := scan(e.Workspace)
	cs := changes(staged, after)
	var written []string
	for _, ch := range cs {
		if ch.after != nil && !ch.after.link {
			written = append(written, ch.path)
		}
	}
	artifacts, err := mkdirAt(run, "artifacts")
	if err != nil {
		return dir, m, err
	}
	defer artifacts.Close()
	m.NotCopied = append(m.NotCopied, copyOut(e.Workspace, untrusted.FDPath(artifacts), written, prefixed("workspace", skips))...)
	m.NotCopied = append(m.NotCopied, leaveOutObeyed(untrusted.FDPath(artifacts), "artifacts", copied)...)
	if err := untrusted.WriteFile(at, "changes.patch", patch(e.Workspace, cs), 0o644); err != nil {
		return dir, m, err
	}
	return dir, m, untrusted.WriteFile(at, "metrics.json", m.encode(), 0o644)
}

// createAt creates name, new, in the directory dir holds.
func createAt(dir *os.File, name string) (*os.File, error) {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name)), nil
}

// mkdirAt makes the directory name, new, in the directory dir holds, and
// opens it.
func mkdirAt(dir *os.File, name string) (*os.File, error) {
	if err := unix.Mkdirat(int(dir.Fd()), name, 0o755); err != nil {
		return nil, &os.PathError{Op: "mkdir", Path: filepath.Join(dir.Name(), name), Err: err}
	}
	return untrusted.OpenDir(untrusted.FDPath(dir), name)
}

// regularFiles lists the regular files among fs.
func regularFiles(fs map[string]found) []string {
	var ks []string
	for k, f := range fs {
		if !f.link {
			ks = append(ks, k)
		}
	}
	return ks
}

func prefixed(where string, skips []skipped) []skipped {
	for i := range skips {
		skips[i].Path = where + "/" + skips[i].Path
	}
	return skips
}

// runID names a run: when it started, and a random part, so that runs in
// parallel never share a folder.
func runID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// inputCommit is the commit the project's checkout is at, "" outside git.
func inputCommit(p instance.Project) string {
	if p.GitDir == "" {
		return ""
	}
	// A FIFO a session left where git reads (a loose branch) would hold
	// it forever.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", p.Checkout, "rev-parse", "--verify", "-q", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// capped writes at most left bytes to w, then drops the rest, so the
// sandbox cannot fill the disk through its output.
type capped struct {
	w    io.Writer
	left int64
	cut  bool
}

func (c *capped) Write(p []byte) (int, error) {
	n := len(p)
	if int64(len(p)) > c.left {
		p, c.cut = p[:c.left], true
	}
	c.left -= int64(len(p))
	if _, err := c.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}
