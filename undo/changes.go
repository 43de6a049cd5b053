package undo

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// What a session created, changed and removed in its checkout, ignored
// files included, is recorded at its end (claudebox --changes): the files
// git sees from the snapshot its start took (compared by content), the
// ignored ones from the list of them the start took (by their status
// change). The record lies in the store, which no sandbox sees.

// IgnoredLimit bounds the ignored paths a record lists; the rest are
// counted. An install writes thousands.
const IgnoredLimit = 10_000

// ignoredStartLimit bounds the ignored paths the start lists: past it, one
// the session removed is not known, and one it changed is taken for made.
const ignoredStartLimit = 200_000

// walkLimit bounds the entries the end reads; namesLimit, the bytes of
// their paths, which it holds (a tree of long names has them a kilobyte
// each); a directory's path is bounded as the exit audit's walk bounds it.
const (
	walkLimit  = 2_000_000
	namesLimit = 256 << 20
)

// Changes is what a session did to its checkout's files, as --changes
// --json prints it.
type Changes struct {
	Checkout string `json:"checkout"`
	// Started is when the session's start took its snapshot; Ended, when
	// the record was made.
	Started time.Time    `json:"started"`
	Ended   time.Time    `json:"ended"`
	Paths   []PathChange `json:"changes"`
	// IgnoredLeftOut counts the ignored paths past IgnoredLimit.
	IgnoredLeftOut int `json:"ignored_left_out"`
	// Unknown are the files the session may have written before its
	// snapshot read them.
	Unknown []string `json:"unknown"`
	// Incomplete says what the record could not know, one line each.
	Incomplete []string `json:"incomplete"`
	// Top counts, per top-level directory, the ignored paths below it the
	// session created, changed or removed.
	Top map[string]int `json:"-"`
	// HostRun are the ignored files there at the start, which the session
	// changed, that the host runs, and the links made in place of a
	// directory above one: what git shows nothing of, run as the user's
	// own (absolute paths).
	HostRun []string `json:"-"`
}

// PathChange is one path, relative to the checkout: Change is created,
// changed or removed; Ignored, that git ignores it.
type PathChange struct {
	Path    string `json:"path"`
	Change  string `json:"change"`
	Ignored bool   `json:"ignored"`
}

// changesName is the record's file in the store, one per checkout.
func changesName(checkout string) string { return instance.Hash(checkout) + ".changes" }

// ReadChanges reads the record of the last session of checkout in project
// root.
func ReadChanges(stateDir, root, checkout string) (Changes, error) {
	var c Changes
	b, err := os.ReadFile(filepath.Join(storeOf(stateDir, root).dir, changesName(checkout)))
	if err != nil {
		return c, err
	}
	err = json.Unmarshal(b, &c)
	return c, err
}

// ErrNoStartSnapshot is RecordChanges' error for a session whose start
// took no snapshot: routine for a session shorter than the snapshot of a
// large checkout, which --changes says, not the exit.
var ErrNoStartSnapshot = errors.New("the session's start took no snapshot to compare with (it ended before the snapshot was written, or git could not read the checkout)")

// RecordChanges records what the session that began at began did to the
// checkout of p: from the latest snapshot taken before it began, against
// the checkout as it is now. skip are the launch's stand-ins, left out. It
// replaces the record of an earlier session, also when it cannot compare.
func RecordChanges(stateDir string, p instance.Project, began time.Time, skip []string) (Changes, error) {
	st := storeOf(stateDir, p.Root)
	c := Changes{Checkout: p.Checkout, Ended: time.Now().UTC(), Paths: []PathChange{}, Unknown: []string{}, Incomplete: []string{}, Top: map[string]int{}}
	err := st.changes(p.Checkout, began, skip, &c)
	if err != nil {
		c.Incomplete = append(c.Incomplete, err.Error())
	}
	b, merr := json.MarshalIndent(c, "", "  ")
	if merr != nil {
		return c, merr
	}
	if werr := atomicfile.Write(filepath.Join(st.dir, changesName(p.Checkout)), append(b, '\n'), 0o600); werr != nil {
		return c, werr
	}
	return c, err
}

func (st store) changes(checkout string, began time.Time, skip []string, c *Changes) error {
	// The session's own is the newest taken before it began (a later
	// one is a later session's, overlapping it); one still pending, or
	// of an older claudebox that did not say when it began, is none.
	var s *Snapshot
	for _, cand := range st.list(checkout) {
		if !cand.Since.After(began) {
			s = &cand
			break
		}
	}
	// Without the start's files nothing tells a file the session changed
	// from one it made: each executable or script it wrote is taken for
	// one the host runs.
	// (Of those, git shows the ones it does not ignore; its rules are read
	// without the objects, unless a .gitignore would hold git.)
	failClosed := func(err error) error {
		now, _ := walkCheckout(checkout, skip)
		var wrote []string
		for _, path := range slices.Sorted(mapKeys(now.files)) {
			if !now.files[path].ctime.Before(began) && now.hostRun(checkout, path) {
				wrote = append(wrote, path)
			}
		}
		ignored, ierr := map[string]bool{}, errors.New("")
		if now.oddIgnore == "" && len(wrote) > 0 {
			ignored, ierr = st.ignoredOf(checkout, wrote)
		}
		for _, path := range wrote {
			if ierr != nil || ignored[path] {
				c.HostRun = append(c.HostRun, filepath.Join(checkout, path))
			}
		}
		return err
	}
	if s == nil || s.Pending || s.Since.IsZero() {
		return failClosed(ErrNoStartSnapshot)
	}
	// git would wait forever on a FIFO among the objects it reads (the
	// project's, through the store's alternates).
	if path := st.waiting(); path != "" {
		return failClosed(errors.New("git would wait forever to read " + path + ", which is not a file (a FIFO a session left)"))
	}
	c.Started = s.Taken.UTC()
	c.Unknown = append(c.Unknown, s.Unknown...)
	tracked, err := st.listing(*s)
	if err != nil {
		return failClosed(err)
	}
	ignored, limited := st.ignoredAtStart(s.ID)
	if ignored == nil {
		c.Incomplete = append(c.Incomplete, "the start listed no ignored files: those the session removed are not known")
	} else if limited {
		c.Incomplete = append(c.Incomplete, "the start listed only the first 200,000 ignored files: those past them the session removed are not known")
	}
	now, walkErr := walkCheckout(checkout, skip)
	if walkErr != nil {
		c.Incomplete = append(c.Incomplete, walkErr.Error())
	}
	unknown := map[string]bool{}
	for _, u := range s.Unknown {
		unknown[u] = true
	}
	atStart := make(map[string]bool, len(ignored))
	for _, path := range ignored {
		atStart[path] = true
	}
	// Whether what the session made is ignored: git's own rules, read by
	// git on the store, for those paths alone. git would wait forever on a
	// .gitignore that is a FIFO: then it is not asked.
	var made []string
	for _, path := range slices.Sorted(mapKeys(now.files)) {
		if _, ok := tracked[path]; !ok && !atStart[path] && !unknown[path] && !now.files[path].ctime.Before(began) {
			made = append(made, path)
		}
	}
	ignoredNow := map[string]bool{}
	ignoredKnown := false
	switch {
	case len(made) == 0:
	case now.oddIgnore != "":
		c.Incomplete = append(c.Incomplete, "whether the files the session made are ignored is not known: "+now.oddIgnore+" is not a regular file")
	default:
		if ignoredNow, err = st.ignoredOf(checkout, made); err != nil {
			c.Incomplete = append(c.Incomplete, "whether the files the session made are ignored is not known: "+err.Error())
		} else {
			ignoredKnown = true
		}
	}
	listed := 0
	add := func(path, change string, ign bool) {
		if ign {
			if top, _, ok := strings.Cut(path, "/"); ok {
				c.Top[top]++
			}
			if listed >= IgnoredLimit {
				c.IgnoredLeftOut++
				return
			}
			listed++
		}
		c.Paths = append(c.Paths, PathChange{Path: path, Change: change, Ignored: ign})
	}
	since := began
	var candidates []string
	for _, path := range slices.Sorted(mapKeys(tracked)) {
		st, ok := now.files[path]
		switch {
		case !ok && !now.skipped(path):
			add(path, "removed", false)
		case ok && !st.ctime.Before(since):
			candidates = append(candidates, path)
		}
	}
	sizes, err := st.sizes(checkout, tracked, candidates)
	if err != nil {
		c.Incomplete = append(c.Incomplete, "the sizes of the start's files are not known: a tracked file the session touched is listed as changed")
	}
	for _, path := range candidates {
		e := tracked[path]
		e.size = sizes[e.oid]
		if same, _ := matches(checkout, path, e, store{}); !same {
			add(path, "changed", false)
		}
	}
	linked := map[string]bool{}
	for _, path := range ignored {
		st, ok := now.files[path]
		if ok && !st.ctime.Before(since) && now.hostRun(checkout, path) {
			c.HostRun = append(c.HostRun, filepath.Join(checkout, path))
		}
		if _, ok := tracked[path]; ok {
			continue // listed above
		}
		switch {
		case !ok && !now.skipped(path):
			add(path, "removed", true)
			// A link made in place of a directory above it leads the
			// host's command by that path wherever the session chose.
			if link := now.linkAbove(path); link != "" && !now.files[link].ctime.Before(since) && !linked[link] {
				linked[link] = true
				c.HostRun = append(c.HostRun, filepath.Join(checkout, link))
			}
		case ok && !st.ctime.Before(since):
			add(path, "changed", true)
		}
	}
	for _, path := range made {
		ign := ignoredNow[path]
		add(path, "created", ign)
		// Where the start's list of ignored files is missing or cut short,
		// one the session changed may be taken for made: each executable
		// or script is taken for one the host runs.
		if (ignored == nil || limited) && (ign || !ignoredKnown) && now.hostRun(checkout, path) {
			c.HostRun = append(c.HostRun, filepath.Join(checkout, path))
		}
	}
	slices.SortFunc(c.Paths, func(a, b PathChange) int { return strings.Compare(a.Path, b.Path) })
	return nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// ignoredAtStart reads the ignored files the snapshot id listed (nil if
// it listed none), and whether the list stopped at its bound.
func (st store) ignoredAtStart(id string) ([]string, bool) {
	b, err := os.ReadFile(filepath.Join(st.dir, id+".ignored"))
	if err != nil {
		return nil, false
	}
	head, rest, _ := strings.Cut(string(b), "\n")
	list := []string{}
	for _, p := range strings.Split(rest, "\x00") {
		if p != "" {
			list = append(list, p)
		}
	}
	return list, head == "limited"
}

// listIgnored keeps, beside the snapshot id, the ignored files of the
// checkout, as git lists them with the store's index work.
func (st store) listIgnored(ctx context.Context, checkout, work, id string) error {
	out, err := st.git(ctx, checkout, work, nil, "ls-files", "-z", "--others", "--ignored", "--exclude-standard")
	if err != nil {
		return err
	}
	head := "complete"
	list := strings.SplitAfterN(out, "\x00", ignoredStartLimit+1)
	if len(list) > ignoredStartLimit {
		list, head = list[:ignoredStartLimit], "limited"
	}
	return atomicfile.Write(filepath.Join(st.dir, id+".ignored"), []byte(head+"\n"+strings.Join(list, "")), 0o600)
}

// ignoredOf says which of paths git ignores, by the checkout's rules.
func (st store) ignoredOf(checkout string, paths []string) (map[string]bool, error) {
	out, err := st.git(context.Background(), checkout, os.DevNull, strings.NewReader(strings.Join(paths, "\x00")+"\x00"), "check-ignore", "-z", "--stdin", "--no-index")
	if exit := (*exec.ExitError)(nil); err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, err // 1: none is
	}
	ignored := map[string]bool{}
	for _, p := range strings.Split(out, "\x00") {
		ignored[p] = true
	}
	return ignored, nil
}

// listing lists s's files as tree does, without their sizes, which git
// reads from each blob (seconds for 60,000 loose objects).
func (st store) listing(s Snapshot) (map[string]entry, error) {
	out, err := st.git(context.Background(), s.Checkout, os.DevNull, nil, "ls-tree", "-r", "-z", "--full-tree", s.Tree)
	if err != nil {
		return nil, err
	}
	entries := map[string]entry{}
	for _, rec := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || f[1] != "blob" || !filepath.IsLocal(path) {
			continue
		}
		entries[path] = entry{mode: f[0], oid: f[2], size: -1}
	}
	return entries, nil
}

// sizes are the sizes of the blobs of paths in entries, by their names.
func (st store) sizes(checkout string, entries map[string]entry, paths []string) (map[string]int64, error) {
	sizes := map[string]int64{}
	if len(paths) == 0 {
		return sizes, nil
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(entries[p].oid + "\n")
	}
	out, err := st.git(context.Background(), checkout, os.DevNull, strings.NewReader(in.String()), "cat-file", "--batch-check=%(objectname) %(objectsize)")
	for _, line := range strings.Split(out, "\n") {
		if oid, size, ok := strings.Cut(line, " "); ok {
			if n, err := strconv.ParseInt(size, 10, 64); err == nil {
				sizes[oid] = n
			}
		}
	}
	return sizes, err
}

// tree is the checkout as the end's walk found it: each file that is not
// a directory (nor in a git directory), with its status change.
type tree struct {
	files map[string]fileStatus
	// skip are the stand-ins' paths, and the directories not read,
	// relative.
	skip []string
	// oddIgnore is a .gitignore that is not a regular file.
	oddIgnore string
}

// fileStatus is what the walk keeps of a file: its status change and its
// type and permissions.
type fileStatus struct {
	ctime time.Time
	mode  uint32
}

// hostRun says whether the file at path is one the host runs as the
// user's: an executable, a script (#!), a makefile, or anything in a
// virtualenv's bin/ (its activate script is sourced, its python a link)
// and its pyvenv.cfg (whose home says where python finds its library).
// Installed dependencies (node_modules) are judged by the exit audit.
func (t tree) hostRun(checkout, path string) bool {
	if slices.Contains(strings.Split(path, "/"), "node_modules") {
		return false
	}
	dir := filepath.Dir(path)
	if _, venv := t.files[filepath.Join(filepath.Dir(dir), "pyvenv.cfg")]; venv && filepath.Base(dir) == "bin" || filepath.Base(path) == "pyvenv.cfg" {
		return true
	}
	st := t.files[path]
	switch st.mode & unix.S_IFMT {
	case unix.S_IFLNK:
		// The host runs what it leads to, which git shows as little.
		return true
	case unix.S_IFREG:
	default:
		return false
	}
	if st.mode&0o111 != 0 || makeNames[filepath.Base(path)] {
		return true
	}
	f, err := untrusted.Open(checkout, path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 2)
	n, _ := io.ReadFull(f, b)
	return string(b[:n]) == "#!"
}

// linkAbove is the symlink the walk found in place of a directory above
// path, if any.
func (t tree) linkAbove(path string) string {
	for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
		if st, ok := t.files[dir]; ok {
			if st.mode&unix.S_IFMT == unix.S_IFLNK {
				return dir
			}
			return ""
		}
	}
	return ""
}

// makeNames are the files make reads where it starts.
var makeNames = map[string]bool{"GNUmakefile": true, "makefile": true, "Makefile": true}

// skipped says whether path is a stand-in or lies in one.
func (t tree) skipped(path string) bool {
	return slices.ContainsFunc(t.skip, func(s string) bool { return paths.Within(path, s) })
}

// walkCheckout reads the checkout's files, never following a symlink nor
// entering a git directory, the top's directories side by side.
func walkCheckout(checkout string, skip []string) (tree, error) {
	t := tree{files: map[string]fileStatus{}}
	for _, s := range skip {
		if rel, err := filepath.Rel(checkout, s); err == nil && filepath.IsLocal(rel) {
			t.skip = append(t.skip, rel)
		}
	}
	top, err := unix.Open(checkout, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return t, err
	}
	defer unix.Close(top)
	var (
		lock    sync.Mutex
		count   atomic.Int64
		names   atomic.Int64
		failed  []string
		subdirs []string
	)
	var walk func(fd int, rel string, depth int, atTop bool)
	walk = func(fd int, rel string, depth int, atTop bool) {
		f := os.NewFile(uintptr(fd), rel)
		defer f.Close()
		// In batches: a directory of millions of entries (the sandbox's
		// to make) is never held whole.
		for {
			entries, err := f.ReadDir(512)
			if len(entries) == 0 {
				if err != nil && err != io.EOF {
					lock.Lock()
					failed = append(failed, rel)
					lock.Unlock()
				}
				return
			}
			held := int64(0)
			for _, e := range entries {
				held += int64(len(rel) + 1 + len(e.Name()))
			}
			if count.Add(int64(len(entries))) > walkLimit || names.Add(held) > namesLimit {
				lock.Lock()
				failed = append(failed, rel)
				lock.Unlock()
				return
			}
			for _, e := range entries {
				name := e.Name()
				path := filepath.Join(rel, name)
				if name == ".git" || t.skipped(path) {
					continue
				}
				var st unix.Stat_t
				if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				if st.Mode&unix.S_IFMT != unix.S_IFDIR {
					lock.Lock()
					t.files[path] = fileStatus{time.Unix(st.Ctim.Unix()), st.Mode}
					if name == ".gitignore" && st.Mode&unix.S_IFMT != unix.S_IFREG && t.oddIgnore == "" {
						t.oddIgnore = filepath.Join(checkout, path)
					}
					lock.Unlock()
					continue
				}
				if atTop {
					subdirs = append(subdirs, path)
					continue
				}
				if depth >= 256 || len(path) > audit.MaxPathLen {
					lock.Lock()
					failed = append(failed, path)
					lock.Unlock()
					continue
				}
				sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
				if err != nil {
					lock.Lock()
					failed = append(failed, path)
					lock.Unlock()
					continue
				}
				walk(sub, path, depth+1, false)
			}
		}
	}
	dup, err := unix.FcntlInt(uintptr(top), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return t, err
	}
	walk(dup, "", 0, true)
	parallel.Each(len(subdirs), func(i int) {
		fd, err := unix.Openat(top, subdirs[i], unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			lock.Lock()
			failed = append(failed, subdirs[i])
			lock.Unlock()
			return
		}
		walk(fd, subdirs[i], 1, false)
	})
	if len(failed) > 0 {
		slices.Sort(failed)
		// What lies there is not known, so not taken for removed.
		t.skip = append(t.skip, failed...)
		named := failed
		if len(named) > 10 {
			named = append(slices.Clip(named[:10]), strconv.Itoa(len(failed)-10)+" more")
		}
		return t, errors.New("not read in full (unreadable, deeper than 256 directories or 1024 bytes, or past 2,000,000 entries or 256 MiB of their paths): " + printable.Escape(strings.Join(named, ", ")))
	}
	return t, nil
}
