package undo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/dirent"
	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/projectfiles"
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

// ignoredStartLimit bounds the ignored paths the start lists, and
// ignoredStartBytes their bytes, which the supervisor holds for the whole
// session (a path may take 4 KiB: 200,000 of those would be 800 MB): past
// either, one the session removed is not known, and one it changed is
// taken for made.
const (
	ignoredStartLimit = 200_000
	ignoredStartBytes = 32 << 20
)

// keptLimit bounds the entries the end's walk keeps (the files whose
// status changed, the names in the directories whose status did, each
// directory read, the files gone during the walk); keptBytes, the bytes
// of their paths (a tree of long names has them a kilobyte each). It
// reads every entry, as the exit audit does, however many: past the
// bounds it keeps nothing more, and a directory holding a change it could
// not keep is not read in full (see walkCheckout). A directory's path is
// bounded as the exit audit's walk bounds it.
var (
	keptLimit int64 = 2_000_000
	keptBytes int64 = 256 << 20
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
	// IgnoredPartial says Paths may not hold every ignored file the
	// session made or changed: some past IgnoredLimit, or git's rules
	// not read.
	IgnoredPartial bool `json:"-"`
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
	// ChangedRun are the files in the start's snapshot, which git does
	// not ignore, that the session changed and the host runs (absolute
	// paths): of those git does not track, git status shows no change.
	ChangedRun []string `json:"-"`
	// TimeSetBack are the files and links the session changed whose
	// modification time it then set back before its start (absolute
	// paths, sorted): where the host's git compares no status change
	// time (core.trustctime off, core.checkStat minimal), a tracked one
	// holding as many bytes looks unchanged to git status and git diff.
	TimeSetBack []string `json:"-"`
	// TrackedSince, where not zero, is the session's start, and says the
	// exit left the files git compares (gitCompared) unread: ReadChanges
	// compares those whose status changed since then.
	TrackedSince time.Time `json:"tracked_since,omitzero"`
}

// PathChange is one path, relative to the checkout: Change is created,
// changed or removed; Ignored, that git ignores it; MovedTo, where the
// session's end moved it aside (the exit audit's finding), if it did.
type PathChange struct {
	Path    string `json:"path"`
	Change  string `json:"change"`
	Ignored bool   `json:"ignored"`
	MovedTo string `json:"moved_to,omitempty"`
}

// MarshalJSON writes a path that is not UTF-8, the sandbox's name, as its
// bytes too (path_bytes): JSON's strings turn such bytes into U+FFFD, and
// --changes named a file no file is named.
func (p PathChange) MarshalJSON() ([]byte, error) {
	type plain PathChange
	v := struct {
		plain
		Bytes      []byte `json:"path_bytes,omitempty"`
		MovedBytes []byte `json:"moved_to_bytes,omitempty"`
	}{plain: plain(p)}
	if !utf8.ValidString(p.Path) {
		v.Bytes = []byte(p.Path)
	}
	if !utf8.ValidString(p.MovedTo) {
		v.MovedBytes = []byte(p.MovedTo)
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON wrote: the path's bytes, where
// they are given.
func (p *PathChange) UnmarshalJSON(b []byte) error {
	type plain PathChange
	var v struct {
		plain
		Bytes      []byte `json:"path_bytes"`
		MovedBytes []byte `json:"moved_to_bytes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = PathChange(v.plain)
	if len(v.Bytes) > 0 {
		p.Path = string(v.Bytes)
	}
	if len(v.MovedBytes) > 0 {
		p.MovedTo = string(v.MovedBytes)
	}
	return nil
}

// MarshalJSON writes the unknown files' names as bytes too
// (unknown_bytes), where one is not UTF-8, as PathChange does.
func (c Changes) MarshalJSON() ([]byte, error) {
	type plain Changes
	v := struct {
		plain
		UnknownBytes [][]byte `json:"unknown_bytes,omitempty"`
	}{plain: plain(c)}
	if slices.ContainsFunc(c.Unknown, func(u string) bool { return !utf8.ValidString(u) }) {
		v.UnknownBytes = make([][]byte, len(c.Unknown))
		for i, u := range c.Unknown {
			v.UnknownBytes[i] = []byte(u)
		}
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (c *Changes) UnmarshalJSON(b []byte) error {
	type plain Changes
	var v struct {
		plain
		UnknownBytes [][]byte `json:"unknown_bytes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Changes(v.plain)
	if len(v.UnknownBytes) == len(c.Unknown) {
		for i, u := range v.UnknownBytes {
			c.Unknown[i] = string(u)
		}
	}
	return nil
}

// changesName is the record's file in the store, one per checkout.
func changesName(checkout string) string { return instance.Hash(checkout) + ".changes" }

// ReadChanges reads the record of the last session of checkout in project
// root.
func ReadChanges(stateDir, root, checkout string) (Changes, error) {
	var c Changes
	st := storeOf(stateDir, root)
	b, err := os.ReadFile(filepath.Join(st.dir, changesName(checkout)))
	if err != nil {
		return c, err
	}
	if err = json.Unmarshal(b, &c); err == nil && !c.TrackedSince.IsZero() {
		st.trackedChanges(checkout, &c)
	}
	return c, err
}

// trackedChanges adds to the record c what the session changed of the
// files its exit left unread (TrackedSince): of the start's files, those
// whose status changed since the session's start, compared by content.
// One whose status changed after the record was made may be the user's
// edit since: whether the session changed it too is not known, which the
// record then says (--undo then takes it for not whole).
func (st store) trackedChanges(checkout string, c *Changes) {
	since := c.TrackedSince
	c.TrackedSince = time.Time{}
	unknown := func(why string) {
		c.Incomplete = append(c.Incomplete, "which of the files git tracks the session changed is not known: "+why)
	}
	var s *Snapshot
	for _, cand := range st.list(checkout) {
		if !cand.Since.After(since) {
			s = &cand
			break
		}
	}
	if s == nil || s.Pending || !s.Taken.UTC().Equal(c.Started) {
		unknown("the start's snapshot is gone")
		return
	}
	out, err := st.listing(*s)
	if err != nil {
		unknown(err.Error())
		return
	}
	now, err := walkCheckout(checkout, nil, since, nil, nil, nil)
	if err != nil {
		c.Incomplete = append(c.Incomplete, err.Error())
	}
	listed := map[string]bool{}
	for _, p := range c.Paths {
		listed[p.Path] = true
	}
	tracked := map[string]entry{}
	eachListed(out, func(path string, e entry) {
		if _, ok := now.recent[path]; ok && !listed[path] {
			tracked[strings.Clone(path)] = e
		}
	})
	candidates := slices.Sorted(maps.Keys(tracked))
	sizes, err := st.sizes(checkout, tracked, candidates)
	if err != nil {
		unknown("the sizes of the start's files are not known")
		return
	}
	var late []string
	for _, path := range candidates {
		if now.recent[path].ctime.After(c.Ended) {
			late = append(late, path)
			continue
		}
		e := tracked[path]
		e.size = sizes[e.oid]
		if same, _ := matches(checkout, path, e, store{}); !same {
			c.Paths = append(c.Paths, PathChange{Path: path, Change: "changed"})
		}
	}
	slices.SortFunc(c.Paths, func(a, b PathChange) int { return strings.Compare(a.Path, b.Path) })
	if len(late) > 0 {
		named := late
		if len(named) > 10 {
			named = append(slices.Clip(named[:10]), strconv.Itoa(len(late)-10)+" more")
		}
		c.Incomplete = append(c.Incomplete, "changed since the session ended, so whether the session changed them too is not known: "+printable.Escape(strings.Join(named, ", ")))
	}
}

// ErrNoStartSnapshot is RecordChanges' error for a session whose start
// took no snapshot: routine for a session shorter than the snapshot of a
// large checkout, which --changes says, not the exit.
var ErrNoStartSnapshot = errors.New("the session's start took no snapshot to compare with (it ended before the snapshot was written, or git could not read the checkout)")

// RecordChanges records what Changed says, replacing the record of an
// earlier session, also when it cannot compare.
func RecordChanges(stateDir string, p instance.Project, began time.Time, skip []string, walked chan<- audit.Statuses, reopen *audit.Reopener) (Changes, error) {
	c, err := Changed(stateDir, p, began, skip, walked, reopen)
	b, merr := json.MarshalIndent(c, "", "  ")
	if merr != nil {
		return c, merr
	}
	if werr := writeRecord(filepath.Join(storeOf(stateDir, p.Root).dir, changesName(p.Checkout)), append(b, '\n')); werr != nil {
		return c, werr
	}
	return c, err
}

// NoteMovedAside adds to the record of c, the one this session's end
// wrote, where the exit moved its files aside (moved, absolute paths),
// for --changes to say: a file listed as created there is not. A record
// another session's end wrote since, or none written (a trial's), is
// left as it is.
func NoteMovedAside(stateDir, root string, c Changes, moved []audit.Moved) error {
	path := filepath.Join(storeOf(stateDir, root).dir, changesName(c.Checkout))
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var rec Changes
	if err := json.Unmarshal(b, &rec); err != nil || !rec.Ended.Equal(c.Ended) || rec.Checkout != c.Checkout {
		return err
	}
	to := make(map[string]string, len(moved))
	for _, m := range moved {
		to[m.From] = m.To
	}
	noted := false
	for i, p := range rec.Paths {
		// It, or a directory above it moved aside whole.
		for at := filepath.Join(c.Checkout, p.Path); strings.HasPrefix(at, c.Checkout+"/"); at = filepath.Dir(at) {
			if dest, ok := to[at]; ok {
				rec.Paths[i].MovedTo = dest + strings.TrimPrefix(filepath.Join(c.Checkout, p.Path), at)
				noted = true
				break
			}
		}
	}
	if !noted {
		return nil
	}
	if b, err = json.MarshalIndent(rec, "", "  "); err != nil {
		return err
	}
	return writeRecord(path, append(b, '\n'))
}

// Changed says what the session that began at began did to the checkout
// of p: from the latest snapshot taken before it began, against the
// checkout as it is now. skip are the launch's stand-ins, left out.
// walked, if not nil, is given once, before Changed returns, the
// statuses its walk of the checkout read, for the exit audit beside it
// (nil if it read none).
func Changed(stateDir string, p instance.Project, began time.Time, skip []string, walked chan<- audit.Statuses, reopen *audit.Reopener) (Changes, error) {
	told := false
	var setBack []string
	tell := func(t tree) {
		setBack = t.timeSetBack(p.Checkout)
		if walked != nil && !told {
			told = true
			walked <- newWalkStatuses(t, began)
		}
	}
	defer func() {
		if walked != nil && !told {
			walked <- nil
		}
	}()
	st := storeOf(stateDir, p.Root)
	c := Changes{Checkout: p.Checkout, Ended: time.Now().UTC(), Paths: []PathChange{}, Unknown: []string{}, Incomplete: []string{}, Top: map[string]int{}}
	err := st.changes(p, began, skip, reopen, &c, tell)
	c.TimeSetBack = setBack
	if err != nil {
		c.Incomplete = append(c.Incomplete, err.Error())
	}
	return c, err
}

func (st store) changes(p instance.Project, began time.Time, skip []string, reopen *audit.Reopener, c *Changes, walked func(tree)) error {
	checkout := p.Checkout
	compared, comparedDone := st.comparedOf(p, began)
	dirs := st.dirsOf(checkout)
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
	// The walk's error, which the exit says, is returned before err.
	failClosed := func(now *tree, walkErr, err error) error {
		if now == nil {
			t, werr := walkCheckout(checkout, skip, began, reopen, compared, dirs)
			t.repo = repositoryOf(p)
			comparedDone()
			walked(t)
			dirs.close(st, checkout)
			now, walkErr = &t, werr
		}
		c.HostRun = append(c.HostRun, now.unreadChanged(checkout)...)
		// The others it wrote that git ignores are listed too, as
		// changed (nothing tells which it made): a makefile's include by
		// a name the audit cannot spell may be any of them.
		var wrote, others []string
		for _, path := range slices.Sorted(maps.Keys(now.recent)) {
			switch {
			case now.hostRun(checkout, path) || now.importedAtTop(checkout, path) || now.runByGit(checkout, path):
				wrote = append(wrote, path)
			case len(others) < IgnoredLimit:
				others = append(others, path)
			default:
				c.IgnoredPartial = true
			}
		}
		// Unless git says which it ignores, each is taken for ignored: the
		// store git reads the project's exclusions from is made here for
		// a first session that ended before its snapshot began.
		ignored, asked := map[string]bool{}, false
		if now.oddIgnore == "" && len(wrote)+len(others) > 0 && st.init(p) == nil {
			var err error
			ignored, err = st.ignoredOf(checkout, append(slices.Clone(wrote), others...))
			asked = err == nil
		}
		for _, path := range others {
			if !asked {
				c.IgnoredPartial = true
				break
			}
			if ignored[path] {
				c.Paths = append(c.Paths, PathChange{Path: path, Change: "changed", Ignored: true})
			}
		}
		hidden := len(wrote) > 0 && untrackedHidden(p)
		for _, path := range wrote {
			if !asked || ignored[path] || hidden || now.importedAtTop(checkout, path) || now.runByGit(checkout, path) || now.linksOut(checkout, path) {
				c.HostRun = append(c.HostRun, filepath.Join(checkout, path))
			} else {
				// Of those git shows, an untracked one looks as before.
				c.ChangedRun = append(c.ChangedRun, filepath.Join(checkout, path))
			}
		}
		if walkErr != nil {
			c.Incomplete = append(c.Incomplete, err.Error())
			return walkErr
		}
		return err
	}
	if s == nil || s.Pending || s.Since.IsZero() {
		return failClosed(nil, nil, ErrNoStartSnapshot)
	}
	// git would wait forever on a FIFO among the objects it reads (the
	// project's, through the store's alternates).
	if path := st.waiting(); path != "" {
		return failClosed(nil, nil, waitingError(path))
	}
	c.Started = s.Taken.UTC()
	c.Unknown = append(c.Unknown, s.Unknown...)
	// git lists the start's files while the checkout is walked.
	type listResult struct {
		out string
		err error
	}
	listing := make(chan listResult, 1)
	go func() {
		out, err := st.listing(*s)
		listing <- listResult{out, err}
	}()
	now, walkErr := walkCheckout(checkout, skip, began, reopen, compared, dirs)
	now.repo = repositoryOf(p)
	comparedDone()
	walked(now)
	dirs.close(st, checkout)
	if len(now.unstatted) > 0 {
		c.TrackedSince = began
	}
	l := <-listing
	if l.err != nil {
		return failClosed(&now, walkErr, l.err)
	}
	ignored, limited := st.ignoredAtStart(s.ID)
	if ignored == nil {
		c.Incomplete = append(c.Incomplete, "the start listed no ignored files: those the session removed are not known")
	} else if limited {
		c.Incomplete = append(c.Incomplete, "the start listed only the first 200,000 ignored files (or 32 MiB of their paths): those past them the session removed are not known")
	}
	// A directory not read in full that changed is taken whole.
	c.HostRun = append(c.HostRun, now.unreadChanged(checkout)...)
	unknown := map[string]bool{}
	for _, u := range s.Unknown {
		unknown[u] = true
	}
	atStart := make(map[string]bool, len(ignored))
	// The ignored node_modules the start listed whole (listIgnoredTo):
	// what the session made or changed in one is listed as changed. git
	// lists a repository below the top that it ignores as a directory
	// too (wholeDirs): what the session made or changed in one is listed
	// so, and judged as any file git ignores (its hooks run a script
	// there, its build's output is run).
	var depsDirs, wholeDirs []string
	for _, path := range ignored {
		if dir, ok := strings.CutSuffix(path, "/"); ok {
			if audit.InDeps(checkout, dir) {
				depsDirs = append(depsDirs, dir)
			} else {
				wholeDirs = append(wholeDirs, dir)
			}
			continue
		}
		atStart[path] = true
		if strings.HasSuffix(path, ".md") && slices.Contains(agentMemory, filepath.Base(path)) {
			now.memories = append(now.memories, path)
		}
		// A virtualenv whose pyvenv.cfg the session removed is one
		// still: sourcing its activate does not need it.
		if filepath.Base(path) == "pyvenv.cfg" {
			now.venvs[path] = true
		}
		if dir := filepath.Dir(path); filepath.Base(dir) == "conda-meta" {
			now.venvs[dir] = true
		}
	}
	// Of the start's files, those gone are removed; only those whose
	// status changed, and the ignored ones, are looked at further.
	tracked := map[string]entry{}
	var removed []string
	eachListed(l.out, func(path string, e entry) {
		if _, ok := now.recent[path]; ok || atStart[path] {
			tracked[strings.Clone(path)] = e
		}
		if strings.HasSuffix(path, ".md") && slices.Contains(agentMemory, filepath.Base(path)) {
			now.memories = append(now.memories, strings.Clone(path))
		}
		if !now.exists(path) && !now.skipped(path) {
			removed = append(removed, strings.Clone(path))
		}
	})
	l.out = ""
	recent := slices.Sorted(maps.Keys(now.recent))
	// Whether what the session made is ignored: git's own rules, read by
	// git on the store, for those paths alone. git would wait forever on a
	// .gitignore that is a FIFO: then it is not asked.
	var made, inDeps, inWhole []string
	for _, path := range recent {
		if _, ok := tracked[path]; !ok && !atStart[path] && !unknown[path] {
			switch {
			case paths.UnderAny(path, depsDirs):
				inDeps = append(inDeps, path)
			case paths.UnderAny(path, wholeDirs):
				inWhole = append(inWhole, path)
			default:
				made = append(made, path)
			}
		}
	}
	ignoredNow := map[string]bool{}
	ignoredKnown := false
	var err error
	switch {
	case len(made) == 0:
	case now.oddIgnore != "":
		c.IgnoredPartial = true
		c.Incomplete = append(c.Incomplete, "whether the files the session made are ignored is not known: "+now.oddIgnore+" is not a regular file")
	default:
		if ignoredNow, err = st.ignoredOf(checkout, made); err != nil {
			c.IgnoredPartial = true
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
				c.IgnoredPartial = true
				return
			}
			listed++
		}
		c.Paths = append(c.Paths, PathChange{Path: path, Change: change, Ignored: ign})
	}
	for _, path := range removed {
		add(path, "removed", false)
	}
	var candidates []string
	for _, path := range recent {
		if _, ok := tracked[path]; ok {
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
			if now.hostRun(checkout, path) {
				c.ChangedRun = append(c.ChangedRun, filepath.Join(checkout, path))
			}
		}
	}
	// One the session may have written before the snapshot read it is
	// taken for changed.
	for _, path := range s.Unknown {
		if _, ok := now.recent[path]; ok && now.hostRun(checkout, path) {
			c.ChangedRun = append(c.ChangedRun, filepath.Join(checkout, path))
		}
	}
	for _, path := range inDeps {
		add(path, "changed", true)
	}
	for _, path := range inWhole {
		add(path, "changed", true)
	}
	c.HostRun = append(c.HostRun, st.inIgnoredRepos(checkout, now, inWhole)...)
	linked := map[string]bool{}
	for _, path := range ignored {
		if dir, ok := strings.CutSuffix(path, "/"); ok {
			if _, read := now.dirs[dir]; !read && !now.cut && !now.skipped(dir) {
				add(dir, "removed", true)
				if link := now.linkAbove(dir); link != "" && !linked[link] {
					linked[link] = true
					c.HostRun = append(c.HostRun, filepath.Join(checkout, link))
				}
			}
			continue
		}
		_, ok := now.recent[path]
		if ok && now.hostRun(checkout, path) {
			c.HostRun = append(c.HostRun, filepath.Join(checkout, path))
		}
		if _, ok := tracked[path]; ok {
			continue // listed above
		}
		switch {
		case ok:
			add(path, "changed", true)
		case !now.exists(path) && !now.skipped(path):
			add(path, "removed", true)
			// A link made in place of a directory above it leads the
			// host's command by that path wherever the session chose.
			if link := now.linkAbove(path); link != "" && !linked[link] {
				linked[link] = true
				c.HostRun = append(c.HostRun, filepath.Join(checkout, link))
			}
		}
	}
	hidden := len(made) > 0 && untrackedHidden(p)
	for _, path := range made {
		ign := ignoredNow[path] || hidden
		add(path, "created", ign)
		// One the session made that git ignores and the host runs is as
		// much its code as one it changed: make takes a target newer than
		// its sources for up to date and runs it as it stands (a build's
		// output, written by the session before the host's build ran).
		// Where whether git ignores it is not known (a .gitignore that is
		// no file, the session's doing), it is taken for ignored. One
		// git runs itself (a module at the top, a filter's script) runs
		// at the very git status that would name it; a link out of the
		// checkout, which git status names, is where the host's build
		// writes by its name.
		if (ign || !ignoredKnown) && now.hostRun(checkout, path) || now.importedAtTop(checkout, path) || now.runByGit(checkout, path) || now.linksOut(checkout, path) {
			c.HostRun = append(c.HostRun, filepath.Join(checkout, path))
		}
	}
	slices.SortFunc(c.Paths, func(a, b PathChange) int { return strings.Compare(a.Path, b.Path) })
	return walkErr
}

// inIgnoredRepos is, of paths, which the session made or changed in the
// repositories below the top that git ignores whole, those it moves
// aside (absolute paths): what the host runs that the repository's own
// rules ignore, or where they are not read, and what its git runs itself
// (runByGit); what that repository's git status shows is the user's to
// read there, as at the top (a linked worktree kept in the project,
// whose sources the session edits).
func (st store) inIgnoredRepos(checkout string, now tree, paths []string) []string {
	byTop := map[string][]string{}
	for _, path := range paths {
		if now.hostRun(checkout, path) || now.importedAtTop(checkout, path) || now.runByGit(checkout, path) {
			top := now.repoTop(path)
			byTop[top] = append(byTop[top], path)
		}
	}
	var found []string
	for top, run := range byTop {
		ignored, err := map[string]bool{}, error(nil)
		if top != "" && now.oddIgnore == "" {
			rels := make([]string, len(run))
			for i, path := range run {
				rels[i] = path[len(top)+1:]
			}
			ignored, err = st.ignoredOf(filepath.Join(checkout, top), rels)
		}
		for _, path := range run {
			if top == "" || now.oddIgnore != "" || err != nil || ignored[path[len(top)+1:]] || now.runByGit(checkout, path) {
				found = append(found, filepath.Join(checkout, path))
			}
		}
	}
	slices.Sort(found)
	return found
}

// repoTop is the top of the repository below the checkout's that path
// lies in, the nearest; "" where none is.
func (t tree) repoTop(path string) string {
	for dir := dirOf(path); dir != "."; dir = dirOf(dir) {
		if t.repos[dir] {
			return dir
		}
	}
	return ""
}

// ignoredAtStart reads the ignored files the snapshot id listed (nil if
// it listed none, or listed them after the sandbox started), and whether
// the list stopped at its bound.
func (st store) ignoredAtStart(id string) ([]string, bool) {
	b, err := os.ReadFile(filepath.Join(st.dir, id+".ignored"))
	if err != nil {
		return nil, false
	}
	head, rest, _ := strings.Cut(string(b), "\n")
	if head == "late" {
		return nil, false
	}
	list := []string{}
	for _, p := range strings.Split(rest, "\x00") {
		if p != "" {
			list = append(list, p)
		}
	}
	return list, head == "limited"
}

// lookAfter is how long git lists before a FIFO is looked for among the
// rules it reads: most lists take less (a checkout of 80,000 files, a
// fifth of a second at a load of 14), and the look, beside git, would
// slow them.
const lookAfter = 200 * time.Millisecond

// stallEvery is how often a git that lists past lookAfter is asked
// whether it still uses the processor.
const stallEvery = 100 * time.Millisecond

// listIgnored keeps, beside the snapshot id, the ignored files of the
// checkout, as git lists them with the store's index work: the first
// ignoredStartLimit, kept as git writes them (an install's tree holds
// millions), git stopped past them. git would wait forever on a
// .gitignore that is a FIFO (an enclosing session's), holding the
// sandbox's start for the gate's bound: one is looked for once git has
// listed for lookAfter and stalled (a git still reading a large tree on a
// loaded machine is not read after a second time beside it), and once
// found git is stopped, no list is kept, and the error names it.
func (st store) listIgnored(ctx context.Context, checkout, common, work, id string, gate *ListGate) error {
	var running atomic.Int64
	listing, stopListing := context.WithCancel(context.WithValue(ctx, gitStartedKey{}, &running))
	defer stopListing()
	looking, stopLooking := context.WithCancel(ctx)
	waitingOn := make(chan string, 1)
	go func() {
		path := ""
		select {
		case <-looking.Done():
		case <-time.After(lookAfter):
			if stalled(looking, &running) {
				if path = waitingIgnore(looking, checkout); path != "" {
					stopListing()
				}
			}
		}
		waitingOn <- path
	}()
	list := &firstPaths{limit: ignoredStartLimit, size: ignoredStartBytes}
	began := time.Now()
	err := st.listIgnoredTo(listing, checkout, work, list)
	if err == nil || list.full {
		st.listed(checkout, time.Since(began))
	}
	stopLooking()
	// One found after git listed to the end is none git read.
	if path := <-waitingOn; path != "" && err != nil {
		return waitingError(path)
	}
	if err != nil && !list.full {
		return err
	}
	head := "complete"
	if list.full {
		head = "limited"
	}
	// A late list is none, cut or not, unless nothing the sandbox could
	// have done since it was let go shows.
	if from, late := gate.lateSince(); late && (from.IsZero() || !listSettled(ctx, checkout, common, from)) {
		head = "late"
	}
	return writeRecord(filepath.Join(st.dir, id+".ignored"), append([]byte(head+"\n"), list.b.Bytes()...))
}

// ignoredDirsLimit bounds the ignored directories whose files the start
// lists by naming them to git, which matches each path against each name,
// and ignoredDirsBytes their names' bytes, which git's command line holds
// (the kernel refuses one of 2 MiB); past either, git lists every ignored
// file.
const (
	ignoredDirsLimit = 1000
	ignoredDirsBytes = 256 << 10
)

// listIgnoredTo writes to list the checkout's ignored files, but each
// ignored node_modules as itself, its path ending in "/", without its
// files: installed dependencies are the exit audit's, which reads every
// entry there, and listing each file of a common node_modules (100,000)
// cost a tenth of a second that the sandbox's command waited for. git
// lists the ignored directories first, without reading them, then the
// files of those that are no node_modules.
func (st store) listIgnoredTo(ctx context.Context, checkout, work string, list *firstPaths) error {
	args := []string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard"}
	top := &firstPaths{limit: ignoredStartLimit, size: ignoredStartBytes}
	if err := st.gitTo(ctx, checkout, work, nil, top, append(args, "--directory")...); err != nil && !top.full {
		return err
	}
	listed := map[string]bool{}
	var dirs []string
	size := 0
	for _, p := range strings.Split(top.b.String(), "\x00") {
		switch {
		case p == "":
		case !strings.HasSuffix(p, "/") || audit.InDeps(checkout, strings.TrimSuffix(p, "/")):
			listed[p] = true
			if _, err := list.Write([]byte(p + "\x00")); err != nil {
				return err
			}
		default:
			dirs = append(dirs, ":(top,literal)"+p)
			size += len(dirs[len(dirs)-1])
		}
	}
	switch {
	case top.full:
		list.full = true
		return errFull
	case len(dirs) == 0:
		return nil
	case len(dirs) > ignoredDirsLimit || size > ignoredDirsBytes:
		*list = firstPaths{limit: list.limit, size: list.size}
		return st.gitTo(ctx, checkout, work, nil, list, args...)
	}
	files := &firstPaths{limit: ignoredStartLimit, size: ignoredStartBytes}
	err := st.gitTo(ctx, checkout, work, nil, files, append(append(args, "--"), dirs...)...)
	if err != nil && !files.full {
		return err
	}
	for _, p := range strings.Split(files.b.String(), "\x00") {
		if p != "" && !listed[p] {
			if _, err := list.Write([]byte(p + "\x00")); err != nil {
				return err
			}
		}
	}
	if files.full {
		list.full = true
		return errFull
	}
	return nil
}

// stalled waits until the git running (its process ID, 0 while none is)
// used no processor time for stallEvery, asleep as on a FIFO, and says so;
// false once ctx ends first. One waiting for a processor or the disk on a
// loaded machine is not (its walk of the tree would only compete with it).
// One whose use cannot be read is taken for stalled.
func stalled(ctx context.Context, running *atomic.Int64) bool {
	pid, used := int64(0), int64(-1)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(stallEvery):
		}
		now := running.Load()
		if now == 0 {
			continue
		}
		asleep, t, err := cpuUse(int(now))
		if err != nil || asleep && now == pid && t == used {
			return true
		}
		pid, used = now, t
	}
}

// cpuUse says whether the process pid sleeps interruptibly, as on a FIFO,
// and the processor time it used, in clock ticks (/proc/PID/stat's state,
// utime and stime).
func cpuUse(pid int) (asleep bool, ticks int64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false, 0, err
	}
	// Fields from the third on follow the command's name, in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false, 0, errors.New("unreadable process status")
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 13 {
		return false, 0, errors.New("unreadable process status")
	}
	user, uerr := strconv.ParseInt(fields[11], 10, 64)
	system, serr := strconv.ParseInt(fields[12], 10, 64)
	return fields[0] == "S", user + system, errors.Join(uerr, serr)
}

// waitingError is path, which git would wait forever to read.
type waitingError string

func (path waitingError) Error() string {
	return "git would wait forever to read " + printable.Escape(string(path)) + ", which is not a file (a FIFO a session left)"
}

// firstPaths keeps the first NUL-ended paths written to it, at most limit
// of them and size bytes, each whole; past them it is full, and refuses
// what follows.
type firstPaths struct {
	b bytes.Buffer
	// n paths are whole in b's first kept bytes.
	n, kept     int
	limit, size int
	full        bool
}

var errFull = errors.New("enough paths")

func (f *firstPaths) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		piece := p[i:]
		end := bytes.IndexByte(piece, 0)
		if end >= 0 {
			piece = piece[:end+1]
		}
		if f.n == f.limit || f.b.Len()+len(piece) > f.size {
			f.b.Truncate(f.kept)
			f.full = true
			return i, errFull
		}
		f.b.Write(piece)
		i += len(piece)
		if end >= 0 {
			f.n++
			f.kept = f.b.Len()
		}
	}
	return len(p), nil
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

// listing is git's list of s's files (ls-tree -z), without their sizes,
// which git reads from each blob (seconds for 60,000 loose objects): as
// the snapshot kept it, where it did.
func (st store) listing(s Snapshot) (string, error) {
	if b, err := os.ReadFile(filepath.Join(st.dir, s.ID+".listing")); err == nil {
		return string(b), nil
	}
	return st.git(context.Background(), s.Checkout, os.DevNull, nil, "ls-tree", "-r", "-z", "--full-tree", s.Tree)
}

// eachListed calls f with each file of a listing, in its order; path is
// a piece of out (a million files' listing is read without a copy of
// each).
func eachListed(out string, f func(path string, e entry)) {
	for rec := range strings.SplitSeq(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		mode, rest, ok1 := strings.Cut(meta, " ")
		typ, oid, ok2 := strings.Cut(rest, " ")
		if !ok || !ok1 || !ok2 || typ != "blob" || !filepath.IsLocal(path) {
			continue
		}
		f(path, entry{mode: mode, oid: oid, size: -1})
	}
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

// tree is the checkout as the end's walk found it (never in a git
// directory), against the session's start: the files whose status changed
// since, and the names in each directory whose own status did. A directory
// whose status is from before the start holds the names it held then (any
// change to its entries changes its status, which no one can set back), so
// a file there then is there still: of the many directories that did not
// change, the walk keeps no name.
type tree struct {
	// tasks are the task files indexed for namedByTask (nil: not kept).
	tasks *taskTexts
	// repo is the checkout's own repository, whose hooks namedByTask asks.
	repo repository
	// recent are the files (not directories) whose status changed at or
	// after the start.
	recent map[string]fileStatus
	// dirs are the directories read in full ("." the top): the names of
	// the files in those whose status changed at or after the start, nil
	// for the others.
	dirs map[string]map[string]bool
	// venvs are the virtualenvs' pyvenv.cfg files and the conda
	// environments' conda-meta; repos, the directories
	// below the top holding a .git, whose ignored files no start's list
	// of the checkout's names.
	venvs, repos map[string]bool
	// gone are the files and directories listed in a directory whose
	// status is from before the start, and gone when the walk looked at
	// them: removed, as a file gone before the walk is, whoever removed it
	// (the record never tells the host's changes from the session's).
	gone map[string]bool
	// memories are the agents' memory files the start listed, ignored
	// ones too, wherever they lie (Gemini CLI reads every GEMINI.md below
	// where it starts): what they import is judged whatever folder it is
	// in.
	memories []string
	// skip are the stand-ins' paths, and the directories not read in
	// full, relative.
	skip []string
	// unread are the directories not read in full; those that changed
	// (their status, or a file in them whose change the walk could not
	// keep), below the top, are taken whole for what the host runs.
	unread []unreadDir
	// cut: past keptLimit, some directories read were not kept, and
	// whether a file in one was removed is not known.
	cut bool
	// oddIgnore is a .gitignore that is not a regular file.
	oddIgnore string
	// unstatted are the directories (sorted) holding files of compared
	// whose statuses the walk did not read (gitCompared): whether they
	// changed is the record's to say later (TrackedSince).
	unstatted []string
}

// unreadDir is a directory the walk could not read in full.
type unreadDir struct {
	path    string
	changed bool
}

// exists says whether a file that was at path at the start is there now.
func (t tree) exists(path string) bool {
	if _, ok := t.recent[path]; ok {
		return true
	}
	if len(t.gone) > 0 && t.gone[path] {
		return false
	}
	dir, name := ".", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, name = path[:i], path[i+1:]
	}
	names, ok := t.dirs[dir]
	return ok && (names == nil || names[name])
}

// dirOf is the directory of path, "." the top.
func dirOf(path string) string {
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		return path[:i]
	}
	return "."
}

// unreadChanged are the directories not read in full that changed, below
// the top, as absolute paths: what the host runs there is not known, so
// each is taken whole for it, as the exit audit takes a directory the
// session made that it cannot examine.
func (t tree) unreadChanged(checkout string) []string {
	var dirs []string
	for _, u := range t.unread {
		// Installed dependencies are the exit audit's (hostRun).
		if u.changed && u.path != "." && !audit.InDeps(checkout, u.path) {
			dirs = append(dirs, filepath.Join(checkout, u.path))
		}
	}
	return dirs
}

// fileStatus is what the walk keeps of a file: its status change, its
// type and permissions, and whether its modification time is older than
// the session's start (set back).
type fileStatus struct {
	ctime   time.Time
	mode    uint32
	setBack bool
}

// hostRun says whether the file at path, one of recent, is one the host
// runs as the user's: an executable, a script (#! or by its extension),
// a task file (a makefile, a justfile), an agent's memory (agentMemory),
// a lockfile (lockFiles), a package's manifest (manifests), a build
// file (buildFile), a task file that names what it runs (taskNames: a
// file that runs what it names runs what it says, as nix-shell runs the
// shellHook of a shell.nix git ignores), pip's requirement files
// (requirementsFile),
// an object file or a library (by
// its extension, or ELF's and a PE file's header: the loader maps build/lib/libgreet.so.1, which
// a program names, whatever its mode and name), a link,
// anything in a virtualenv or a conda environment but its site-packages (its activate script is
// sourced, its python a link, its etc/ and share/ read by its tools) and
// its pyvenv.cfg (whose home says where python finds its library), and an
// activate script in any bin/.
// Installed dependencies (node_modules) are judged by the exit audit.
func (t tree) hostRun(checkout, path string) bool {
	if audit.InDeps(checkout, path) {
		return false
	}
	dir := filepath.Dir(path)
	if filepath.Base(path) == "pyvenv.cfg" || t.inVenv(dir) {
		return true
	}
	// A virtualenv's activate scripts, sourced, wherever a bin/ holds one.
	if filepath.Base(dir) == "bin" && strings.HasPrefix(filepath.Base(path), "activate") {
		return true
	}
	st := t.recent[path]
	switch st.mode & unix.S_IFMT {
	case unix.S_IFLNK:
		// The host runs what it leads to, which git shows as little.
		return true
	case unix.S_IFREG:
	default:
		return false
	}
	if st.mode&0o111 != 0 || audit.TaskFile(filepath.Base(path)) || slices.Contains(agentMemory, filepath.Base(path)) || lockFiles[filepath.Base(path)] || manifests[strings.ToLower(filepath.Base(path))] || buildFile(path) || slices.Contains(taskNames, filepath.Base(path)) || requirementsFile(path) || codeExts[strings.ToLower(filepath.Ext(path))] || packageArchive(path) || yaml(path) || terraformJSON(path) || cargoBuildOutput(path) || buildState(path) || t.namedByTask(checkout, path) {
		return true
	}
	f, err := untrusted.Open(checkout, path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 4)
	n, _ := io.ReadFull(f, b)
	// A PE file's MZ: a managed assembly dotnet runs, whatever its name.
	return strings.HasPrefix(string(b[:n]), "#!") || string(b[:n]) == "\x7fELF" || strings.HasPrefix(string(b[:n]), "MZ")
}

// requirementsFile says whether path is one of pip's requirement or
// constraint files by the names they are given (requirements.txt,
// requirements-dev.txt, dev-requirements.txt, requirements/base.txt,
// constraints.txt): pip install -r builds what one names, by a path
// anywhere (-e of a package in the project's own instance, which the
// sandbox writes and no audit walks) or from an index it chooses, and
// the exit names pip install -r requirements.txt as the way to install
// a virtualenv's packages again.
func requirementsFile(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	if !strings.HasSuffix(base, ".txt") {
		return false
	}
	return strings.HasPrefix(base, "requirements") || strings.HasSuffix(base, "requirements.txt") ||
		strings.HasPrefix(base, "constraints") || filepath.Base(filepath.Dir(path)) == "requirements"
}

// agentMemory are the files an agent on the host reads in the project at
// its start as the user's own instructions, with the host's permissions:
// Claude Code's CLAUDE.md and CLAUDE.local.md (which it has git ignore,
// being yours alone), Codex's AGENTS.md and AGENTS.override.md, Gemini
// CLI's GEMINI.md. One git shows is the user's to read in the diff; one it
// ignores, or an untracked one changed, the host's claude took for the
// user's, git status showing nothing. What each imports is read with it
// (imports): Gemini CLI imports from the files its context.fileName
// names, AGENTS.md among them where one is told so.
var agentMemory = []string{"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md"}

// lockFiles are the package managers' lockfiles, which say where each
// package is fetched from and with which digest: a library's repository
// often has git ignore its own, and the host's npm ci (the command the
// exit names to install node_modules again) installed the package a
// package-lock.json the session wrote resolved to a tarball of its
// choosing, and ran its install script. Cargo's git sources build their
// build.rs, Bundler's and Composer's run their code likewise.
var lockFiles = map[string]bool{
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "bun.lock": true, "bun.lockb": true,
	"Cargo.lock": true, "poetry.lock": true, "uv.lock": true, "pdm.lock": true, "Pipfile.lock": true, "pylock.toml": true,
	"Gemfile.lock": true, "gems.locked": true, "composer.lock": true, "mix.lock": true, "flake.lock": true, "pubspec.lock": true,
	"Package.resolved": true, "deno.lock": true, "gradle.lockfile": true, "packages.lock.json": true, "conan.lock": true,
}

// manifests are the package managers' manifests, whose build or install
// runs what they say (by their names lower-cased: a directory that folds
// case opens CARGO.TOML as Cargo.toml): cargo builds and runs the build
// script a Cargo.toml names by any path (rustc compiles build = "b.txt"
// whatever its name), npm runs the install scripts a package.json holds,
// pip and uv build a pyproject.toml's package with the backend it fetches,
// pnpm runs a package.json5's as a package.json's (its package.yaml is
// YAML, judged as such).
// Their workspaces take every folder their patterns match (crates/*,
// packages/*) for one of theirs, whether git ignores it or not: a
// session's crates/debug/Cargo.toml, debug/ ignored as the Rust .gitignore
// GitHub offers has it, naming b.txt as its build script, ran it at the
// host's cargo build, git status showing nothing.
var manifests = map[string]bool{"cargo.toml": true, "package.json": true, "package.json5": true, "pyproject.toml": true}

// buildFiles are the build files a build tool takes by their names
// where its own convention puts one, no file of the project spelling
// their paths, and runs what they say as it configures or builds:
// Meson's subprojects/<name>/meson.build, which a meson.build names by
// the subproject's name alone (subproject('greet')) and Meson's advice
// has git ignore, what a .wrap downloads (its run_command ran at the
// host's meson setup); Bazel's, Buck's and Please's BUILD files, every
// one of which //... takes, git ignoring it or not (a genrule's cmd, a
// test); dune's, in every directory; CMake's (add_subdirectory by a
// variable, FetchContent's sources), SCons', waf's, Gradle's (a
// settings.gradle's include 'a:b' is a/b/build.gradle), Maven's and
// Ant's, and the files they load (Bazel's .bzl). By name, and by
// extension for those a tool names by any (a Gradle script, a gyp file,
// whose <!(…) runs a command, an MSBuild project).
var buildFiles = map[string]bool{
	"meson.build": true, "CMakeLists.txt": true, "BUILD": true, "BUILD.bazel": true, "WORKSPACE": true, "WORKSPACE.bazel": true,
	"WORKSPACE.bzlmod": true, "MODULE.bazel": true, "REPO.bazel": true, "BUCK": true, "BUILD.plz": true, "dune": true,
	"SConstruct": true, "SConscript": true, "wscript": true, "pom.xml": true, "build.xml": true,
}

// buildFileExts are the extensions of build files a tool takes by any
// name.
var buildFileExts = map[string]bool{
	".bzl": true, ".gradle": true, ".gyp": true, ".gypi": true, ".csproj": true, ".fsproj": true, ".vbproj": true, ".vcxproj": true,
}

// buildFile says whether path is a build file (buildFiles, buildFileExts).
func buildFile(path string) bool {
	return buildFiles[filepath.Base(path)] || buildFileExts[strings.ToLower(filepath.Ext(path))]
}

// inVenv says whether dir is a virtualenv (beside a pyvenv.cfg) or lies
// in one: the prefix of the host's python there, whose bin/ it runs and
// sources, and whose etc/ and share/ its tools read (IPython's
// etc/ipython/ipython_config.json, whose exec_lines it runs; a Jupyter
// kernel's share/jupyter/kernels/*/kernel.json, whose argv it starts).
// A conda environment (beside a conda-meta) is one as well: conda
// activate sources its etc/conda/activate.d, Jupyter reads its etc/jupyter
// and share/jupyter. Its site-packages is judged by the exit audit.
func (t tree) inVenv(dir string) bool {
	for ; dir != "." && dir != "/"; dir = filepath.Dir(dir) {
		if t.venvs[filepath.Join(dir, "pyvenv.cfg")] || t.venvs[filepath.Join(dir, "conda-meta")] {
			return true
		}
	}
	return false
}

// taskNames are the task files that name what they run by its path
// (sh build/gen in a makefile's recipe, an npm script's "sh tools/gen"),
// and the build files that do as they configure or build: CMake's
// execute_process and include, Meson's run_command, Gradle's exec,
// SCons, Snakemake, tox's commands, a Procfile's processes (foreman,
// overmind, honcho), Nix's imports and shellHook, Bazel's, Tilt's and
// Vagrant's, and pip's requirements (-r more.txt, -e ./pkg, a wheel's
// path), which pip install -r builds and installs.
var taskNames = []string{
	"GNUmakefile", "makefile", "Makefile", "justfile", "Justfile", ".justfile", "Taskfile.yml", "Taskfile.yaml", "Rakefile", "package.json",
	"CMakeLists.txt", "meson.build", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "SConstruct", "SConscript",
	"Snakefile", "tox.ini", "Procfile", "Procfile.dev", "flake.nix", "shell.nix", "default.nix", "BUILD", "BUILD.bazel", "WORKSPACE",
	"MODULE.bazel", "Tiltfile", "Vagrantfile", "composer.json", "deno.json", "deno.jsonc", "pyproject.toml", "requirements.txt",
}

// runnerFiles are the files, relative to a directory, that run what they
// name by its path from that directory, as a task file does, though they
// lie below it: the hooks and MCP servers of the host's agents' project
// settings (Claude Code's, .mcp.json, Codex's, Gemini CLI's), which they
// start there unasked; VS Code's tasks (a folderOpen task runs as the
// folder opens) and the programs its settings and Zed's, Helix's
// languages (the servers it starts as a file opens) and Vim's, Neovim's
// and Emacs' project files name; a dev container's initializeCommand,
// which runs on the host; and the hook managers' configurations, which
// the host's git commit runs. A hook in .claude/settings.json running sh tools/check,
// tools/ ignored, ran the session's tools/check at the host's claude -p.
var runnerFiles = []string{
	".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".codex/config.toml", ".gemini/settings.json",
	".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json", ".zed/tasks.json", ".zed/settings.json",
	".helix/languages.toml", ".nvim.lua", ".nvimrc", ".exrc", ".vimrc", ".dir-locals.el",
	".devcontainer/devcontainer.json", ".devcontainer.json",
	".pre-commit-config.yaml", "lefthook.yml", "lefthook.yaml", ".lefthook.yml", ".lefthook.yaml", "lefthook-local.yml", ".lefthook-local.yml",
}

// hookDirs are where a repository's git hooks lie, relative to its top,
// from which git runs them: its own, and the directories core.hooksPath
// names by custom and husky's (.husky, whose hooks .husky/_ runs); those
// its configuration names are added (hooksIn). A pre-commit hook running sh
// tools/check, tools/ ignored, ran the session's tools/check at the
// host's git commit.
var hookDirs = []string{".git/hooks", ".githooks", ".husky"}

// gitHooks are the names git runs a hook by (githooks(5), git 2.39).
var gitHooks = map[string]bool{
	"applypatch-msg": true, "pre-applypatch": true, "post-applypatch": true, "pre-commit": true, "pre-merge-commit": true,
	"prepare-commit-msg": true, "commit-msg": true, "post-commit": true, "pre-rebase": true, "post-checkout": true,
	"post-merge": true, "pre-push": true, "pre-receive": true, "update": true, "proc-receive": true, "post-receive": true,
	"post-update": true, "reference-transaction": true, "push-to-checkout": true, "pre-auto-gc": true, "post-rewrite": true,
	"sendemail-validate": true, "fsmonitor-watchman": true, "p4-changelist": true, "p4-prepare-changelist": true,
	"p4-post-changelist": true, "p4-pre-submit": true, "post-index-change": true,
}

// maxHookFiles bounds the hooks read in one hooks directory.
const maxHookFiles = 64

// maxTaskText bounds what is read of one task file, maxTasksText of all
// an exit reads (35 ms to index 1 MiB, at load 11 on two cores; 0.3 to
// 0.4 s a MiB of words no two alike), and maxNamedText of one with what
// it reads names from and the files it names (readNames, follow): a
// session's makefile naming 256 files of 1 MiB (links to one) held the
// exit for minutes.
const maxTaskText, maxTasksText, maxNamedText = 1 << 20, 64 << 20, 4 << 20

// taskTexts are the task files and agents' memories read, by their path,
// each indexed once: every ignored file below one asks it the same, and
// a task file of 1 MiB asked by a search of its text for each took
// milliseconds an ask (the exit of a session that left 100,000 files
// there, minutes).
type taskTexts struct {
	sync.Mutex
	read map[string]*taskIndex
	// hooks are the hook files found for a directory, by its path;
	// nested, the repositories whose tops are below the checkout's, by
	// their tops; commands and runs, each repository's configuration's
	// commands indexed, by its top.
	hooks          map[string][]string
	nested         map[string]repository
	commands, runs map[string]*taskIndex
	// listed are the names in each directory task files name files
	// from (follow), read once for all of them: a session's thousand
	// package.json files below a top of 100,000 names would read it a
	// thousand times.
	listed map[string]map[string]bool
	// left is what may still be read and indexed (maxTasksText at first).
	left int
	// imports are what each agent's memory imports, in turn too;
	// anywhere, what all of tree.memories do, once found.
	imports  map[string]map[string]bool
	anywhere map[string]bool
}

// taskIndex is what one task file or agent's memory names, relative to
// its directory and clean: a missing or empty file names nothing.
type taskIndex struct {
	// words are its paths, runs of what a path holds (build/gen in
	// $(CURDIR)/build/gen, gen in NAME := gen), and sorted, the same: a
	// directory one goes through is one it runs from (cd build,
	// build/$(NAME), build/%, $(wildcard build/ge*), find build). Each
	// directory of each word kept apart would be quadratic in a word's
	// length.
	words  map[string]bool
	sorted []string
	// tails are the paths after a variable ($(OUT)/gen, ${OUT}/sub/gen,
	// {{out}}/gen): wherever the variable leads, they end so.
	tails map[string]bool
	// imports are the paths it imports as an agent's memory, relative to
	// the checkout (@../notes/x.md climbs from its directory).
	imports map[string]bool
	// size is how much of it was read; all: it was not read, and names
	// every path below it.
	size int
	all  bool
}

// namedByTask says whether a task file in the directory of path, or in
// one above it, names path (relative to the task file) as a word, or a
// directory path lies in (cd build && sh gen, sh build/$(NAME), sh
// $(OUT)/$(X) with OUT := build, find build -exec sh {} \;), or path's
// end after a variable ($(OUT)/gen): the host's make runs an ignored
// build/gen whatever its name, mode or first line, and git status shows
// nothing of it. What it costs: every ignored file a session makes in a
// directory a task file names is moved aside. The repository's git hooks
// and runnerFiles in a directory above it are asked as its task files are
// (a pre-commit hook's sh tools/check), and the words of the files they
// read names from (NAME := $(shell cat .name)) as theirs. A name beside
// the task file a variable holds whole and the task file spells nowhere
// and reads otherwise is not seen. So is one an agent's memory
// in its folder or above imports (@notes/local.md), which the host's
// claude or gemini reads with it as the user's instructions.
func (t tree) namedByTask(checkout, path string) bool {
	if t.importedAnywhere(checkout)[path] {
		return true
	}
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return false
		}
		for _, name := range agentMemory {
			if memory := filepath.Join(dir, name); t.importsOf(checkout, memory)[path] || t.taskIndex(checkout, memory).all {
				return true
			}
		}
		for _, name := range taskNames {
			if t.taskIndex(checkout, filepath.Join(dir, name)).names(rel) {
				return true
			}
		}
		for _, name := range runnerFiles {
			if t.taskIndex(checkout, filepath.Join(dir, name)).names(rel) {
				return true
			}
		}
		for _, hook := range t.hooksIn(checkout, dir) {
			if t.taskIndex(checkout, hook).names(rel) {
				return true
			}
		}
		if r := t.repoAt(checkout, dir); r.unread || len(r.commands) > 0 && t.commandsIndex(checkout, dir, r.commands, false).names(rel) {
			return true
		}
		if dir == "." || dir == "/" {
			return false
		}
	}
}

// globalHooksDirs are the absolute folders the system's or the user's git
// configuration names as core.hooksPath: each of them, not only the last,
// as an includeIf's (a work folder's hooks) counts only where its
// condition holds, which is not weighed here.
func globalHooksDirs() []string {
	var dirs []string
	for _, dir := range gitConfigValues(userGitConfigs(), "core.hookspath") {
		if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(dir, "~/") {
			dir = filepath.Join(home, dir[2:])
		}
		if filepath.IsAbs(dir) && !slices.Contains(dirs, filepath.Clean(dir)) {
			dirs = append(dirs, filepath.Clean(dir))
		}
	}
	return dirs
}

// repository is the checkout's own repository as the host's git reads it
// there: its configuration files (the common one, the worktree's) and the
// folder of hooks it runs where no core.hooksPath is set, by their
// absolute paths (a linked worktree's lie outside the checkout); none
// outside git.
type repository struct {
	configs []string
	hooks   string
	// commands are the values of the repository's and the user's git
	// configuration, where its commands are (an alias's !sh tools/lint, a
	// filter's sh tools/clean), run at the top; runs, of those, the words
	// of the commands git runs (gitconfig.RunsCommand) that may name a
	// file of the work tree (runWords); pythonAtTop: one runs Python with
	// the top first on its path.
	commands, runs []byte
	pythonAtTop    bool
	// hooksPaths are its core.hooksPath values; unread, that its
	// configuration was past what is read of one (maxConfigsText), or of
	// an exit's (maxTasksText): it is taken to run every file in it.
	hooksPaths []string
	unread     bool
}

// repositoryOf is p's repository.
func repositoryOf(p instance.Project) repository {
	common := commonOf(p)
	if common == "" {
		return repository{}
	}
	r, _ := readRepository(p.GitDir, common, maxConfigsText)
	return r
}

// readRepository is the repository of the git directory gitDir, whose
// common directory is common (a linked worktree's lies elsewhere), its
// configuration read up to limit bytes; and the bytes read.
func readRepository(gitDir, common string, limit int) (repository, int) {
	r := repository{configs: []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree")}, hooks: filepath.Join(common, "hooks")}
	size, whole := eachGitConfigEntry(append(userGitConfigs(), r.configs...), limit, func(e gitconfig.Entry) {
		r.commands = append(append(r.commands, e.Value...), '\n')
		if gitconfig.RunsCommand(e.Key) {
			r.runs = append(append(r.runs, runWords(e.Key, e.Value)...), '\n')
		}
		r.pythonAtTop = r.pythonAtTop || pythonFromHere(e.Value)
		if e.Key == "core.hookspath" && !e.NoValue {
			r.hooksPaths = append(r.hooksPaths, e.Value)
		}
	})
	r.unread = !whole
	return r, size
}

// runWords is what of the value of key, one git runs, may name a file of
// the work tree: an alias's only where it runs the shell (!), and not the
// program's name where it has no slash, which the shell looks up on PATH
// (sh of sh tools/clean, cache of credential.helper's cache --timeout=60,
// a filter's or a tool's single word): a new untracked file the session
// made that such a word names is taken for what git runs.
func runWords(key, value string) string {
	if strings.HasPrefix(key, "alias.") {
		v, ok := strings.CutPrefix(strings.TrimSpace(value), "!")
		if !ok {
			return ""
		}
		value = v
	}
	value = strings.TrimLeft(value, " \t")
	first, rest, _ := strings.Cut(value, " ")
	if strings.Contains(first, "/") {
		return value
	}
	return rest
}

// repoAt is the repository whose top is dir, relative to checkout: the
// checkout's own at its top (tree.repo, where known), and one whose .git
// is a directory or a file naming one (a submodule's, in the top's
// .git/modules), found once; none for any other directory.
func (t tree) repoAt(checkout, dir string) repository {
	if dir == "." && len(t.repo.configs) > 0 {
		return t.repo
	}
	// What the repositories below are read for counts in what an exit
	// reads: a session's hundreds of them each read 1 MiB.
	limit := maxConfigsText
	if t.tasks != nil {
		t.tasks.Lock()
		r, ok := t.tasks.nested[dir]
		limit = min(limit, t.tasks.left)
		t.tasks.Unlock()
		if ok {
			return r
		}
	}
	r, size := nestedRepository(checkout, dir, limit)
	if t.tasks != nil {
		t.tasks.Lock()
		if t.tasks.nested == nil {
			t.tasks.nested = map[string]repository{}
		}
		t.tasks.nested[dir] = r
		t.tasks.left -= size
		t.tasks.Unlock()
	}
	return r
}

// nestedRepository is the repository whose top is dir below checkout, as
// git there finds its git directory: dir/.git, or where a .git file's
// gitdir: line says (a submodule's, a linked worktree's), and its common
// directory where that one's commondir says; its configuration read up
// to limit bytes, which it returns it read.
func nestedRepository(checkout, dir string, limit int) (repository, int) {
	top := filepath.Join(checkout, dir)
	fi, err := untrusted.Lstat(checkout, filepath.Join(dir, ".git"))
	if err != nil {
		return repository{}, 0
	}
	gitDir := filepath.Join(top, ".git")
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		b, err := untrusted.ReadFile(checkout, filepath.Join(dir, ".git"), 4096)
		line, _, _ := strings.Cut(string(b), "\n")
		named, ok := strings.CutPrefix(line, "gitdir:")
		if err != nil || !ok {
			return repository{}, 0
		}
		if gitDir = strings.TrimSpace(named); !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(top, gitDir)
		}
	default:
		return repository{}, 0
	}
	common := gitDir
	if b, err := untrusted.ReadFile(gitDir, "commondir", 4096); err == nil {
		if common = strings.TrimSpace(string(b)); !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	return readRepository(filepath.Clean(gitDir), filepath.Clean(common), limit)
}

// pythonFromHere says whether command runs Python with the directory it
// runs in first on its path: python3 -m or -c, as nbstripout --install
// has git clean and diff every notebook ("python3" -m nbstripout), at the
// work tree's top, where a nbstripout.py, or a json.py it imports, is
// what it runs; not with -I or -P, which leave that directory out.
func pythonFromHere(command string) bool {
	python := false
	for _, w := range strings.FieldsFunc(command, func(r rune) bool { return strings.ContainsRune(" \t\n\"'!;&|()`", r) }) {
		if base := filepath.Base(w); strings.HasPrefix(base, "python") && strings.Trim(base[len("python"):], "0123456789.") == "" {
			python = true
			continue
		}
		if !python {
			continue
		}
		switch {
		case w == "-I" || w == "-P" || !strings.HasPrefix(w, "-"):
			// Isolated, or a script: its own directory goes first.
			python = false
		case strings.HasPrefix(w, "-m") || strings.HasPrefix(w, "-c"):
			return true
		}
	}
	return false
}

// moduleDir is the directory Python imports path from as a module: its
// own for a module (json.py, json.pyc, an extension's .so), its parent's
// for a package's __init__; ok is false for anything else.
func moduleDir(path string) (dir string, ok bool) {
	switch filepath.Ext(path) {
	case ".py", ".pyc", ".so", ".pyw":
	default:
		return "", false
	}
	dir = dirOf(path)
	if dir != "." && strings.HasPrefix(filepath.Base(path), "__init__.") {
		return dirOf(dir), true
	}
	return dir, true
}

// importedAtTop says whether the host's git, running Python from a
// repository's top (repository.pythonAtTop), imports path there: the
// checkout's, or a repository's below it, whose git status the top's runs
// (a submodule's). A module the session made there is judged as one git
// ignores, though git status would name it, since the git status that
// names it runs it first.
func (t tree) importedAtTop(checkout, path string) bool {
	dir, ok := moduleDir(path)
	if !ok || dir != "." && !t.repos[dir] {
		return false
	}
	// A repository below reads the user's configuration, the top's
	// commands among them, and its own.
	if t.repo.pythonAtTop || t.repo.unread {
		return true
	}
	if dir == "." {
		return false
	}
	r := t.repoAt(checkout, dir)
	return r.pythonAtTop || r.unread
}

// hooksIn lists the git hooks of a repository whose top is dir (relative
// to checkout), relative to checkout where they lie in it: those in
// hookDirs and in each directory core.hooksPath names, found once. At the
// top, the checkout's own repository's (tree.repo): what its
// configuration and the files it includes name, wherever it lies (a
// tracked .gitconfig each clone includes, a linked worktree's common
// hooks/), and the user's own; below, a nested repository's .git/config
// names them, in the checkout only.
func (t tree) hooksIn(checkout, dir string) []string {
	if t.tasks != nil {
		t.tasks.Lock()
		got, ok := t.tasks.hooks[dir]
		t.tasks.Unlock()
		if ok {
			return got
		}
	}
	dirs := slices.Clone(hookDirs)
	var outside []string
	// add adds a hooks directory, relative to dir where it lies below it.
	add := func(p string, anywhere bool) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(checkout, dir, p)
		}
		p = filepath.Clean(p)
		if rel, err := filepath.Rel(filepath.Join(checkout, dir), p); err == nil && filepath.IsLocal(rel) {
			if !slices.Contains(dirs, rel) {
				dirs = append(dirs, rel)
			}
		} else if anywhere && !slices.Contains(outside, p) {
			outside = append(outside, p)
		}
	}
	if r := t.repoAt(checkout, dir); len(r.configs) > 0 {
		add(r.hooks, true)
		for _, p := range r.hooksPaths {
			if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(p, "~/") {
				p = filepath.Join(home, p[2:])
			}
			add(p, true)
		}
		// The user's own core.hooksPath (one folder of hooks for every
		// repository, whose hook may hand over to the project's script
		// when there is one), by its absolute path.
		for _, global := range globalHooksDirs() {
			add(global, true)
		}
	}
	var hooks []string
	for _, d := range dirs {
		n := 0
		untrusted.EachEntry(checkout, filepath.Join(dir, d), func(e fs.DirEntry) {
			if n < maxHookFiles && gitHooks[e.Name()] && e.Type().IsRegular() {
				n++
				hooks = append(hooks, filepath.Join(dir, d, e.Name()))
			}
		})
	}
	for _, d := range outside {
		n := 0
		untrusted.EachEntry(d, ".", func(e fs.DirEntry) {
			if n < maxHookFiles && gitHooks[e.Name()] && e.Type().IsRegular() {
				n++
				hooks = append(hooks, filepath.Join(d, e.Name()))
			}
		})
	}
	if t.tasks != nil {
		t.tasks.Lock()
		if t.tasks.hooks == nil {
			t.tasks.hooks = map[string][]string{}
		}
		t.tasks.hooks[dir] = hooks
		t.tasks.Unlock()
	}
	return hooks
}

// commandsIndex is the index of the commands of the configuration of the
// repository whose top is dir (repository.commands, or runs), made once.
func (t tree) commandsIndex(checkout, dir string, commands []byte, runs bool) *taskIndex {
	if t.tasks == nil {
		return indexTask(commands, checkout, dir, map[string]map[string]bool{})
	}
	t.tasks.Lock()
	defer t.tasks.Unlock()
	made := &t.tasks.commands
	if runs {
		made = &t.tasks.runs
	}
	if *made == nil {
		*made = map[string]*taskIndex{}
	}
	x, ok := (*made)[dir]
	if !ok {
		if dir != "." && t.tasks.left <= 0 {
			// Past what an exit reads, a repository below the top's
			// commands name every file in it (repoAt).
			x = &taskIndex{all: true}
		} else {
			x = indexTask(commands, checkout, dir, t.tasks.listedDirs())
			t.tasks.left -= x.size
		}
		(*made)[dir] = x
	}
	return x
}

// runByGit says whether a command git's configuration runs at the top of
// the repository path lies in (the checkout's, or one below it) names
// path (repository.runs): a filter's sh tools/strip.sh, which the host's
// git status runs on a file whose time changed before it lists the new
// tools/strip.sh. Such a file the session made is moved aside where git
// does not ignore it too.
func (t tree) runByGit(checkout, path string) bool {
	for dir := dirOf(path); ; dir = dirOf(dir) {
		if dir == "." || t.repos[dir] {
			r := t.repoAt(checkout, dir)
			rel := path
			if dir != "." {
				rel = path[len(dir)+1:]
			}
			if r.unread || len(r.runs) > 0 && t.commandsIndex(checkout, dir, r.runs, true).names(rel) {
				return true
			}
		}
		if dir == "." {
			return false
		}
	}
}

// names says whether the task file names rel: as a word, by a directory
// it lies in, or by its end after a variable.
func (x *taskIndex) names(rel string) bool {
	if x.all || x.words[rel] || x.tails[rel] {
		return true
	}
	for i := range len(rel) {
		if rel[i] != '/' {
			continue
		}
		if x.tails[rel[i+1:]] || x.words[rel[:i]] {
			return true
		}
		// A word below the directory sorts first among those after it
		// and its slash.
		if j, _ := slices.BinarySearch(x.sorted, rel[:i+1]); j < len(x.sorted) && strings.HasPrefix(x.sorted[j], rel[:i+1]) {
			return true
		}
	}
	return false
}

// taskIndex is the index of the task file or agent's memory at path
// (relative to checkout), read once.
func (t tree) taskIndex(checkout, path string) *taskIndex {
	if t.tasks != nil {
		t.tasks.Lock()
		defer t.tasks.Unlock()
		if x, ok := t.tasks.read[path]; ok {
			return x
		}
	}
	var b []byte
	root, name := checkout, path
	if filepath.IsAbs(path) {
		// A hook of the user's own, outside the checkout.
		root, name = filepath.Dir(path), filepath.Base(path)
	}
	f, err := untrusted.Open(root, name)
	if err == nil {
		if t.tasks != nil && t.tasks.left <= 0 {
			// Past what an exit indexes (a session's thousands of task
			// files of 1 MiB would hold it for minutes), one unread names
			// everything below it.
			f.Close()
			x := &taskIndex{all: true}
			t.tasks.read[path] = x
			return x
		}
		b, _ = io.ReadAll(io.LimitReader(f, maxTaskText))
		f.Close()
	}
	// An agent's memory (Markdown), and what it imports, is read for its
	// imports alone.
	var listed map[string]map[string]bool
	switch {
	case strings.EqualFold(filepath.Ext(path), ".md"):
	case t.tasks != nil:
		listed = t.tasks.listedDirs()
	default:
		listed = map[string]map[string]bool{}
	}
	x := indexTask(b, checkout, filepath.Dir(path), listed)
	if t.tasks != nil {
		t.tasks.left -= x.size
		t.tasks.read[path] = x
	}
	return x
}

// listedDirs is taskTexts.listed, made where none is; the caller holds
// the lock.
func (tt *taskTexts) listedDirs() map[string]map[string]bool {
	if tt.listed == nil {
		tt.listed = map[string]map[string]bool{}
	}
	return tt.listed
}

// indexTask indexes text, the file's in dir (relative to checkout), in
// one pass, and, where listed is not nil, what the files it names hold
// (follow), each directory's names kept in listed.
func indexTask(text []byte, checkout, dir string, listed map[string]map[string]bool) *taskIndex {
	x := &taskIndex{words: map[string]bool{}, tails: map[string]bool{}, imports: map[string]bool{}}
	imported := 0
	// What it reads names from as it runs: the word after a command that
	// prints a file (cat, head, tail) and its options, or after a
	// redirection (<, $(file <...)).
	var read []string
	reader, end := false, 0
	for i := 0; i < len(text); {
		if !pathByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && pathByte(text[j]) {
			j++
		}
		word := string(text[i:j])
		gap := text[end:i]
		for len(gap) > 0 && (gap[len(gap)-1] == ' ' || gap[len(gap)-1] == '\t') {
			gap = gap[:len(gap)-1]
		}
		redirected := len(gap) > 0 && gap[len(gap)-1] == '<' && (len(gap) == 1 || gap[len(gap)-2] != '<' && gap[len(gap)-2] != '$')
		if reader || redirected {
			// An option, or its count (head -n 1 .name).
			option := word[0] == '-' || strings.Trim(word, "0123456789") == ""
			if !option && !filepath.IsAbs(word) && (redirected || len(gap) == 0) && !slices.Contains(read, word) {
				read = append(read, word)
			}
			reader = reader && option && len(gap) == 0
		}
		if word == "cat" || word == "head" || word == "tail" {
			reader = true
		}
		end = j
		if i > 0 && (text[i-1] == ')' || text[i-1] == '}') && word[0] == '/' {
			if tail := filepath.Clean(word[1:]); filepath.IsLocal(tail) {
				x.tails[tail] = true
			}
		}
		// A slash before it may be a directory's ($(CURDIR)/build/gen).
		if w := filepath.Clean(strings.TrimLeft(word, "/")); filepath.IsLocal(w) {
			x.words[w] = true
		}
		// An import runs to a space, which a backslash escapes for Claude
		// Code: an @ within one begins none.
		if word[0] == '@' && i >= imported && (i == 0 || isSpace(text[i-1])) {
			imported = i + 1 + x.imported(text[i+1:], checkout, dir)
		}
		i = j
	}
	x.size = len(text)
	x.readNames(read, checkout, dir)
	if listed != nil && !x.all && filepath.IsLocal(dir) {
		x.follow(checkout, dir, listed)
	}
	x.sorted = slices.Sorted(maps.Keys(x.words))
	return x
}

// maxFollowed bounds the files one task file is taken to run or read
// names from by naming them (follow), and maxLooks the words looked up as
// its files whose first part is a name in the directory: past either, or
// past maxNamedText read, it names every path below it.
const maxFollowed, maxLooks = 256, 1 << 15

// follow adds the words of each file the task file names, in its
// directory or one above it, where it may run, and of each file those
// name in turn: whatever runs or reads it may run what it names (make's
// sh scripts/gen.sh, whose sh tools/gen, or read N < .name then sh $N,
// runs an ignored tools/gen; $(shell sed -n 1p .name) does as cat does).
// A file's words are taken from its own directory too (cd "$(dirname
// "$0")" && sh ../tools/gen). Not read: a compiled language's sources
// (compiledSources), which a task builds rather than runs or reads
// names from, a binary file, and past maxTaskText of one.
func (x *taskIndex) follow(checkout, dir string, listed map[string]map[string]bool) {
	read := map[string]bool{}
	looks := 0
	// The names in each directory the words are looked up from, read
	// once: a word whose first part is none of them is no file there,
	// without a call to the kernel (a makefile's words are mostly no
	// file's).
	in := func(d, w string) bool {
		names, ok := listed[d]
		if !ok {
			names = map[string]bool{}
			untrusted.EachEntry(checkout, d, func(e fs.DirEntry) { names[e.Name()] = true })
			listed[d] = names
		}
		first, _, _ := strings.Cut(w, "/")
		return names[first]
	}
	queue := slices.Sorted(maps.Keys(x.words))
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		for d := dir; ; d = filepath.Dir(d) {
			p := filepath.Join(d, w)
			if filepath.IsLocal(p) && !read[p] && !compiledSources[strings.ToLower(filepath.Ext(p))] && in(d, w) {
				if looks++; looks > maxLooks {
					x.all = true
					return
				}
				if b, ok := namedText(checkout, p); ok {
					if read[p] = true; len(read) > maxFollowed {
						x.all = true
						return
					}
					if x.size += len(b); x.size > maxNamedText {
						x.all = true
						return
					}
					from, _ := filepath.Rel(dir, filepath.Dir(p))
					for _, f := range bytes.FieldsFunc(b, func(r rune) bool { return r > 0x7f || !pathByte(byte(r)) }) {
						nw := filepath.Clean(strings.TrimLeft(string(f), "/"))
						for _, c := range []string{nw, filepath.Join(from, nw)} {
							if filepath.IsLocal(c) && !x.words[c] {
								x.words[c] = true
								queue = append(queue, c)
							}
						}
					}
				}
			}
			if d == "." || !filepath.IsLocal(d) {
				break
			}
		}
	}
}

// namedText is the text of the file at path (relative to checkout), its
// first maxTaskText: ok is false for what is no regular file, or a binary
// one (a NUL in its first 8,000 bytes, as git judges one).
func namedText(checkout, path string) ([]byte, bool) {
	f, err := untrusted.Open(checkout, path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTaskText))
	if err != nil || bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return nil, false
	}
	return b, true
}

// compiledSources are the extensions of a compiled language's sources and
// headers, which a task file names to build them: not read for names
// (a C project's makefile names hundreds).
var compiledSources = map[string]bool{
	".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".c++": true, ".hpp": true, ".hh": true, ".hxx": true,
	".m": true, ".mm": true, ".go": true, ".rs": true, ".java": true, ".kt": true, ".scala": true, ".swift": true, ".cs": true,
	".fs": true, ".zig": true, ".hs": true, ".ml": true, ".mli": true, ".f": true, ".f90": true, ".s": true,
}

// maxNameFiles bounds the files one task file is taken to read names from,
// past which it names every path below it.
const maxNameFiles = 64

// readNames adds the words of the files the task file reads names from
// (files, as it spells them), in its directory or one above it, where
// the task may run (a hook of .git/hooks runs at the top): a makefile's
// sh $(NAME), NAME := $(shell cat .name), runs what .name holds, which
// it spells nowhere. One too large to read names every path below it,
// as do more such files than maxNameFiles, and past maxNamedText read.
func (x *taskIndex) readNames(files []string, checkout, dir string) {
	if len(files) > maxNameFiles {
		x.all = true
		return
	}
	for _, name := range files {
		for d := dir; ; d = filepath.Dir(d) {
			if p := filepath.Join(d, name); filepath.IsLocal(p) {
				b, err := untrusted.ReadFile(checkout, p, maxTaskText)
				if x.size += len(b); errors.Is(err, untrusted.ErrTooLarge) || x.size > maxNamedText {
					x.all = true
					return
				}
				for _, w := range bytes.FieldsFunc(b, func(r rune) bool { return r > 0x7f || !pathByte(byte(r)) }) {
					if w := filepath.Clean(strings.TrimLeft(string(w), "/")); filepath.IsLocal(w) {
						x.words[w] = true
					}
				}
			}
			if d == "." || d == "/" || !filepath.IsLocal(d) {
				break
			}
		}
	}
}

// imported adds what an agent's memory imports where it says @ then
// rest: Claude Code ends the path at a space not escaped (my\ notes.md)
// and at a #, Gemini CLI at any space; the part a path may hold of it is
// taken too.
// It returns the length of the import's word.
func (x *taskIndex) imported(rest []byte, checkout, dir string) int {
	end := 0
	for end < len(rest) && (!isSpace(rest[end]) || rest[end] == ' ' && end > 0 && rest[end-1] == '\\') {
		end++
	}
	word := string(rest[:end])
	gemini, _, _ := strings.Cut(word, " ")
	gemini = strings.TrimSuffix(gemini, "\\")
	claude, _, _ := strings.Cut(strings.ReplaceAll(word, "\\ ", " "), "#")
	plain := word
	if k := strings.IndexFunc(word, func(r rune) bool { return r > 0x7f || !pathByte(byte(r)) }); k >= 0 {
		plain = word[:k]
	}
	for _, w := range []string{gemini, claude, plain} {
		if !filepath.IsAbs(w) {
			w = filepath.Join(checkout, dir, w)
		}
		if rel, err := filepath.Rel(checkout, w); err == nil && filepath.IsLocal(rel) {
			x.imports[rel] = true
		}
	}
	return end
}

// maxImportDepth is how deep Claude Code and Gemini CLI follow imports
// (an imported file's own, in turn); maxImportsRead bounds the files read
// for one memory's, and maxImportText what is read of them: a tree of
// your instructions holds a handful.
const (
	maxImportDepth, maxImportsRead = 5, 256
	maxImportText                  = 64 << 20
)

// importsOf is what the agent's memory at path imports, and what those
// import in turn (Claude Code's @docs/agent.md whose @../notes/local.md
// it reads too), relative to checkout, found once.
func (t tree) importsOf(checkout, path string) map[string]bool {
	if t.tasks != nil {
		t.tasks.Lock()
		got, ok := t.tasks.imports[path]
		t.tasks.Unlock()
		if ok {
			return got
		}
	}
	reached := t.importedFrom(checkout, []string{path}, maxImportsRead)
	if t.tasks != nil {
		t.tasks.Lock()
		t.tasks.imports[path] = reached
		t.tasks.Unlock()
	}
	return reached
}

// maxImportsAnywhere bounds the files read for all of tree.memories' imports.
const maxImportsAnywhere = 4096

// importedAnywhere is what tree.memories import, in turn too (a tracked
// sub/GEMINI.md's @../notes/local.md), found once.
func (t tree) importedAnywhere(checkout string) map[string]bool {
	if len(t.memories) == 0 {
		return nil
	}
	if t.tasks != nil {
		t.tasks.Lock()
		got := t.tasks.anywhere
		t.tasks.Unlock()
		if got != nil {
			return got
		}
	}
	reached := t.importedFrom(checkout, t.memories, maxImportsAnywhere)
	if t.tasks != nil {
		t.tasks.Lock()
		t.tasks.anywhere = reached
		t.tasks.Unlock()
	}
	return reached
}

// importedFrom is what the memory files import, and what those import in
// turn, maxImportDepth deep, up to most files and maxImportText read.
func (t tree) importedFrom(checkout string, memories []string, most int) map[string]bool {
	reached := map[string]bool{}
	text := 0
	for depth, files := 0, memories; depth < maxImportDepth && len(files) > 0; depth++ {
		var next []string
		for _, f := range files {
			x := t.taskIndex(checkout, f)
			if text += x.size; text > maxImportText {
				return reached
			}
			for imp := range x.imports {
				if !reached[imp] && len(reached) < most {
					reached[imp] = true
					next = append(next, imp)
				}
			}
		}
		files = next
	}
	return reached
}

// isSpace says whether c is what ends an agent's import.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// pathByte says whether c may be part of a file's name in a task file.
func pathByte(c byte) bool {
	return c == '.' || c == '_' || c == '-' || c == '/' || c == '+' || c == '@' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// codeExts are the extensions of the files an interpreter runs, or a
// compiler, a linker or a loader takes in, by their name alone: the host
// runs an ignored scripts/dev.sh as sh scripts/dev.sh and a build's
// dist/index.js as node dist/index.js, which need neither a #! line nor
// +x, make links the object files it takes for up to date, cargo the
// compiled crates (.rlib, .rmeta) of a target directory it is told of
// (.cargo/config.toml's target-dir, CARGO_TARGET_DIR), and go build
// compiles an ignored vendor/ (generated sources, a header, likewise),
// and cgo every file of a package's directory it takes (an assembly .S
// adds a constructor the program runs as it starts, Fortran's, SWIG's),
// and Bundler evaluates, as Ruby, the gemspec of a gem the Gemfile takes
// from a path (vendor/tool/tool.gemspec), rackup a config.ru, ERB the
// Ruby of a template (.erb), and
// terraform plan every .tf of its directory, merging an ignored
// override.tf over the rest, and Python's pickle runs what an object it
// loads names (a model or a cache a script keeps where git ignores it:
// .pkl, .pickle, joblib's and dill's, and PyTorch's and Lightning's
// checkpoints, .pt, .pth and .ckpt: a zip of a pickle that torch.load
// unpickles whole where asked weights_only=False, as torch before 2.6
// did unasked), and MSBuild imports every .props and .targets of its
// kind unasked (Directory.Build.props and .targets up the tree, a
// project's .csproj.user, the obj/*.nuget.g.targets a restore wrote and
// the next restore leaves while its inputs are unchanged, whose <Exec>
// runs at the host's dotnet build), and a Directory.Build.rsp's options
// (-logger loads an assembly), and dotnet runs a managed assembly (.dll,
// .exe: its bin/ output, which an incremental build takes for up to
// date), and sbt loads every .sbt at a build's root, Clojure's tools
// its sources (.clj, .cljc).
// What it is at the end does not say what the host runs: the session
// chose it.
var codeExts = map[string]bool{
	".go": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".cxx": true, ".hh": true, ".hpp": true,
	".rs": true, ".java": true, ".kt": true, ".scala": true, ".swift": true, ".m": true, ".mm": true, ".cs": true,
	".s": true, ".sx": true, ".hxx": true, ".f": true, ".for": true, ".f90": true, ".swig": true, ".swigcxx": true,
	".ex": true, ".exs": true, ".erl": true, ".hs": true, ".ml": true, ".zig": true, ".dart": true,
	".vue": true, ".svelte": true,
	".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".ksh": true,
	".py": true, ".pyw": true, ".js": true, ".cjs": true, ".mjs": true, ".jsx": true,
	".ts": true, ".cts": true, ".mts": true, ".tsx": true, ".rb": true, ".gemspec": true, ".ru": true, ".pl": true, ".pm": true,
	".php": true, ".lua": true, ".tcl": true, ".r": true, ".jl": true, ".groovy": true, ".kts": true,
	".ps1": true, ".awk": true, ".el": true, ".elc": true, ".vim": true,
	".o": true, ".a": true, ".so": true, ".dylib": true, ".node": true, ".wasm": true, ".rlib": true, ".rmeta": true,
	".jar": true, ".class": true, ".beam": true,
	".tf": true, ".tofu": true, ".erb": true,
	".pkl": true, ".pickle": true, ".joblib": true, ".dill": true, ".pt": true, ".pth": true, ".ckpt": true,
	".fs": true, ".fsx": true, ".vb": true, ".dll": true, ".exe": true, ".props": true, ".targets": true, ".user": true, ".rsp": true,
	".sbt": true, ".clj": true, ".cljc": true,
}

// packageArchive says whether path is a package, or an archive a tool
// unpacks and runs, by its extension: npm install unpacks the tarball a
// package.json takes from the project (file:vendor/pkg.tgz) and runs its
// postinstall, pip installs a wheel or an sdist by its path, running an
// sdist's setup.py, Bundler installs the gems of vendor/cache, building
// their extensions, ./gradlew unpacks the zip its wrapper's
// distributionUrl names and runs it as Gradle. What one holds is the
// session's as a script's lines are; its name says nothing of which
// tool takes it.
func packageArchive(path string) bool {
	lower := strings.ToLower(path)
	for _, ext := range archiveExts {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// archiveExts are the extensions of packages and of the archives tools
// unpack and run.
var archiveExts = []string{".tgz", ".tar", ".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst", ".zip", ".whl", ".egg", ".gem", ".nupkg", ".crate", ".vsix"}

// yaml says whether path is a YAML file: Rails reads config/database.yml,
// and each config/*.yml config_for loads, through ERB before YAML, so
// <%= system(…) %> there runs at the host's rails runner, rails s and
// rails test, as it does in figaro's config/application.yml, Sidekiq's,
// Kamal's and RuboCop's YAML; and YAML is what host tools' own settings
// are written in, kept out of git as a developer's own
// (lefthook-local.yml's commands). No list of the tools that run what one
// says could be complete.
func yaml(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yml" || ext == ".yaml"
}

// cargoBuildOutput says whether path is what a crate's build script
// printed, which cargo keeps in its target directory
// (build/<crate>-<hash>/output) and applies again at each build of the
// crate while the script is fresh, without running it: its
// cargo:rustc-link-arg=-wrapper has the linker's driver run any command,
// in whatever directory .cargo/config.toml's target-dir names.
func cargoBuildOutput(path string) bool {
	dir := filepath.Base(filepath.Dir(path))
	i := strings.LastIndexByte(dir, '-')
	return filepath.Base(path) == "output" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "build" &&
		i > 0 && len(dir)-i-1 == 16 && strings.Trim(dir[i+1:], "0123456789abcdef") == ""
}

// buildState says whether path is a build directory's state that the
// host's build reads as it stands: CMake's CMakeCache.txt, whose change
// regenerates the makefiles at the next cmake --build or make, writing a
// CMAKE_C_COMPILER_LAUNCHER added there into the command of each
// compile, and Meson's meson-private/*.dat, Python pickles that meson
// compile (and ninja's check that the build is current), meson install
// and meson test load, which runs what they say.
func buildState(path string) bool {
	return filepath.Base(path) == "CMakeCache.txt" || filepath.Base(filepath.Dir(path)) == "meson-private" && filepath.Ext(path) == ".dat"
}

// terraformJSON says whether path is a Terraform (or OpenTofu) file in its
// JSON form, which terraform plan loads as it does a .tf: an ignored
// *_override.tf.json (Terraform's .gitignore template ignores them)
// overrides the program of a data source it runs.
func terraformJSON(path string) bool {
	lower := strings.ToLower(path)
	return strings.HasSuffix(lower, ".tf.json") || strings.HasSuffix(lower, ".tofu.json")
}

// timeSetBack is TimeSetBack of the tree of checkout.
func (t tree) timeSetBack(checkout string) []string {
	var paths []string
	for path, st := range t.recent {
		if typ := st.mode & unix.S_IFMT; st.setBack && (typ == unix.S_IFREG || typ == unix.S_IFLNK) {
			paths = append(paths, filepath.Join(checkout, path))
		}
	}
	slices.Sort(paths)
	return paths
}

// linkAbove is the symlink the session made in place of a directory
// above path, if any.
func (t tree) linkAbove(path string) string {
	for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
		if st, ok := t.recent[dir]; ok {
			if st.mode&unix.S_IFMT == unix.S_IFLNK {
				return dir
			}
			return ""
		}
	}
	return ""
}

// linksOut says whether path, one the session made, is a link that
// leads out of the checkout, or into what the host's tools obey there (a
// git directory, a .claude, a .vscode): a build or an install of the
// host's that writes by its path writes there (make's cp -r static/.
// dist/, dist the session's link to ~/.local/bin or .git/hooks), and git
// status shows a new dist, not where it leads. A link it cannot read or
// resolve leads out.
func (t tree) linksOut(checkout, path string) bool {
	if st, ok := t.recent[path]; !ok || st.mode&unix.S_IFMT != unix.S_IFLNK {
		return false
	}
	target, err := untrusted.Readlink(checkout, path)
	top, terr := filepath.EvalSymlinks(checkout)
	if err != nil || terr != nil {
		return true
	}
	if !filepath.IsAbs(target) {
		// Not joined, which would take sub/.. for . whatever sub is.
		target = filepath.Join(top, filepath.Dir(path)) + "/" + target
	}
	real, ok := resolved(target)
	rel, err := filepath.Rel(top, real)
	if !ok || err != nil || !filepath.IsLocal(rel) && rel != "." {
		return true
	}
	names := strings.Split(rel, string(filepath.Separator))
	for i, name := range names {
		if projectfiles.Is(name, ".git", false) && annexObject(names[i+1:]) && readOnlyFile(real) {
			// An annexed file: git-annex's own link to its content, which
			// it keeps read-only and the exit checks against its key.
			return false
		}
		if _, obeyed := projectfiles.Lookup(name, false); obeyed || projectfiles.Is(name, ".git", false) {
			return true
		}
	}
	return false
}

// annexObject says names, below a git directory, are git-annex's path to
// an object: annex/objects/<hash>/<hash>/<key>/<key>. Not one of its
// folders, which a build copying into a link to it writes in, an
// object among them.
func annexObject(names []string) bool {
	return len(names) == 6 && names[0] == "annex" && names[1] == "objects" && names[4] == names[5]
}

// readOnlyFile says path is a regular file no one may write, as git-annex
// keeps an object: one the session made writable (chmod u+w, which the
// exit's check against its key does not see) is what the host's build
// writing through a link to it rewrites, and an annexed script with it.
func readOnlyFile(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o222 == 0
}

// resolved is path (absolute) with its links resolved as the kernel
// resolves them where the host writes through it, a link that leads
// nowhere yet followed too (an open that creates, cc -o, a shell's >,
// writes where it leads), each .. taken after the link before it; a
// component that does not exist is taken for a directory, as a mkdir -p
// would make it. Past 40 links (the kernel's bound), or where it cannot
// read a link or look, or past 1,024 components looked at (a session's
// links, each to x/.. repeated and then the next, held the exit 0.4 s
// each at 40 links), or through /proc, it says so. Cleaning the rest as written, once
// a component was missing, took a .. after a link for one after the
// link's name: tool, a link to trick/up/../home/.local/bin/git with
// trick/up a link to the top, read as within the checkout.
func resolved(path string) (string, bool) {
	done, rest, links := "/", path, 0
	for steps := 0; ; steps++ {
		rest = strings.TrimLeft(rest, "/")
		if rest == "" {
			return done, true
		}
		if steps == 1024 {
			return "", false
		}
		name, after, _ := strings.Cut(rest, "/")
		rest = after
		switch name {
		case ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, name)
		if next == "/proc" {
			// What /proc/self/cwd names is the directory of whichever
			// process follows it: claudebox's here, the host's build's
			// there.
			return "", false
		}
		var st unix.Stat_t
		switch err := unix.Lstat(next, &st); {
		case err == unix.ENOENT || err == unix.ENOTDIR:
			done = next
			continue
		case err != nil:
			return "", false
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if links++; err != nil || links > 40 {
			return "", false
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = target + "/" + rest
	}
}

// nested says whether path lies in a repository below the top.
func (t tree) nested(path string) bool {
	for dir := filepath.Dir(path); dir != "."; dir = filepath.Dir(dir) {
		if t.repos[dir] {
			return true
		}
	}
	return false
}

// NestedChanges is, in a checkout that is no repository (a folder of
// them), what RecordChanges takes for findings in one (HostRun): the
// files the session that began at wrote in the repositories below it
// that the host runs and their rules ignore, and those their git runs
// as its status lists them, ignored or not (absolute paths), and the
// files it changed and set the time of back (TimeSetBack). git asks its
// rules without their repositories' configuration, on a store of its
// own.
func NestedChanges(stateDir, checkout string, began time.Time, skip []string, reopen *audit.Reopener) Changes {
	now, _ := walkCheckout(checkout, skip, began, reopen, nil, nil)
	return Changes{HostRun: nestedHostRun(stateDir, checkout, now), TimeSetBack: now.timeSetBack(checkout), IgnoredPartial: true}
}

// nestedHostRun is NestedChanges' HostRun, of the walk now.
func nestedHostRun(stateDir, checkout string, now tree) []string {
	found := now.unreadChanged(checkout)
	var wrote []string
	for _, path := range slices.Sorted(maps.Keys(now.recent)) {
		switch {
		case !now.nested(path):
		case now.importedAtTop(checkout, path) || now.runByGit(checkout, path) || now.linksOut(checkout, path):
			// The git status that would name it runs it first, or it
			// leads the host's build out.
			found = append(found, filepath.Join(checkout, path))
		case now.hostRun(checkout, path):
			wrote = append(wrote, path)
		}
	}
	if len(wrote) == 0 {
		return found
	}
	st := storeOf(stateDir, checkout)
	// Unless git says which it ignores, each is taken for ignored.
	ignored, asked := map[string]bool{}, false
	if now.oddIgnore == "" && os.MkdirAll(st.dir, 0o700) == nil {
		if _, serr := os.Stat(filepath.Join(st.gitDir, "HEAD")); serr == nil || exec.Command("git", "init", "-q", "--bare", st.gitDir).Run() == nil {
			var err error
			ignored, err = st.ignoredOf(checkout, wrote)
			asked = err == nil
		}
	}
	for _, path := range wrote {
		if !asked || ignored[path] {
			found = append(found, filepath.Join(checkout, path))
		}
	}
	return found
}

// skipped says whether path is a stand-in or lies in one, or in a
// directory not read in full ("." the top) or not kept.
func (t tree) skipped(path string) bool {
	if t.cut {
		if _, kept := t.dirs[dirOf(path)]; !kept {
			return true
		}
	}
	return slices.ContainsFunc(t.skip, func(s string) bool { return s == "." || paths.Within(path, s) })
}

// takenAside says whether the entry at rel in the checkout, beside a
// stand-in, is one being removed: the stand-ins go while the walk reads,
// each first renamed aside (untrusted.RemoveIf), where the walk had
// listed it as made. An entry so named that is no stand-in (the
// sandbox's own) is walked as any other.
func takenAside(checkout, rel string) bool {
	if !strings.HasPrefix(filepath.Base(rel), untrusted.AsidePrefix) {
		return false
	}
	path := filepath.Join(checkout, rel)
	fi, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist) || err == nil && instance.IsStandIn(path, fi)
}

// join is the path of name in the directory rel, "." the top.
func join(rel, name string) string {
	if rel == "." {
		return name
	}
	return rel + "/" + name
}

// walkCheckout reads the checkout's files, never following a symlink nor
// entering a git directory, the top's directories side by side; since is
// the session's start. What it cannot read in full (a directory it cannot
// open, one too deep, one holding a change past keptLimit) it says in its
// error, and in the tree's unread. What the session closed of the user's
// that it meets, reopen (nil for none) gives back, and it goes in.
//
// The files of compared (nil for none) in a directory whose status is
// from before since (it holds the names it held then) are not read: the
// host's git shows their change.
//
// dirs (nil for none) gives the names of directories that did not change
// since the last exit's walk read them, and takes those of the directories
// read whose status is from before since, for the next (dirrecord.go).
func walkCheckout(checkout string, skip []string, since time.Time, reopen *audit.Reopener, compared gitCompared, dirs *dirRecords) (tree, error) {
	t := tree{tasks: &taskTexts{read: map[string]*taskIndex{}, imports: map[string]map[string]bool{}, left: maxTasksText}, recent: map[string]fileStatus{}, dirs: map[string]map[string]bool{}, venvs: map[string]bool{}, repos: map[string]bool{}, gone: map[string]bool{}}
	if dirs != nil {
		// As many as the last exit kept: the map grown a directory at a
		// time rehashed 50,000 paths again and again.
		t.dirs = make(map[string]map[string]bool, len(dirs.at))
	}
	// The names skipped, by their directory: looked up once a directory.
	skipIn := map[string][]string{}
	for _, s := range skip {
		if rel, err := filepath.Rel(checkout, s); err == nil && filepath.IsLocal(rel) {
			t.skip = append(t.skip, rel)
			skipIn[filepath.Dir(rel)] = append(skipIn[filepath.Dir(rel)], filepath.Base(rel))
		}
	}
	top, err := unix.Open(checkout, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		t.skip = append(t.skip, ".")
		return t, err
	}
	defer unix.Close(top)
	var (
		lock               sync.Mutex
		keptCount, keptLen atomic.Int64
	)
	// keep says whether one more path fits in what the walk keeps.
	keep := func(path string) bool {
		return keptCount.Add(1) <= keptLimit && keptLen.Add(int64(len(path))) <= keptBytes
	}
	unread := func(rel string, changed bool) {
		lock.Lock()
		t.unread = append(t.unread, unreadDir{rel, changed})
		lock.Unlock()
	}
	recent := func(st *unix.Stat_t) bool { return !time.Unix(st.Ctim.Unix()).Before(since) }
	// notOpened records a directory that could not be opened (err): one
	// gone meanwhile holds nothing (what was in it is removed); another
	// is not read, and if it changed (its status is the session's, or
	// unknown), taken whole.
	notOpened := func(path string, err error, changed bool) {
		if err != unix.ENOENT {
			unread(path, changed)
		}
	}
	// The walk waits on the kernel, a status for each entry: a directory
	// below one being read goes to an idle helper where there is one.
	var helpers *parallel.Helpers
	// settled takes the directory name in fd, at rel, whole from the
	// record without opening it, where its walk would read nothing: its
	// status is from before since and the record's, its owner may read
	// and search it, and each of its names is a file of compared (a
	// million-file checkout's leaves).
	settled := func(fd int, name []byte, rel string, in audit.ComparedIn) bool {
		if compared == nil || len(skipIn[rel]) > 0 {
			return false
		}
		at, ok := dirs.find(rel)
		if !ok {
			return false
		}
		known := dirs.namesAt(at)
		// The record keeps each directory's names sorted, as the index
		// holds its files: one pass over both.
		files := in.Names()
		for name, typ := range recordedNames(known) {
			if typ != unix.DT_REG && typ != unix.DT_LNK || string(name) == ".git" || string(name) == ".gitignore" || string(name) == "pyvenv.cfg" || !files.Has(name) {
				return false
			}
		}
		// The audit's walk beside this one may have read its status.
		var st unix.Stat_t
		if !reopen.Status(rel, &st) {
			if dirent.StatAt(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				return false
			}
			reopen.Read(rel, &st)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR || st.Mode&0o700 != 0o700 || recent(&st) || st.Dev != dirs.dev || !dirs.same(at, st.Ino, st.Ctim.Nano()) {
			return false
		}
		if !keep(rel) {
			lock.Lock()
			t.cut = true
			lock.Unlock()
			return true
		}
		lock.Lock()
		t.dirs[rel] = nil
		if len(known) > 0 {
			t.unstatted = append(t.unstatted, rel)
		}
		lock.Unlock()
		dirs.keepTaken(at)
		return true
	}
	// walk reads the directory fd, and below it; inCompared are the
	// files of compared below it.
	var walk func(fd int, rel string, depth int, inCompared audit.ComparedIn)
	descend := func(fd int, rel string, depth int, in audit.ComparedIn) {
		if !helpers.Offer(func() { walk(fd, rel, depth, in) }) {
			walk(fd, rel, depth, in)
		}
	}
	walk = func(fd int, rel string, depth int, inCompared audit.ComparedIn) {
		defer unix.Close(fd)
		// Its status, before its names are read.
		var st unix.Stat_t
		if unix.Fstat(fd, &st) != nil {
			unread(rel, true)
			return
		}
		if rel != "." {
			reopen.Read(rel, &st)
			reopen.Opened(fd, rel, &st)
		}
		var names map[string]bool
		if recent(&st) {
			names = map[string]bool{}
		}
		// lost: a change here could not be kept; unstatted, some of
		// compared were not read.
		lost, unstatted := false, false
		skipped := skipIn[rel]
		// The names of a directory unchanged since the last exit read
		// them are that exit's; those of one read whose status is from
		// before the start are kept for the next.
		var known []byte
		var knownAt uint32
		var kept *[]byte
		if names == nil && dirs != nil && st.Dev == dirs.dev {
			if b, at, ok := dirs.names(rel, st.Ino, st.Ctim.Nano()); ok {
				known, knownAt = b, at
			} else {
				kept = nameBufs.Get().(*[]byte)
				*kept = (*kept)[:0]
				defer func() {
					if cap(*kept) <= 64<<10 {
						nameBufs.Put(kept)
					}
				}()
			}
		}
		ino, ctime := st.Ino, st.Ctim.Nano()
		// below are the files of compared below the directory name, one
		// of this one's.
		below := func(name string) audit.ComparedIn {
			if compared == nil {
				return audit.ComparedIn{}
			}
			return inCompared.Below(name)
		}
		entry := func(name []byte, typ uint8) {
			if string(name) == ".git" && rel != "." {
				lock.Lock()
				t.repos[rel] = true
				lock.Unlock()
			}
			if string(name) == "conda-meta" {
				lock.Lock()
				t.venvs[join(rel, "conda-meta")] = true
				lock.Unlock()
			}
			if string(name) == ".git" || len(skipped) > 0 && (slices.Contains(skipped, string(name)) || takenAside(checkout, join(rel, string(name)))) {
				return
			}
			// A directory is opened without a status of its own
			// first: its walk takes one.
			if typ == unix.DT_DIR && (!lost || rel == ".") && depth < 256 && len(rel)+1+len(name) <= audit.MaxPathLen {
				path := join(rel, string(name))
				in := below(path[len(path)-len(name):])
				if settled(fd, name, path, in) {
					return
				}
				if dir, err := reopen.OpenDir(fd, string(name), path); err == nil {
					descend(dir, path, depth+1, in)
					return
				}
			}
			if names == nil && compared != nil && (typ == unix.DT_REG || typ == unix.DT_LNK) && string(name) != ".gitignore" && string(name) != "pyvenv.cfg" && inCompared.HasName(name) {
				unstatted = true
				return
			}
			if err := statAt(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				// A status not read but for being gone (the
				// directory's names readable, its search permission
				// taken away): what is here is not known, so taken
				// whole.
				if err != unix.ENOENT {
					lost = true
					return
				}
				// Listed, then gone: removed (in a directory whose
				// names are kept, by not being among them).
				if path := join(rel, string(name)); names == nil {
					if !keep(path) {
						lost = true
						return
					}
					lock.Lock()
					t.gone[path] = true
					lock.Unlock()
				}
				return
			}
			if st.Mode&unix.S_IFMT != unix.S_IFDIR {
				// A file of the user's the session made unreadable
				// (chmod 000 src/main.go) is theirs to read again,
				// which the exit says: closed, git diff failed on
				// it, its change was taken for one the host runs and
				// moved aside, an ignored one was hidden without a
				// word. Only its owner's read; nothing it holds
				// changes.
				if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o400 == 0 && recent(&st) && reopen.ReadableAgain(fd, string(name), join(rel, string(name))) {
					statAt(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
				}
				isRecent := recent(&st)
				if string(name) == ".gitignore" && st.Mode&unix.S_IFMT != unix.S_IFREG {
					lock.Lock()
					if t.oddIgnore == "" {
						t.oddIgnore = filepath.Join(checkout, join(rel, string(name)))
					}
					lock.Unlock()
				}
				if names == nil && !isRecent && string(name) != "pyvenv.cfg" {
					return
				}
				path := join(rel, string(name))
				if !keep(path) {
					lost = true
					return
				}
				if names != nil {
					names[string(name)] = true
				}
				if isRecent || string(name) == "pyvenv.cfg" {
					lock.Lock()
					if isRecent {
						t.recent[path] = fileStatus{time.Unix(st.Ctim.Unix()), st.Mode, time.Unix(st.Mtim.Unix()).Before(since)}
					}
					if string(name) == "pyvenv.cfg" {
						t.venvs[path] = true
					}
					lock.Unlock()
				}
				return
			}
			if lost && rel != "." {
				return // taken whole: what is below it is not read
			}
			path := join(rel, string(name))
			if depth >= 256 || len(path) > audit.MaxPathLen {
				unread(path, recent(&st))
				return
			}
			dir, err := reopen.OpenDir(fd, string(name), path)
			if err != nil {
				notOpened(path, err, recent(&st))
				return
			}
			descend(dir, path, depth+1, below(path[len(path)-len(name):]))
		}
		tooMany := false
		if known != nil {
			for name, typ := range recordedNames(known) {
				entry(name, typ)
			}
		} else {
			buf := dirent.Buffer()
			defer dirent.Release(buf)
			// A read at a time: a directory of millions of entries (the
			// sandbox's to make) is never held whole.
			for {
				read, err := dirent.Read(fd, *buf)
				if err != nil {
					unread(rel, names != nil || lost)
					return
				}
				if len(read) == 0 {
					break
				}
				for name, typ := range read.All() {
					if kept != nil && !tooMany {
						*kept = appendName(*kept, name, typ)
						tooMany = len(*kept) > dirsLimit
					}
					entry(name, typ)
				}
			}
		}
		if lost {
			unread(rel, true)
			return
		}
		if !keep(rel) {
			lock.Lock()
			t.cut = true
			lock.Unlock()
			return
		}
		lock.Lock()
		t.dirs[rel] = names
		if unstatted {
			t.unstatted = append(t.unstatted, rel)
		}
		lock.Unlock()
		switch {
		case known != nil:
			dirs.keepTaken(knownAt)
		case kept != nil && !tooMany:
			dirs.keep(rel, ino, ctime, *kept)
		}
	}
	dup, err := unix.FcntlInt(uintptr(top), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.skip = append(t.skip, ".")
		return t, err
	}
	helpers = parallel.NewHelpers()
	var all audit.ComparedIn
	if compared != nil {
		all = compared.In(".")
	}
	walk(dup, ".", 0, all)
	helpers.Wait()
	slices.Sort(t.unstatted)
	if len(t.unread) == 0 {
		return t, nil
	}
	slices.SortFunc(t.unread, func(a, b unreadDir) int { return strings.Compare(a.path, b.path) })
	var named []string
	for _, u := range t.unread {
		// What lies there is not known, so not taken for removed.
		t.skip = append(t.skip, u.path)
		named = append(named, u.path)
	}
	// What changed in a directory taken whole goes with it.
	if whole := t.unreadChanged(""); len(whole) > 0 {
		for path := range t.recent {
			if slices.ContainsFunc(whole, func(dir string) bool { return paths.Within(path, dir) }) {
				delete(t.recent, path)
			}
		}
	}
	if len(named) > 10 {
		named = append(slices.Clip(named[:10]), strconv.Itoa(len(t.unread)-10)+" more")
	}
	return t, errors.New("not read in full, so what the host runs there is not known (unreadable, deeper than 256 directories or 1024 bytes, or holding changes past 2,000,000 entries or 256 MiB of their paths): " + printable.Escape(strings.Join(named, ", ")))
}

// statAt is dirent.StatAt; a test makes a file go between a directory's
// listing and its status.
var statAt = dirent.StatAt
