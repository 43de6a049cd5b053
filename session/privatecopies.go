package session

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/probe"
)

// privateCopy is a file Claude Code saves (its settings, CLAUDE.md,
// .mcp.json) that the sandbox gets a private copy of: what the copy held
// at the start, and the copy itself, open from the supervisor so that
// what the session saved there can be read once it is over, and named as
// lost.
type privateCopy struct {
	dest  string
	given []byte
	file  *os.File
}

// maxCopy bounds what is read back of a copy; a larger one is named as
// changed, and nothing in it is carried.
const maxCopy = 1 << 20

// openCopies opens each private copy through the sandbox's first process
// pid, once bwrap has made its mounts and before the sandbox runs
// anything: each copy is then bwrap's file at its mount point. Opened
// read-only and never followed through a symlink; one that cannot be
// opened is not named at the end.
func (s *Session) openCopies(pid int) {
	root := "/proc/" + strconv.Itoa(pid) + "/root"
	for _, c := range s.copies {
		fd, err := unix.Open(root+c.dest, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			c.file = os.NewFile(uintptr(fd), c.dest)
		}
	}
	if s.plan.Instance == "" {
		return
	}
	dir := filepath.Join(s.plan.Home, ".claude")
	if fd, err := unix.Open(root+dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
		s.claudeDir = os.NewFile(uintptr(fd), dir)
	}
}

// madeInClaudeDir are the entries the session made in its own ~/.claude,
// lost with it, and how many are not Claude Code's configuration: that
// configuration where the host had none (/memory's user memory, /agents'
// personal agent), and what else a hook's script or the session wrote
// there (a hook's log), but Claude Code's own state, empty directories
// and what the launch already named as a hook's. The tmpfs outlives the
// sandbox while it is open.
func (s *Session) madeInClaudeDir() (made []string, other int) {
	if s.claudeDir == nil {
		return nil, 0
	}
	defer s.claudeDir.Close()
	var config []string
	s.madeIn(s.claudeDir, 0, &config, &made)
	return append(config, made...), len(made)
}

// maxLostNamed bounds the lines naming what the session's end discards:
// the sandbox chooses how many files it makes in its ~/.claude, and a
// thousand lines pushed the rest of the end out of sight.
const maxLostNamed = 20

// maxMadeDepth bounds how deep madeIn goes into the directories bwrap
// made for the mounts in ~/.claude (hooks/ for a hook's script);
// maxMadeEntries, the entries it reads of each.
const (
	maxMadeDepth   = 4
	maxMadeEntries = 1000
)

// madeIn adds what the session made in dir, of the sandbox's ~/.claude,
// depth directories below it, to config where it is Claude Code's
// configuration (named first), to other where not.
func (s *Session) madeIn(dir *os.File, depth int, config, other *[]string) {
	entries, _ := dir.ReadDir(maxMadeEntries)
	for _, e := range entries {
		name := e.Name()
		path := filepath.Join(dir.Name(), name)
		if depth == 0 && (name == "plugins" || probe.ClaudeState(name)) ||
			slices.ContainsFunc(s.plan.Mounts, func(m mount.Mount) bool { return m.Dest == path }) ||
			slices.ContainsFunc(s.plan.HookOutputs, func(o mount.HookOutput) bool { return paths.Within(path, o.Path) }) {
			continue
		}
		if slices.ContainsFunc(s.plan.Mounts, func(m mount.Mount) bool { return paths.Within(m.Dest, path) }) {
			if depth < maxMadeDepth && e.IsDir() {
				if fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err == nil {
					sub := os.NewFile(uintptr(fd), path)
					s.madeIn(sub, depth+1, config, other)
					sub.Close()
				}
			}
			continue
		}
		// An empty directory holds nothing lost (Claude Code's /config
		// and /sandbox make some of their own).
		if e.IsDir() && emptyDir(dir, name) {
			continue
		}
		if depth == 0 && probe.ClaudeConfig(name) {
			*config = append(*config, mount.Quote(path)+" (made in the sandbox's own ~/.claude, where the launch found none)")
			continue
		}
		*other = append(*other, mount.Quote(path)+" (made in the sandbox's own ~/.claude, not in yours)")
	}
}

// emptyDir says whether the directory name in dir holds no entry.
func emptyDir(dir *os.File, name string) bool {
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	names, _ := f.Readdirnames(1)
	return len(names) == 0
}

// readBack returns what the copy holds now, and false when it cannot say
// (not a regular file, too large, unreadable): the sandbox wrote it.
func (c *privateCopy) readBack() ([]byte, bool) {
	fi, err := c.file.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCopy {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(io.NewSectionReader(c.file, 0, maxCopy+1), maxCopy+1))
	if err != nil || len(data) > maxCopy {
		return nil, false
	}
	return data, true
}

// sayLostSaves names, once the sandbox is over, each private copy the
// session saved into, which is now discarded; the permission rules added
// to a settings file's copy wait for claudebox --keep-permissions, which
// shows them and carries those the user confirms.
func (s *Session) sayLostSaves() {
	var lost []string
	var rules []claudesettings.Rule
	mcpAnswered := 0
	for _, c := range s.copies {
		if c.file == nil {
			continue
		}
		now, ok := c.readBack()
		c.file.Close()
		if ok && bytes.Equal(now, c.given) {
			continue
		}
		line := mount.Quote(c.dest)
		if ok && claudesettings.IsSettings(c.dest) {
			if added := claudesettings.AddedRules(c.dest, c.given, now); len(added) > 0 {
				rules = append(rules, added...)
				line += " (" + rulesCount(len(added)) + ": claudebox --keep-permissions)"
			}
			if claudesettings.MCPAnswerChanged(c.given, now) {
				mcpAnswered++
				line += " (your answer to the project's MCP servers)"
			}
		}
		lost = append(lost, line)
	}
	made, other := s.madeInClaudeDir()
	lost = append(lost, made...)
	if len(lost) == 0 {
		return
	}
	printable.Say(os.Stderr, "claudebox: the session saved into private copies, discarded now:")
	for i, l := range lost {
		if i == maxLostNamed {
			printable.Say(os.Stderr, "  and %d more", len(lost)-i)
			break
		}
		printable.Say(os.Stderr, "  %s", l)
	}
	if other > 0 {
		printable.Say(os.Stderr, "hint: what a hook writes in ~/.claude stays in the sandbox; to keep it, have the hook write to a directory you bind with --bind DIR")
	}
	if mcpAnswered > 0 {
		// Not carried out: the sandbox writes the copy, and the host's
		// claude would start what an approval names.
		printable.Say(os.Stderr, "hint: to be asked no more, answer on the host, in the project's .claude/settings.local.json (\"enabledMcpjsonServers\": [\"NAME\"], as claude writes it), which each session reads")
	}
	// What a hook wrote and an answer to the MCP servers have their own
	// hints: "make the change on the host" of a hook's log is no way to
	// keep it.
	if len(rules) == 0 && len(lost) == other+mcpAnswered {
		return
	}
	if len(rules) > 0 {
		if err := claudesettings.AddPending(s.stateDir, s.plan.Instance, rules); err != nil {
			printable.Say(os.Stderr, "claudebox: cannot keep the permission rules for --keep-permissions: %v", err)
		}
		printable.Say(os.Stderr, "hint: claudebox --keep-permissions here shows the permission rules and adds those you confirm to your settings; make other changes on the host")
		return
	}
	printable.Say(os.Stderr, "hint: make the change on the host to keep it")
}

func rulesCount(n int) string {
	if n == 1 {
		return "1 permission rule"
	}
	return strconv.Itoa(n) + " permission rules"
}
