package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/guardwatch"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/idle"
	"github.com/claudebox/claudebox/landlock"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/transcript"
	"github.com/claudebox/claudebox/undo"
	"github.com/claudebox/claudebox/untrusted"
)

// supervise runs the session: bwrap as claudebox's child, with claudebox
// staying outside the sandbox for as long as it runs. claudebox holds the
// session lock itself, on a descriptor no process of the sandbox inherits,
// forwards the signals meant for the session, and when the project's last
// session ends, removes the placeholders no other project's session stands
// on. It exits with the sandbox's
// status. (Exec'ing bwrap, as claudebox once did, left the lock on a
// descriptor the sandbox shared, and nothing on the host side watching.)
func (s *Session) supervise() error {
	defer s.phases.report(os.Stderr)
	// A signal meant for the session (Ctrl-C as the user sees it start,
	// kill, a closing terminal) is the session's from the first effect
	// on: before the sandbox began, it stops the launch, which leaves as
	// one that never began; after, it is forwarded. Its default had ended
	// claudebox at once, the stand-ins left in the project and the undo
	// snapshot pending (--undo -y then took it for the last session's).
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, unix.SIGINT, unix.SIGTERM, unix.SIGHUP, unix.SIGQUIT)
	defer signal.Stop(sigs)
	if err := checkStateSpace(s.stateDir); err != nil {
		return err
	}
	if err := checkProjectSpace(s.plan.Project.Checkout); err != nil {
		return err
	}
	stopGPG, err := s.startGPGAgent()
	if err != nil {
		return err
	}
	defer stopGPG()
	s.takeUndo()
	defer s.undo.wait()
	stop, err := s.startProxy()
	if err != nil {
		return err
	}
	defer stop()
	if stopped := s.stoppedBefore(sigs, nil); stopped != nil {
		return stopped
	}
	stopAgent, err := s.startSSHAgent()
	if err != nil {
		return err
	}
	defer stopAgent()
	removeCopies, err := s.writeDirCopies(s.plan)
	if err != nil {
		return err
	}
	defer removeCopies()
	s.phases.done("proxy")
	if err := s.copyLinked(); err != nil {
		return err
	}
	s.phases.done("hard links")
	if stopped := s.stoppedBefore(sigs, nil); stopped != nil {
		return stopped
	}
	lock, err := s.materialize()
	if err != nil {
		return err
	}
	defer lock.Close()
	// Taken before the phase ends, where a fault test may hold the
	// supervisor and kill the watcher: it is then fully launched. From
	// here it is startBwrap's: on an error it is gone.
	watcher, err := s.launching.take()
	if err != nil {
		return err
	}
	s.phases.done("instance and placeholders")
	if stopped := s.stoppedBefore(sigs, lock); stopped != nil {
		watcher.Abandon()
		return stopped
	}
	// The sandbox runs in a session of its own, on a terminal of its own
	// when claudebox has one: a signal sent to claudebox (kill, a closing
	// terminal, Ctrl-C when only stdout is a terminal) is meant for the
	// session, and forwarded.
	var began time.Time
	var transcripts map[string]time.Time
	run, err := s.startBwrap(s.plan, bwrapStart{
		watcher: watcher, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: true,
		cgroup: s.cgroup,
		// The sandbox's command waits for the undo snapshot's list of
		// ignored files, bwrap's mounts do not: they run meanwhile.
		ready: func(pid int) {
			s.undo.waitListed()
			s.openCopies(pid)
		},
		described: func() {
			s.noticeLeftOut()
			s.noticeGPU()
			s.startSnapshot()
			if !s.shell {
				transcripts = transcript.Times(s.plan.Instance)
			}
			began = time.Now()
		},
	})
	if run != nil && run.group != nil {
		defer run.group.Remove()
	}
	if err != nil {
		s.leaveUnbegun(newExitVoice(), lock, nil)
		return err
	}
	s.phases.done("sandbox start")
	run.relay.Started()
	var trusted chan struct{}
	if !s.shell && s.proxy != nil {
		trusted = make(chan struct{})
		time.AfterFunc(trustAhead, func() {
			defer close(trusted)
			s.proxy.BuildTrustAhead()
		})
	}
	// From here the supervisor waits, for the whole session: what its
	// start used is given back once the session has run a moment, and
	// what runs beside it is done: the snapshots (a large tree's hold
	// much) and the API's CA pool (built after, it mapped back what the
	// release gave: 15.0 MB against 6.3 in the supervisor).
	var undone chan struct{}
	if s.undo != nil {
		undone = s.undo.done
	}
	waiting := idle.Wait(s.snapshotting, undone, trusted)
	err = run.wait(context.Background(), sigs)
	// The exit audit, which may hold a large tree's record, collects as
	// any process does.
	waiting.End()
	// The snapshot for --undo, if still being taken, is stopped: every
	// file the session changed has changed since the snapshot's mark,
	// which it leaves out as unknown, so finished now it could undo
	// nothing of the session; it would only compete with the exit audit
	// for the processors (a 1,000,000-file tree's git add for seconds).
	// Its work files go while the audit runs.
	if s.undo != nil {
		s.undo.stop()
	}
	s.phases.done("command")
	ended := watcher.Stop()
	run.relay.Restore()
	// What the end says of what git status shows nothing of, or shows
	// wrong, a terminal closed as the session ended did not show: the
	// next command says it.
	said := newExitVoice()
	watcher.SayChanges(said)
	s.keepTrust()
	s.sayLostSaves()
	s.sayBlocked(os.Stderr)
	s.phases.done("watcher stop")
	// The watcher's exit, the last hold on the sandbox's mount namespace,
	// unmounts its mounts (10-20 ms) while the exit audit reads the
	// project; the placeholders go once they are unmounted.
	// bwrap ended with an error or by a signal before the watcher let
	// its sandbox go on: nothing ran there (bwrap exits 0 only once its
	// command has run and ended so).
	leave := s.leave
	if !watcher.Released() && err != nil {
		leave = s.leaveUnbegun
	}
	if !leave(said, lock, watcher.Wait) {
		// The last session's end looks at what they all left: this
		// one's user, seeing it end, would take the project for looked at.
		printable.Say(os.Stderr, "claudebox: another session of this project is still running: what the sessions left that your host would run or obey is looked for when the last of them ends")
		printable.Say(os.Stderr, "hint: until then, run none of the project's tools on the host (a build, its tests, direnv)")
	}
	watcher.Wait()
	s.phases.done("exit audit and cleanup")
	s.exportInbox(s.phases)
	s.phases.done("export")
	sayFullDisk(s.stateDir)
	if failed := bwrapFailed(watcher, err); failed != nil {
		return failed
	}
	s.sayLimitsReached(run.group, err)
	s.sayLogout()
	s.sayResume(began, transcripts, run.relay.Tail())
	s.sayHostConversations(transcripts)
	if ended != nil {
		return ended
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return ExitCode(statusOf(exit.ProcessState))
	case err != nil:
		return err
	}
	return nil
}

// launchWatcher starts the session's guard watcher beside the launch's
// work: its fork, its user namespace's maps (1-6 ms) and its runtime's
// start are not on the launch's path.
func launchWatcher() *background[*guardwatch.Watcher] {
	return startBackground(guardwatch.Launch)
}

// trustAhead is how long after its command started a session builds what
// the API's first TLS handshake needs (proxy.BuildTrustAhead): 25-35 ms of
// processor time that the launch should not share its two processors
// with, nor spend on a command that ends at once. Claude Code 2.1.330's
// first call comes 0.6-0.8 s after it starts (-p on the 2-core machine);
// a call before it builds them itself.
const trustAhead = 100 * time.Millisecond

// sayResume says how to resume the session Claude ran, where Claude Code
// did not just say it: its own line, at an interactive session's end,
// names claudebox --resume with the session's id
// (CLAUDE_CODE_RESUME_HINT_COMMAND); with -p, or an older Claude Code's
// line (claude --resume, which on the host finds no conversation, as its
// history is in the instance), claudebox's is the one to type.
// transcripts are the transcripts' times as the launch found them; shown,
// the end of what the session wrote to the terminal.
func (s *Session) sayResume(began time.Time, transcripts map[string]time.Time, shown []byte) {
	if s.shell {
		return
	}
	// A filesystem's clock may run a little behind this one.
	// Without a proxy (no network, a cloud provider's API) the session's
	// own calls are not seen: the transcript written last is named.
	var ours func(string) bool
	if s.proxy != nil {
		ours = s.proxy.ClaudeConversations
	}
	id, ok := transcript.WrittenSince(s.plan.Instance, began.Add(-2*time.Second), transcripts, ours)
	if ok && !resumeShown(shown, id) {
		printable.Say(os.Stderr, "claudebox: resume this session with: claudebox --resume %s", id)
	}
}

// resumeShown says whether the end of the session's output, its terminal
// sequences left out, is Claude Code's line that resumes the session id
// with claudebox: the very command claudebox would print. The session
// writes that output, so nothing but that command stands for claudebox's.
func resumeShown(shown []byte, id string) bool {
	text := strings.ReplaceAll(string(terminalSequence().ReplaceAll(shown, nil)), "\r", "")
	_, after, ok := strings.Cut(text, "Resume this session with:\nclaudebox --resume "+id+"\n")
	return ok && strings.TrimSpace(after) == ""
}

// terminalSequence matches the terminal's control sequences (CSI, as the
// dim that Claude Code's line is written in) and OSC strings.
var terminalSequence = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)
})

// sayLogout says, after Claude inside said "Successfully logged out from
// your Anthropic account" (its /logout, or claude auth logout), what it
// logged out: the sandbox's session alone, which held no login; the
// host's login stays, and the next launch is logged in.
func (s *Session) sayLogout() {
	if s.shell || !s.agent.IsClaude() {
		return
	}
	if len(s.args) >= 2 && s.args[0] == "auth" && s.args[1] == "logout" || s.claudeJSON.LoggedOutInside(s.plan.Instance) {
		printable.Say(os.Stderr, "claudebox: logging out inside ended the sandbox's session only: your login on the host stays")
		printable.Say(os.Stderr, "hint: to log out, run claude auth logout on the host")
	}
}

// startChild starts bwrap in a Landlock domain where the kernel scopes
// (Linux 6.12): nothing inside can signal a process outside it or, unless
// the user opted in, connect to the host's abstract Unix sockets (X11,
// D-Bus), which the shared network would otherwise reach. Not for a setuid
// bwrap: Landlock needs no_new_privs, which would keep bwrap from gaining
// root. Nor where the sandbox's first process keeps sockets out of the
// project (Plan.NoSockets): it scopes its command in that one domain, as
// a second domain here would refuse every move of a file into another
// folder inside (landlock.Restrict).
func (s *Session) startChild(cmd *exec.Cmd) error {
	if !s.landlock || len(s.plan.NoSockets()) > 0 {
		return cmd.Start()
	}
	scope := landlock.Signals
	if !s.desktopSockets {
		scope |= landlock.AbstractSockets
	}
	return landlock.Start(cmd, scope)
}

// leave ends this session's hold on the project; if it was the last one
// running, it cleans up what the sessions left on the host, once
// unmounted (nil if nothing to wait for) says the sandbox's mounts are
// gone. It says whether this session was the last. What said says is kept
// for the next command where the terminal took none of it.
func (s *Session) leave(said *exitVoice, lock *os.File, unmounted func()) (last bool) {
	defer said.keepUnheard(s.stateDir, s.plan.Instance)
	if s.snapshotting != nil {
		<-s.snapshotting
	}
	if !instance.Leave(lock) {
		return false
	}
	s.cleanUp(said, s.plan.Instance, unmounted, true)
	return true
}

// leaveUnbegun leaves as leave does, for a launch whose sandbox never
// began its command: where no other session ran (ranNoSession), it is no
// session, and drops its undo snapshot.
func (s *Session) leaveUnbegun(said *exitVoice, lock *os.File, unmounted func()) (last bool) {
	s.noSession = s.ranNoSession()
	last = s.leave(said, lock, unmounted)
	if s.noSession {
		undo.Drop(s.stateDir, s.plan.Project.Root, s.undo.id)
	}
	return last
}

// otherCheckoutStarted says whether a session of the project began in
// another checkout than checkout since its sessions began.
func otherCheckoutStarted(dir, checkout string) bool {
	for _, c := range instance.AuditRoots(dir) {
		if _, ok := instance.CheckoutStarted(dir, c); ok && c != checkout {
			return true
		}
	}
	return false
}

// stoppedBefore stops the launch, before its sandbox starts, where a
// signal came for the session: with lock, the instance made, it leaves
// as a launch that never began; before (nil), its undo snapshot, which
// no session's start depends on yet, is dropped. The exit status is the
// signal's, as a shell gives it.
func (s *Session) stoppedBefore(sigs <-chan os.Signal, lock *os.File) error {
	var sig os.Signal
	select {
	case sig = <-sigs:
	default:
		return nil
	}
	if lock != nil {
		s.leaveUnbegun(newExitVoice(), lock, nil)
	} else if s.undo != nil {
		if s.undo.wait(); s.undo.id != "" {
			undo.Drop(s.stateDir, s.plan.Project.Root, s.undo.id)
		}
	}
	n, _ := sig.(unix.Signal)
	return ExitCode(128 + int(n))
}

// startSnapshot records, in the first session, what the project holds as
// its sandbox starts, for the exit audit to compare with; it runs beside
// the session, so the launch does not wait for it. Without the record the
// audit still works, and names more.
func (s *Session) startSnapshot() {
	if s.firstInCheckout {
		s.startCheckoutSnapshot()
	}
	if !s.first {
		return
	}
	at, err := instance.StampSnapshot(s.plan.Instance)
	if err != nil {
		return
	}
	// The other trees the sessions write (from a linked worktree, the
	// repository's submodules' git directories), where the stand-ins
	// change the directories' status: without a record, the audit took
	// each ref there for one the session made. Those of this start; a
	// checkout reached later is recorded by its own first session, whose
	// record this one, taken later, must not replace.
	var others []string
	for _, root := range instance.AuditRoots(s.plan.Instance) {
		if _, later := instance.CheckoutStarted(s.plan.Instance, root); root != s.plan.Project.Checkout && !later {
			others = append(others, root)
		}
	}
	s.snapshotting = make(chan struct{})
	go func() {
		defer close(s.snapshotting)
		// The last audited sessions' record spares reading again every
		// directory that did not change since.
		base, _ := audit.Decode(instance.BaseSnapshot(s.plan.Instance))
		s.record = audit.Take(s.plan.Project.Checkout, at, s.plan.ObeyedNames, base)
		if instance.SaveSnapshot(s.plan.Instance, s.record.Encode()) != nil {
			s.record = nil
		}
		for _, root := range others {
			instance.SaveCheckoutSnapshot(s.plan.Instance, root, audit.Take(root, at, s.plan.ObeyedNames, nil).Encode())
		}
	}()
}

// inCheckoutBefore says path lies in a checkout reached after the first
// session began and was last changed before that checkout's own first
// session did.
func (s *Session) inCheckoutBefore(dir, path string) bool {
	for _, c := range instance.AuditRoots(dir) {
		if !paths.Within(path, c) {
			continue
		}
		at, ok := instance.CheckoutStarted(dir, c)
		if own, err := audit.Decode(instance.CheckoutSnapshot(dir, c)); !ok || err != nil || own.Root != c {
			continue
		}
		var st unix.Stat_t
		return unix.Lstat(path, &st) == nil && time.Unix(st.Ctim.Unix()).Before(at)
	}
	return false
}

// rootGivenBack gives the checkout root its owner's permissions back
// where they were taken since the sessions began at since (chmod 000 or
// 555 of the project itself), reached as the directories below it are:
// without them the stand-ins there could not go, nor the exit audit look
// into the checkout or move aside what it found there. A root its owner
// had closed before is left as it is. Status changes are compared by the
// second, the start's too: one in the start's second counts as the
// session's.
func rootGivenBack(root string, since time.Time) []audit.Reopened {
	var st unix.Stat_t
	if unix.Lstat(root, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || time.Unix(st.Ctim.Unix()).Before(since) {
		return nil
	}
	had, ok, err := untrusted.GiveBackDir("/", strings.TrimPrefix(filepath.Clean(root), "/"), st.Ino)
	if err != nil || !ok {
		return nil
	}
	return []audit.Reopened{{Path: root, Had: had}}
}

// sayGivenBack says which directories of the user's the session had
// closed were given their owner's permissions back, and which files their
// owner's read permission, ten at most by name.
func sayGivenBack(w io.Writer, reopened []audit.Reopened) {
	const named = 10
	for i, r := range reopened {
		if i == named {
			printable.Say(w, "claudebox: and %d more of yours the session had closed", len(reopened)-named)
			return
		}
		what := "permissions"
		if r.File {
			what = "read permission"
		}
		printable.Say(w, "claudebox: gave %s its owner's %s back (the session had made it %03o)", mount.Quote(r.Path), what, uint32(r.Had))
	}
}

// startCheckoutSnapshot records, beside the session, the checkout that
// sessions reached after the first began, as it is at this session's start.
func (s *Session) startCheckoutSnapshot() {
	at, ok := instance.CheckoutStarted(s.plan.Instance, s.plan.Project.Checkout)
	if !ok {
		return
	}
	s.snapshotting = make(chan struct{})
	go func() {
		defer close(s.snapshotting)
		record := audit.Take(s.plan.Project.Checkout, at, s.plan.ObeyedNames, nil)
		instance.SaveCheckoutSnapshot(s.plan.Instance, s.plan.Project.Checkout, record.Encode())
	}()
}

// cleanUp runs, with the project's lock held exclusively, after its last
// session: the exit audit looks through the project for what the sessions
// left that the host would run or obey, and its placeholders go (but for
// those another project's running session stands on) once unmounted (nil
// if nothing to wait for) says no mount stands on them: removing a mount
// point of a namespace still standing waits longer. own says the sessions
// end with this one; otherwise a launch cleans up after a killed
// supervisor, and waits for nothing of its own session.
func (s *Session) cleanUp(said *exitVoice, dir string, unmounted func(), own bool) {
	removePlaceholders := func() {
		if unmounted != nil {
			unmounted()
		}
		instance.RemovePlaceholders(dir)
	}
	// No session of the project runs now, nor starts while this holds
	// its lock: the worktrees folders need no keeper. It goes before the
	// audit reads them.
	for _, g := range s.plan.Guards {
		if g.MakeDir {
			instance.ReleaseKeeper(g.Path)
		}
	}
	// A launch that never began, with no session before it nor after it
	// in any checkout, leaves nothing to look at: without the record of
	// its start (taken as the sandbox starts), the audit named every ref
	// as moved by a session that never ran.
	if s.noSession && !otherCheckoutStarted(dir, s.plan.Project.Checkout) {
		instance.ForgetStart(dir)
		removePlaceholders()
		return
	}
	began, ok := instance.Started(dir, s.plan.Project.Root)
	if !ok {
		instance.ForgetStart(dir)
		removePlaceholders()
		return
	}
	since := began.At
	start := s.record
	if start == nil {
		start, _ = audit.Decode(instance.Snapshot(dir))
	}
	standIns := instance.Placeholders(dir)
	// What the session closed of the user's is theirs again, and examined
	// as usual: each checkout's root first (what lies below is reached
	// through it), then the directories above what the exit reaches by
	// its path (the stand-ins, the guarded files), and the others as the
	// walks meet them.
	var reopened []audit.Reopened
	reopeners := map[string]*audit.Reopener{}
	for _, root := range slices.Compact(append([]string{s.plan.Project.Checkout}, instance.AuditRoots(dir)...)) {
		at, from := since, start
		if own, err := audit.Decode(instance.CheckoutSnapshot(dir, root)); err == nil && own.Root == root {
			from = own
			if t, ok := instance.CheckoutStarted(dir, root); ok {
				at = t
			}
		}
		reopened = append(reopened, rootGivenBack(root, at)...)
		r := audit.NewReopener(root, at, from, standIns)
		for _, p := range standIns {
			r.Ancestors(p)
		}
		for _, g := range s.plan.Guards {
			r.Ancestors(g.Path)
		}
		reopeners[root] = r
	}
	// What stands at a placeholder's path and is no stand-in (one another
	// project's session still stands on stays) was made during the
	// session, maybe by the sandbox after the host removed the stand-in,
	// so the audit looks at it. (A stand-in is nothing to audit, and
	// removing the placeholders removes only stand-ins, so the audit may
	// look before they go.)
	placeholders := map[string]bool{}
	for _, m := range s.plan.Placeholders() {
		placeholders[m.Dest] = true
	}
	// A guard vouches for what it stands on only if one stood there from
	// the sessions' start: a later session's may stand on what an
	// earlier one wrote (a .claude a level down it found and guarded).
	firstGuards := instance.FirstGuards(dir)
	guarded := map[string]bool{}
	var guards []string
	// What -w made for a worktree, as it made it, is the host's.
	made := map[string]bool{}
	for _, p := range instance.Made(dir) {
		made[p] = true
	}
	for _, g := range s.plan.Guards {
		standIn := placeholders[g.Path] && instance.IsPlaceholder(g.Path)
		// .git/worktrees, whose entries stay writable, is walked.
		guarded[g.Path] = !g.MakeDir && (standIn || !placeholders[g.Path] && firstGuards[g.Path])
		// A stand-in, made at the start, is no file the host replaced; nor
		// is what -w made, or what stood in a checkout before its own
		// first session began.
		if !standIn && !made[g.Path] && !s.inCheckoutBefore(dir, g.Path) {
			guards = append(guards, g.Path)
		}
	}
	for p := range made {
		guarded[p] = true
	}
	// Only a record that names this project's directory says its files
	// were replaced during the session.
	if !began.Proven {
		guards = nil
	}
	// The other trees the project's sessions wrote (its repository's
	// linked worktrees, their git directory's submodules): what this
	// session guarded in the repository's git directory every session of
	// it did, and the stand-ins are no one's write.
	others := maps.Clone(guarded)
	for _, p := range standIns {
		others[p] = others[p] || instance.IsPlaceholder(p)
	}
	// The stand-ins are known: they go while the audit reads, which skips
	// their paths.
	removed := make(chan struct{})
	go func() {
		defer close(removed)
		removePlaceholders()
	}()
	// The record's walk reads the status of every entry of the checkout;
	// the audit's judgement of installed dependencies, which would read
	// each of node_modules' again, counts from it.
	walkedChan := make(chan audit.Statuses, 1)
	changes := s.recordChanges(since, own, walkedChan, reopeners[s.plan.Project.Checkout])
	walked := sync.OnceValue(func() audit.Statuses { return <-walkedChan })
	otherChanges := s.recordOtherChanges(dir, since, standIns, reopeners)
	replaced := audit.Replaced(guards, since)
	// A checkout reached after the first session began is judged from its
	// own first session's start, where that recorded it.
	scan := func(root string, guarded map[string]bool) audit.Report {
		reopen := reopeners[root]
		if at, ok := instance.CheckoutStarted(dir, root); ok {
			if own, err := audit.Decode(instance.CheckoutSnapshot(dir, root)); err == nil && own.Root == root {
				return audit.ScanWalked(root, at, guarded, own, s.plan.ObeyedNames, nil, reopen)
			}
		}
		if root == s.plan.Project.Checkout {
			return audit.ScanWalked(root, since, guarded, start, s.plan.ObeyedNames, walked, reopen)
		}
		if own, err := audit.Decode(instance.CheckoutSnapshot(dir, root)); err == nil && own.Root == root {
			return audit.ScanWalked(root, since, guarded, own, s.plan.ObeyedNames, nil, reopen)
		}
		return audit.ScanWalked(root, since, guarded, start, s.plan.ObeyedNames, nil, reopen)
	}
	reports := map[string]audit.Report{s.plan.Project.Checkout: scan(s.plan.Project.Checkout, guarded)}
	var strays []string
	for _, c := range instance.AuditRoots(dir) {
		if _, ok := reports[c]; ok {
			continue
		}
		var st unix.Stat_t
		switch err := unix.Lstat(c, &st); {
		case errors.Is(err, unix.ENOENT):
		case err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR:
			// A symlink where the host's git looks for a directory (its
			// submodules' git directories) leads it wherever the
			// sandbox chose.
			strays = append(strays, c)
		default:
			reports[c] = scan(c, others)
		}
	}
	<-removed
	changed := <-changes
	// What git shows nothing of that the host runs (ignored, there at the
	// start, changed) is found as the audit's findings are, in each
	// checkout.
	records := <-otherChanges
	records[s.plan.Project.Checkout] = changed
	for root, c := range records {
		sayTimeGiven(said, timeGiven(root, c.TimeSetBack))
	}
	for root, c := range records {
		r, ok := reports[root]
		// An untracked file the host runs, changed: git status shows it
		// as it did before.
		run := append(c.HostRun, audit.Untracked(root, c.ChangedRun)...)
		if ok && len(r.IncludesUnspelled) > 0 {
			included, whole := ignoredWritten(root, c, r)
			run = append(run, included...)
			if !whole {
				for _, m := range r.IncludesUnspelled {
					r.NotExamined = append(r.NotExamined, m+": what it includes by a name the audit cannot spell, among the files git ignores the session wrote, which the record could not list in full (it lists "+strconv.Itoa(undo.IgnoredLimit)+" at most)")
				}
				reports[root] = r
			}
		}
		if !ok || len(run) == 0 {
			continue
		}
		for _, p := range run {
			if !slices.Contains(r.Found, p) {
				r.Found = append(r.Found, p)
			}
		}
		slices.Sort(r.Found)
		reports[root] = r
	}
	begun := s.operationsBegun()
	// The tree a stopped operation's conflict wrote (AUTO_MERGE), which
	// git removes as it ends the operation, goes aside with its state.
	stoppedTrees := map[string]bool{}
	for root, r := range reports {
		r.Found = slices.DeleteFunc(r.Found, func(f string) bool {
			return slices.ContainsFunc(begun, func(b string) bool { return paths.Within(f, b) })
		})
		r.Branches = slices.DeleteFunc(r.Branches, func(b string) bool {
			stopped := slices.ContainsFunc(begun, func(op string) bool { return b == autoMergeBeside(op) })
			stoppedTrees[b] = stoppedTrees[b] || stopped
			return stopped
		})
		reports[root] = r
	}
	for _, root := range slices.Sorted(maps.Keys(reopeners)) {
		reopened = append(reopened, reopeners[root].Reopened()...)
	}
	sayGivenBack(said, reopened)
	if len(replaced) > 0 {
		lines := []string{"claudebox: the host replaced protected files while the session ran; the sandbox could have read and written each new file as it was written, before it was renamed into place:"}
		for _, p := range replaced {
			lines = append(lines, "  "+mount.Quote(p))
		}
		lines = append(lines, "hint: if you made the change (git config, git switch, an editor), check each holds only what you wrote, e.g. git config --list --show-origin")
		// Git writes the whole file anew beside it (config.lock), in the
		// git directory the sandbox reads: the copy that hid a token from
		// the sandbox stands only over the file renamed into place.
		if slices.ContainsFunc(s.plan.Guards, func(g mount.Guard) bool { return g.GitConfig && slices.Contains(replaced, g.Path) }) {
			lines = append(lines, "hint: a token a repository's git configuration holds (a remote's https://user:TOKEN@ URL) may have been read: revoke it, and keep it in a credential helper instead")
		}
		for _, l := range lines {
			printable.Say(said, "%s", l)
		}
	}
	s.phases.hold("audit judged")
	built := ignoredWrittenFiles(records)
	for _, root := range slices.Sorted(maps.Keys(reports)) {
		s.report(said, root, dir, reports[root], built)
	}
	direnvAskAgain(said, envrcsWrittenBelow(reports, records), slices.Collect(maps.Keys(reports)))
	deps := map[string]bool{}
	for _, d := range reports[s.plan.Project.Checkout].Deps {
		if filepath.Dir(d.Dir) == s.plan.Project.Checkout {
			deps[filepath.Base(d.Dir)] = true
		}
	}
	named := slices.Clone(reports[s.plan.Project.Checkout].Found)
	for _, d := range reports[s.plan.Project.Checkout].Deps {
		named = append(named, d.Units...)
	}
	sayIgnoredChanges(said, changed, deps, named)
	SayUnwritten(said, audit.Unwritten(s.plan.Project.Checkout, s.plan.Project.GitDir, standIns, since))
	for _, p := range strays {
		s.reportFindings(filepath.Dir(p), dir, []string{p}, nil, nil)
	}
	for _, p := range begun {
		// Said once it is moved aside, in place of the hint to put back
		// what you changed yourself, which a rebase's state is not.
		found := []string{p}
		if stoppedTrees[autoMergeBeside(p)] {
			found = append(found, autoMergeBeside(p))
		}
		s.reportFindings(filepath.Dir(p), dir, found, nil, rebaseWayBack(p))
	}
	if len(s.movedAside) > 0 {
		for _, c := range records {
			undo.NoteMovedAside(s.stateDir, s.plan.Project.Root, c, s.movedAside)
		}
	}
	instance.ForgetStart(dir)
}

// ignoredWrittenFiles are the files git ignores that the sessions made or
// changed in each checkout (records, by checkout), as absolute paths: a
// build's output, as a rule, which a build on the host makes again.
func ignoredWrittenFiles(records map[string]undo.Changes) map[string]bool {
	files := map[string]bool{}
	for root, c := range records {
		for _, p := range c.Paths {
			if p.Ignored && p.Change != "removed" {
				files[filepath.Join(root, p.Path)] = true
			}
		}
	}
	return files
}

// ignoredWritten are the files git ignores that the session made or
// changed in the checkout root (c its record, r its audit), but those in
// the installed dependencies the audit judges: a makefile there includes
// a file by a word the audit cannot spell ($(SRCS:.c=.dep), $(shell …)),
// which may be any of them, and make runs what it says (default-deny).
// whole is false where the record does not list them all.
func ignoredWritten(root string, c undo.Changes, r audit.Report) (found []string, whole bool) {
	for _, p := range c.Paths {
		if !p.Ignored || p.Change == "removed" {
			continue
		}
		path := filepath.Join(root, p.Path)
		if slices.ContainsFunc(r.Deps, func(d audit.DepsChange) bool { return paths.Within(path, d.Dir) }) {
			continue
		}
		if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
			found = append(found, path)
		}
	}
	return found, !c.IgnoredPartial
}

// SayUnwritten names the files git tracks that a checkout could not
// write under a stand-in while the session ran (audit.Unwritten): git
// status shows each deleted, and a git commit -a would commit that.
func SayUnwritten(w io.Writer, missing []string) {
	if len(missing) == 0 {
		return
	}
	printable.Say(w, "claudebox: git tracks what a checkout could not write while claudebox stood in for a missing path, and git status shows it deleted:")
	for i, p := range missing {
		if i == 5 {
			printable.Say(w, "  and %d more", len(missing)-i)
			break
		}
		printable.Say(w, "  %s", mount.Quote(p))
	}
	printable.Say(w, "hint: read git log -p -- PATH, then git checkout HEAD -- PATH writes it; or check the branch out again")
}

// rebasedBranch is the branch a rebase's state (state, a rebase-merge or
// rebase-apply directory the sandbox could write) says it is rebasing,
// when it names one by a plain name (it is printed in a command for the
// user to run) and HEAD is detached, as a stopped rebase leaves it.
func rebasedBranch(state string) string {
	if b := filepath.Base(state); b != "rebase-merge" && b != "rebase-apply" {
		return ""
	}
	if head, err := untrusted.ReadFile(filepath.Dir(state), "HEAD", 1024); err != nil || strings.HasPrefix(string(head), "ref:") {
		return ""
	}
	head, err := untrusted.ReadFile(state, "head-name", 1024)
	if err != nil {
		return ""
	}
	branch, ok := strings.CutPrefix(strings.TrimSuffix(string(head), "\n"), "refs/heads/")
	if !ok || !plainBranch().MatchString(branch) || strings.Contains(branch, "..") {
		return ""
	}
	return branch
}

// rebaseWayBack is what to say of the stopped rebase whose state is at
// state, once that state is moved aside: the branch it found, and the
// way back to it (none where rebasedBranch names none). A rebase that
// put the checkout's uncommitted changes aside (--autostash,
// rebase.autoStash) keeps them in a commit only its state names, which
// git rebase --abort applies again and git switch --discard-changes
// leaves behind.
func rebaseWayBack(state string) []string {
	branch := rebasedBranch(state)
	if branch == "" {
		return nil
	}
	said := fmt.Sprintf("claudebox: the rebase of %s begun while the session ran (inside, or on the host) stopped part way; with its state moved aside, git sees no rebase in progress, HEAD is left detached, and %s is where the rebase found it", branch, branch)
	if fi, err := untrusted.Lstat(state, "autostash"); err == nil && fi.Mode().IsRegular() {
		return []string{said, "hint: the rebase put the checkout's uncommitted changes aside, which only its state names: to end it, put its state back, then git rebase --abort, which applies them again"}
	}
	return []string{said, fmt.Sprintf("hint: git switch --discard-changes %s ends it as git rebase --abort would; to go on with it, put its state back, read its todo, then git rebase --continue", mount.Quote(branch))}
}

// plainBranch is a branch name of the characters a name usually has,
// compiled at first use, not at every claudebox process's start.
var plainBranch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._/+-]*$`) })

// autoMergeBeside is the AUTO_MERGE in the git directory of the
// operation state op: the tree its stop on a conflict wrote into the work
// tree.
func autoMergeBeside(op string) string { return filepath.Join(filepath.Dir(op), "AUTO_MERGE") }

// stoppedOnConflict is the git command of the merge, cherry-pick or
// revert in progress (its head beside it) whose tree ref is the
// AUTO_MERGE at ref, "" where ref is no AUTO_MERGE or none is in
// progress.
func stoppedOnConflict(ref string) string {
	if filepath.Base(ref) != "AUTO_MERGE" {
		return ""
	}
	for _, op := range []struct{ head, command string }{{"MERGE_HEAD", "merge"}, {"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"}} {
		if fi, err := untrusted.Lstat(filepath.Dir(ref), op.head); err == nil && fi.Mode().IsRegular() {
			return op.command
		}
	}
	return ""
}

// operationsBegun lists the state of a git operation (a rebase, am,
// cherry-pick or revert) in the project's git directories that was not
// there at the launch and is there now. Nothing stands in for it while a
// session runs (git reads anything there as an operation in progress), so
// the sandbox could have begun it, or written the todo of one the host
// began, whose exec lines the host's git --continue runs: it is moved
// aside whole, with the command that puts it back.
func (s *Session) operationsBegun() []string {
	var begun []string
	for _, gitDir := range slices.Compact([]string{s.plan.Project.GitDir, s.plan.Project.CommonDir}) {
		for _, op := range mount.GitOperations {
			path := filepath.Join(gitDir, op)
			if gitDir == "" || slices.ContainsFunc(s.plan.Guards, func(g mount.Guard) bool { return g.Path == path }) {
				continue
			}
			if _, err := os.Lstat(path); err == nil {
				begun = append(begun, path)
			}
		}
	}
	return begun
}

// report says what the exit audit found in the checkout root, and moves
// aside what it found.
func (s *Session) report(w io.Writer, root, dir string, r audit.Report, built map[string]bool) {
	for _, p := range r.NotExamined {
		printable.Say(w, "claudebox: the exit audit did not examine %s", p)
	}
	if len(r.Found) > 0 {
		s.reportFindings(root, dir, r.Found, built, nil)
	}
	if len(r.Hidden) > 0 {
		s.showAgain(w, r.Hidden)
	}
	for _, d := range r.Diverged {
		printable.Say(w, "claudebox: git holds for %s, which the host runs, other content than the file the session left as it was: the session staged or committed its own (git status shows the file as modified), which git restore, git stash, a switch of branches or claudebox -w would write", mount.Quote(filepath.Join(d.Repo, d.Path)))
	}
	if len(r.Diverged) > 0 {
		printable.Say(w, "hint: read git diff and git log -p of each before you discard the change or check out the session's commits; git add stages the file as it is")
	}
	branches := slices.DeleteFunc(slices.Clone(r.Branches), func(b string) bool {
		op := stoppedOnConflict(b)
		if op == "" {
			return false
		}
		// Moving it aside would break git diff AUTO_MERGE while the user
		// resolves the conflict: it stays, said for what it is.
		printable.Say(w, "claudebox: %s, the tree of the %s in progress stopped on a conflict, was written while the session ran (inside, or on the host): git diff AUTO_MERGE compares the work tree with it, and git restore -s AUTO_MERGE writes it there", mount.Quote(b), op)
		printable.Say(w, "hint: git diff HEAD shows what the %s changed without it; git %s --abort ends the %s and removes it", op, op, op)
		return true
	})
	if len(branches) > 0 {
		lines := []string{"claudebox: branches, tags or other refs were moved or made while the session ran (inside, or on the host), which git status does not show, and a switch, merge or reset to one writes into the work tree (git switch, git merge origin/main, git reset --hard ORIG_HEAD, git reset --hard HEAD@{1} or git checkout - by a reflog, claudebox -w):"}
		for _, b := range branches {
			lines = append(lines, "  "+mount.Quote(b))
		}
		for _, l := range append(lines, "hint: read git log -p of each before you check it out, merge or push it; git reflog shows where a branch was") {
			printable.Say(w, "%s", l)
		}
	}
	if left, err := audit.ShowAgain(r.Restat, s.indexLocks()); len(left) > 0 {
		for _, line := range strings.Split(err.Error(), "\n") {
			printable.Say(w, "claudebox: could not have git read again the files the session changed, whose status in the index it wrote git takes for their content: %s", line)
		}
		printable.Say(w, "claudebox: git status and git diff may not show what the session changed in:")
		for _, h := range left {
			printable.Say(w, "  %s", mount.Quote(filepath.Join(h.Repo, h.Path)))
		}
		printable.Say(w, "hint: touch each of them, which has git read it again, then read git diff before you run anything in the project")
	}
	if err := audit.DropCaches(r.Caches, s.indexLocks()); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			printable.Say(w, "claudebox: could not drop the index's caches (of trees, of untracked files), which the session wrote and which git status and git commit trust: %s", line)
		}
		printable.Say(w, "hint: in the repository, git update-index --no-untracked-cache and git read-tree HEAD (which drops the other; staged changes are lost), then read git status")
	}
	for _, d := range r.Deps {
		s.reportDeps(root, dir, d)
	}
}

// reportDeps says what the session changed in a directory of installed
// dependencies or of a build, which git ignores and the host runs, and
// moves those packages aside whole, with the one command that makes them
// again.
func (s *Session) reportDeps(root, dir string, d audit.DepsChange) {
	w := &heard{w: os.Stderr}
	rel, err := filepath.Rel(root, d.Dir)
	if err != nil {
		rel = d.Dir
	}
	var names []string
	for _, u := range d.Units[:min(len(d.Units), 5)] {
		names = append(names, strings.TrimPrefix(u, d.Dir+"/"))
	}
	if len(d.Units) > 5 {
		names = append(names, "…")
	}
	where, command := audit.InstallCommand(d.Dir)
	install := "cd " + mount.Quote(where) + " && " + command
	if s.reportOnly {
		printable.Say(w, "claudebox: %s/: %s changed, %s left in place (move-aside = false): %s", rel, printable.Counted(d.Files, "file"), printable.Counted(len(d.Units), "package"), strings.Join(names, ", "))
		printable.Say(w, "hint: the host runs what is installed or built there, and git shows none of it; to make it again from your lockfile or sources (read git diff first): %s", install)
		return
	}
	dest := filepath.Join(s.stateDir, "moved-aside", filepath.Base(dir), time.Now().UTC().Format("20060102T150405.000Z"))
	moved, said, err := moveAside(root, dest, d.Units)
	s.movedAside = append(s.movedAside, moved...)
	// One that dest had no room for was renamed beside itself, where it
	// is named.
	beside := slices.DeleteFunc(slices.Clone(moved), func(m audit.Moved) bool { return strings.HasPrefix(m.To, dest+"/") })
	if len(moved) > len(beside) {
		printable.Say(w, "claudebox: %s/: %s changed, %s moved aside to %s: %s", rel, printable.Counted(d.Files, "file"), printable.Counted(len(moved)-len(beside), "package"), mount.Quote(filepath.Join(dest, rel)), strings.Join(names, ", "))
	} else {
		printable.Say(w, "claudebox: %s/: %s changed, %s: %s", rel, printable.Counted(d.Files, "file"), printable.Counted(len(d.Units), "package"), strings.Join(names, ", "))
	}
	for _, m := range beside {
		printable.Say(w, "  %s: renamed beside it, to a name nothing loads (no room to move it aside): %s", mount.Quote(m.From), mount.Quote(m.To))
	}
	printable.Say(w, "hint: the host runs what is installed or built there, and git shows none of it; to make it again from your lockfile or sources (read git diff first): %s", install)
	// Said to a closed terminal, it is said again by the next command.
	if !w.failed {
		said()
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			printable.Say(w, "claudebox: left in place, could not move it aside: %s", line)
		}
	}
}

// indexLocks records git's lock on each index the exit audit rewrites
// while it holds it, for the next command to remove if the supervisor is
// killed meanwhile (SweepIndexLocks).
func (s *Session) indexLocks() audit.IndexLocks {
	return audit.IndexLocks{Dir: indexLocksDir(s.stateDir), Held: func() { s.phases.hold("index locked") }}
}

func indexLocksDir(stateDir string) string { return filepath.Join(stateDir, "index-locks") }

// SweepIndexLocks removes git's lock (index.lock) that a supervisor killed
// while its exit audit rewrote an index left, and returns their paths.
func SweepIndexLocks(stateDir string) []string { return audit.SweepIndexLocks(indexLocksDir(stateDir)) }

// showAgain clears the index flags with which the session hid its changes
// to tracked files from git status and git diff, and names the files; those
// it cannot show again are named with the commands that do.
func (s *Session) showAgain(w io.Writer, hidden []audit.Hidden) {
	left, err := audit.ShowAgain(hidden, s.indexLocks())
	if len(left) < len(hidden) {
		printable.Say(w, "claudebox: the session hid its changes to these files from git status and git diff (assume-unchanged or skip-worktree); git shows them again:")
		for _, h := range hidden {
			if !slices.ContainsFunc(left, func(l audit.Hidden) bool { return l.Repo == h.Repo && l.Path == h.Path }) {
				printable.Say(w, "  %s", mount.Quote(filepath.Join(h.Repo, h.Path)))
			}
		}
	}
	if len(left) > 0 {
		for _, line := range strings.Split(err.Error(), "\n") {
			printable.Say(w, "claudebox: could not show hidden changes again: %s", line)
		}
		printable.Say(w, "claudebox: the session hid its changes to these files from git status and git diff (assume-unchanged or skip-worktree):")
		for _, h := range left {
			printable.Say(w, "  %s", mount.Quote(filepath.Join(h.Repo, h.Path)))
			var cmds []string
			for _, f := range h.Flags {
				cmds = append(cmds, "git -C "+mount.Quote(h.Repo)+" update-index "+f+" -- "+mount.Quote(h.Path))
			}
			printable.Say(w, "    to show them again: %s", strings.Join(cmds, " && "))
		}
	}
	printable.Say(w, "hint: read what each now holds (git diff) before you run anything in the project")
}

// reportFindings moves what the exit audit found aside, into claudebox's
// state where the sandbox never reaches, and names each with the command
// that puts it back; with move-aside = false it only names them. built
// are the files git ignores that the session wrote (ignoredWrittenFiles);
// instead, if not nil, is said in place of the hint once they are moved.
func (s *Session) reportFindings(root, dir string, found []string, built map[string]bool, instead []string) {
	// The walk may have seen a stand-in the cleanup beside it was
	// removing, under its aside name (untrusted.RemoveIf): gone once the
	// cleanup ended, it is no finding to name, nor one to make a folder
	// for in moved-aside, which stayed there empty (and --move left it
	// under the old root's hash).
	found = slices.DeleteFunc(slices.Clone(found), func(p string) bool { return goneFrom(root, p) })
	if len(found) == 0 {
		return
	}
	w := &heard{w: os.Stderr}
	if s.reportOnly {
		printable.Say(w, "claudebox: the session left what the host would run or obey (left in place, move-aside = false):")
		for _, p := range found {
			printable.Say(w, "  %s", mount.Quote(p))
			s.sayWhy(w, p, p)
		}
		printable.Say(w, "hint: read each before your tools run it; the host runs these in place")
		return
	}
	dest := filepath.Join(s.stateDir, "moved-aside", filepath.Base(dir), time.Now().UTC().Format("20060102T150405.000Z"))
	moved, said, err := moveAside(root, dest, found)
	s.phases.hold("moved aside")
	s.movedAside = append(s.movedAside, moved...)
	if len(moved) > 0 {
		s.sayMoved(w, root, dest, moved, built, instead)
	}
	if !w.failed {
		said()
	}
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			printable.Say(w, "claudebox: left in place, could not move it aside: %s", line)
		}
	}
}

// goneFrom says nothing is at path, beneath root, or at a directory above
// it, reached without a symlink.
func goneFrom(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	_, err = untrusted.Lstat(root, rel)
	return errors.Is(err, fs.ErrNotExist)
}

// listedPerDir is how many of what was moved aside from one directory of
// the project's top (a build's dist/, a tool's cache) are named one by
// one; past it, the directory is named with their count.
const listedPerDir = 5

// sayMoved names what was moved aside from root into dest, each with the
// command that puts it back; past listedPerDir in one directory of the
// project's top, that directory with their count, and a script beside
// dest that puts every one back. What the host obeys by its name (a .env)
// is always named. Of built (ignoredWrittenFiles), a build's output as a
// rule, the hint says to build again: put back, the session's would run.
// instead, if not nil, is said in place of the hint.
func (s *Session) sayMoved(w io.Writer, root, dest string, moved []audit.Moved, built map[string]bool, instead []string) {
	dirOf := func(m audit.Moved) string {
		rel, err := filepath.Rel(dest, m.To)
		dir, _, nested := strings.Cut(rel, "/")
		// One renamed beside itself (dest had no room) is named alone.
		if err != nil || !nested || !filepath.IsLocal(rel) || audit.Obeys(s.plan.ObeyedNames, filepath.Base(m.From), false) {
			return ""
		}
		return dir
	}
	inDir := map[string]int{}
	for _, m := range moved {
		inDir[dirOf(m)]++
	}
	printable.Say(w, "claudebox: moved aside what the session left that the host would run or obey:")
	counted := map[string]bool{}
	// The script is sh's, which has no $'...' (dash): a name is quoted
	// whole, its newlines and control characters as they are.
	shQuote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	var script strings.Builder
	script.WriteString("#!/bin/sh\n# Puts back what claudebox moved aside from " + mount.Quote(root) + ".\n")
	for _, m := range moved {
		script.WriteString("mv -n " + shQuote(m.To) + " " + shQuote(m.From) + "\n")
		if dir := dirOf(m); dir != "" && inDir[dir] > listedPerDir {
			if !counted[dir] {
				counted[dir] = true
				printable.Say(w, "  %s/: %d files", mount.Quote(filepath.Join(root, dir)), inDir[dir])
			}
			continue
		}
		printable.Say(w, "  %s", mount.Quote(m.From))
		s.sayWhy(w, m.From, m.To)
		printable.Say(w, "    to put it back: mv -n %s %s", mount.Quote(m.To), mount.Quote(m.From))
	}
	if len(counted) > 0 {
		putBack := dest + ".put-back.sh"
		if err := untrusted.WriteFile(filepath.Dir(putBack), filepath.Base(putBack), []byte(script.String()), 0o600); err == nil {
			printable.Say(w, "    to put every one back: sh %s", mount.Quote(putBack))
		} else {
			printable.Say(w, "    each is in %s, where it was in the project", mount.Quote(dest))
		}
	}
	if instead != nil {
		for _, line := range instead {
			printable.Say(w, "%s", line)
		}
		return
	}
	// A stash the session left holds the checkout's uncommitted changes
	// as its git stash found them, the user's own among them: its own
	// hint says how to have them, the others' the rest.
	rest := slices.DeleteFunc(slices.Clone(moved), func(m audit.Moved) bool { return stashFile(m.From) })
	if len(rest) < len(moved) {
		defer printable.Say(w, "hint: the stash holds what git stash took from the checkout, your uncommitted changes among them, and any stash you had before: put both back, then read git stash show -p --include-untracked before git stash pop, which writes it into the work tree")
	}
	// git's indexes of its objects, which only speed it up, git makes
	// again: a git gc or git maintenance of the host's beside a session
	// writes them too, and no one reads or puts back a binary file.
	n := len(rest)
	rest = slices.DeleteFunc(rest, func(m audit.Moved) bool { return gitObjectIndex(m.From) })
	if len(rest) < n {
		defer printable.Say(w, "hint: git works without a commit-graph, multi-pack-index, bitmap or reverse index, which only speed it up, and makes them again at its next git gc (git commit-graph write --reachable at once); a git gc or git maintenance of yours during the session writes them too")
	}
	if len(rest) == 0 {
		return
	}
	moved = rest
	var output []string
	for _, m := range moved {
		if built[m.From] && !audit.Obeys(s.plan.ObeyedNames, filepath.Base(m.From), false) {
			rel, _ := filepath.Rel(root, m.From)
			output = append(output, mount.Quote(rel))
		}
	}
	them := "them"
	if len(output) == 1 {
		them = "it"
	}
	rebuild := "as it does what a build or an install makes: to have " + them + " again, make " + them + " on the host as the session did (make, npm run build, python3 -m venv)"
	switch {
	case len(output) == 0:
		printable.Say(w, "hint: if you changed one yourself during the session, put it back; otherwise read it first")
	case len(output) == len(moved) && len(moved) == 1:
		printable.Say(w, "hint: git ignores it, %s; put it back only if you changed it yourself during the session, or have read it", rebuild)
	case len(output) == len(moved):
		printable.Say(w, "hint: git ignores these, %s; put back only one you changed yourself during the session, or have read", rebuild)
	default:
		named := strings.Join(output[:min(len(output), 3)], ", ")
		if len(output) > 3 {
			named += " and " + printable.Count(len(output)-3) + " more"
		}
		printable.Say(w, "hint: git ignores %s, %s", named, rebuild)
		printable.Say(w, "hint: if you changed one of the others yourself during the session, put it back; otherwise read it first")
	}
}

// stashFile says whether path is a git directory's stash, refs/stash or
// its reflog, logs/refs/stash.
func stashFile(path string) bool {
	refs := filepath.Dir(path)
	return filepath.Base(path) == "stash" && filepath.Base(refs) == "refs" &&
		(filepath.Base(filepath.Dir(refs)) == "logs" || paths.Exists(filepath.Join(filepath.Dir(refs), "HEAD")))
}

// gitObjectIndex says whether path is one of a git directory's indexes
// of its objects: objects/info/commit-graph, a file of
// objects/info/commit-graphs, objects/pack/multi-pack-index (a file of
// objects/pack/multi-pack-index.d, git 2.47's layers of it), a bitmap or
// a reverse index of a pack or of the multi-pack index.
func gitObjectIndex(path string) bool {
	dir, name := filepath.Dir(path), filepath.Base(path)
	above := filepath.Base(filepath.Dir(dir))
	switch filepath.Base(dir) {
	case "info":
		return above == "objects" && (name == "commit-graph" || name == "commit-graphs")
	case "commit-graphs":
		return above == "info"
	case "multi-pack-index.d":
		return above == "pack"
	case "pack":
		return above == "objects" && (name == "multi-pack-index" || name == "multi-pack-index.d" ||
			(strings.HasPrefix(name, "pack-") || strings.HasPrefix(name, "multi-pack-index-")) && (strings.HasSuffix(name, ".bitmap") || strings.HasSuffix(name, ".rev")))
	}
	return false
}

// sayWhy says why a finding named as in the plan's ObeyedNames, now at
// path, is one: it is no file a guard could stand for, nor one anyone
// expects the host to obey. A .env's keys that are not known harmless are
// named.
func (s *Session) sayWhy(w io.Writer, p, path string) {
	if !audit.Obeys(s.plan.ObeyedNames, filepath.Base(p), false) {
		return
	}
	what := "it"
	if b, err := untrusted.ReadFile("/", strings.TrimPrefix(path, "/"), 1<<20); err == nil {
		if keys := audit.HarmfulDotenvKeys(b); len(keys) > 0 {
			what = "what it sets (" + strings.Join(keys[:min(len(keys), 5)], ", ")
			if len(keys) > 5 {
				what += ", …"
			}
			what += ")"
		} else if line := audit.DotenvRunsAt(b); line > 0 {
			printable.Say(w, "    a script that sources it or a makefile that includes it runs its line %d, which is more than a name and a plain value", line)
			return
		}
	}
	printable.Say(w, "    the host's tools that load a .env where they start (gemini, direnv's dotenv, docker compose, pipenv, bun) take %s into their environment (a variable a program obeys can send your key elsewhere or run commands; only an application's own settings stay)", what)
}

// statusOf is the exit status a shell would report for the process.
func statusOf(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// ExitCode ends claudebox with the sandbox's status, saying nothing: what
// ran inside has said what it had to.
type ExitCode int

func (e ExitCode) Error() string { return "exit status " + strconv.Itoa(int(e)) }

// CloseInheritedOnExec marks every descriptor beyond stdio close-on-exec:
// the shell that started claudebox may have left some open (exec
// 7<~/.ssh/id_ed25519), and no child of claudebox is to inherit them.
func CloseInheritedOnExec() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// timeGiven gives each tracked file or link of paths (in the checkout
// root) that the session changed and then set its modification time back
// the exit's time instead, and returns those it gave it. The host's git
// takes an entry for unchanged while the file's size and modification
// time match the index's (where its user turned off core.trustctime, or
// set core.checkStat minimal, also its status change time): a script
// rewritten with as many bytes and its old time put back (touch -r) was
// shown by neither git status nor git diff. Only the time changes; an
// untracked file git status lists as new whatever its time.
func timeGiven(root string, paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	untracked := map[string]bool{}
	for _, p := range audit.Untracked(root, paths) {
		untracked[p] = true
	}
	var given []string
	// Each directory is opened once for the files of it that follow
	// one another (paths are sorted).
	var dir *os.File
	defer func() {
		if dir != nil {
			dir.Close()
		}
	}()
	now := []unix.Timespec{{Nsec: unix.UTIME_OMIT}, {Nsec: unix.UTIME_NOW}}
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil || !filepath.IsLocal(rel) || untracked[p] {
			continue
		}
		if dir == nil || dir.Name() != filepath.Join(root, filepath.Dir(rel)) {
			if dir != nil {
				dir.Close()
			}
			if dir, err = untrusted.OpenDir(root, filepath.Dir(rel)); err != nil {
				continue
			}
		}
		if unix.UtimesNanoAt(int(dir.Fd()), filepath.Base(rel), now, unix.AT_SYMLINK_NOFOLLOW) == nil {
			given = append(given, p)
		}
	}
	return given
}

// sayTimeGiven names, ten at most, the tracked files whose modification
// time the session had set back and the exit gave its own.
func sayTimeGiven(w io.Writer, given []string) {
	const named = 10
	for i, p := range given {
		if i == named {
			printable.Say(w, "claudebox: and %d more tracked files whose modification time the session had set back", len(given)-named)
			return
		}
		printable.Say(w, "claudebox: the session changed %s and set its modification time back, which can hide the change from git status: it now has the exit's", mount.Quote(p))
	}
}
