package undo

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
)

// gitCompared are the files of a checkout whose change the host's git
// status shows whatever it is, so the exit's walk need not read their
// statuses (what it did to them is not for the exit to judge): the
// entries of an index nothing wrote during the session (audit.GitCompares),
// where the user's git compares each file's status change time (the
// default: core.trustctime on, core.checkStat not minimal, no
// core.ignoreStat, no core.fsmonitor, which may miss a change). Any change
// to such a file (its bytes, its mode, its times) is a change of that
// time, which nothing can set back, so git reads it again. nil: none.
type gitCompared = *audit.Compared

// comparedOf are the files of p's checkout the host's git compares
// (gitCompared), nil where they are not known or the index is small
// (comparedAskFrom); done, called once the walk
// no longer uses them, releases them.
//
// A large index's are kept in the store for the next exit, with the
// index's status (audit.IndexStatus): an index of the same status is the
// same bytes (any write changes its status change time, which no one can
// set back, and a file renamed over it is another inode, or one made
// later), so its files are those kept, read in place rather than parsed
// again out of the index (a million entries: 80 MB, 0.4 s of processor
// time at each exit). Only where the index lies on the store's
// filesystem, whose status change times are compared to the nanosecond
// (as the record of directories is).
func (st store) comparedOf(p instance.Project, since time.Time) (c gitCompared, done func()) {
	done = func() {}
	if p.GitDir == "" {
		return nil, done
	}
	now, ok := audit.IndexNow(p.GitDir, since)
	if !ok || now.Size < comparedAskFrom || !statusCompared(p.GitDir) {
		return nil, done
	}
	var store unix.Stat_t
	keep := now.Size >= comparedKeptFrom && unix.Stat(st.dir, &store) == nil && store.Dev == now.Dev
	path := filepath.Join(st.dir, comparedName(p.Checkout))
	if keep {
		if kept, mapped, ok := readCompared(path, now); ok {
			return &kept, func() { unix.Munmap(mapped) }
		}
	}
	read, status, ok := audit.GitCompares(p.GitDir, since)
	if !ok {
		return nil, done
	}
	if keep && status == now {
		done = func() {
			atomicfile.WriteFrom(path, 0o600, false, func(w io.Writer) error {
				_, err := w.Write(read.AppendTo(appendIndexStatus([]byte(comparedMagic), status)))
				return err
			})
		}
	}
	return &read, done
}

// comparedAskFrom is the size of an index whose files the exit asks the
// user's git how it compares (statusCompared): a smaller one (about 50
// entries) holds fewer statuses than the walk reads in a millisecond, and
// that git is a process of its own at every exit (130 page faults, 10 ms
// of a one-file session's exit on the 2-core machine); its files' statuses
// are all read. (The tests of kept records ask at every size.)
var comparedAskFrom int64 = 4 << 10

// comparedMagic begins the store's record of an index's compared files;
// then the index's status (audit.IndexStatus: four 8-byte numbers), and
// the files (audit.Compared.AppendTo). Its length keeps those 4-byte
// aligned.
const comparedMagic = "claudebox compared 1\n\x00\x00\x00"

// comparedKeptFrom is the size of an index whose compared files are kept:
// a smaller one (10,000 entries) is parsed in a few milliseconds. (The
// tests keep every index's.)
var comparedKeptFrom int64 = 1 << 20

// comparedName is the record of checkout's index's compared files in its
// project's store.
func comparedName(checkout string) string { return instance.Hash(checkout) + ".compared" }

// appendIndexStatus appends s to b as readCompared reads it.
func appendIndexStatus(b []byte, s audit.IndexStatus) []byte {
	for _, v := range []uint64{s.Dev, s.Ino, uint64(s.Ctime), uint64(s.Size)} {
		b = binary.NativeEndian.AppendUint64(b, v)
	}
	return b
}

// readCompared maps the record at path, and gives the files it holds if
// it was kept for an index of the status now; mapped is to be unmapped
// once they are no longer used.
func readCompared(path string, now audit.IndexStatus) (c audit.Compared, mapped []byte, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return c, nil, false
	}
	defer f.Close()
	head := len(comparedMagic) + 4*8
	var sx unix.Stat_t
	if unix.Fstat(int(f.Fd()), &sx) != nil || sx.Size < int64(head) || sx.Size > comparedLimit {
		return c, nil, false
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(sx.Size), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return c, nil, false
	}
	if string(data[:len(comparedMagic)]) == comparedMagic && string(appendIndexStatus(nil, now)) == string(data[len(comparedMagic):head]) {
		if c, ok = audit.ComparedFrom(data[head:]); ok {
			return c, data, true
		}
	}
	unix.Munmap(data)
	return c, nil, false
}

// comparedLimit bounds the record read: the paths of an index within
// audit's bound, and their ends.
const comparedLimit = 512 << 20

// configLimit bounds the git that reads the user's configuration.
const configLimit = 5 * time.Second

// statusCompared says whether the user's git, in the repository of gitDir,
// takes a file whose status change time differs from its index entry's
// for one to read again: none of the settings that make it trust less
// (or ask a monitor instead) is set otherwise than by default.
func statusCompared(gitDir string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), configLimit)
	defer cancel()
	c := exec.CommandContext(ctx, "git", "--git-dir="+gitDir, "config", "--get-regexp", `^core\.(trustctime|checkstat|ignorestat|fsmonitor)$`)
	c.Dir = "/"
	c.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	// Apart from the terminal's signals, as the store's gits (gitTo).
	c.SysProcAttr = &unix.SysProcAttr{Setpgid: true}
	out, err := c.Output()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return true // none is set
	}
	if err != nil {
		return false
	}
	// The last of each is git's.
	last := map[string]string{}
	for line := range strings.Lines(string(out)) {
		key, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		last[key] = value
	}
	for key, value := range last {
		switch {
		case key == "core.trustctime" && gitconfig.IsTrue(value):
		case key == "core.checkstat" && strings.EqualFold(value, "default"):
		case (key == "core.ignorestat" || key == "core.fsmonitor") && isFalse(value):
		default:
			return false
		}
	}
	return true
}

// isFalse says whether a git boolean's value is false.
func isFalse(value string) bool {
	return slices.Contains([]string{"false", "no", "off", "0"}, strings.ToLower(value))
}
