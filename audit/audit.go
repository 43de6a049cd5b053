// Package audit finds what a session left in the project that the host
// runs or obeys where no guard could stand (a nested .claude, a new
// repository's hooks, a .devcontainer, a flag in git's index), and moves it
// aside.
//
// It compares the tree at the session's end with what it was at the start.
// A path is provably what it was at the start when the same inode stands
// there (a snapshot taken at the start says which), or when it and every
// directory above it, up to the project root, have a status change (ctime,
// which no one can set back) from before the start: Linux changes the ctime
// of a renamed inode and of the directories whose entries change. What the
// host itself changed meanwhile cannot be told apart, so it is moved aside
// too, and the message says how to put it back.
package audit

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/internal/parallel"
	"github.com/claudebox/claudebox/projectfiles"
	"github.com/claudebox/claudebox/untrusted"
)

// What the host runs or obeys wherever it stands, a directory's whole
// content included, is the registry's (package projectfiles): the
// agents', editors' and tools' project files, hook managers' scripts,
// dev container commands.

// gitRunNames are what git runs or follows in a git directory.
var gitRunNames = map[string]bool{"config": true, "config.worktree": true, "commondir": true, "gitdir": true, "packed-refs": true}

// gitWalked are the directories of a git directory that hold what git runs
// or follows: hooks, info/attributes, the state of in-progress rebases,
// cherry-picks and git am (todoData), other git directories (submodules', linked
// worktrees'), the objects, each of which git takes for what its name
// says (objects.go), the refs that replace an object with another
// wherever git reads it (refs/replace), and the legacy remote files
// (remotes/<name>, branches/<name>), which say where git fetches and
// pushes for a remote the config does not define, the conflicts'
// resolutions git rerere records (rr-cache), which git replays into the
// work tree at the next merge that meets the same conflict wherever the
// directory exists, and git-lfs's objects, which its checkout copies into
// the work tree by their names as git's own, and git-annex's, which the
// links git checks out lead to (lfs.go), and the stash
// (refs/stash, and its reflog, logs/refs/stash, whose entries git stash
// pop takes next), which git stash pop writes into the work tree, its
// untracked and ignored files too, where git status shows none. The
// other refs, and the reflogs, are named (reflog.go), and so are the
// reftable tables, which hold them all where the repository says so.
var gitWalked = map[string]mode{"objects": objectsDir, "refs": refsDir, "logs": logsDir, "hooks": hooksDir, "info": infoDir, "rebase-merge": todoDir, "rebase-apply": todoDir, "sequencer": todoDir, "modules": modulesDir, "worktrees": worktreesDir, "remotes": allDir, "branches": allDir, "rr-cache": allDir, "lfs": lfsDir, "annex": lfsDir, "reftable": reftableDir}

// gitData are the files at a git directory's top that git reads as data
// only, never a command nor anything it writes into the work tree: the
// branch checked out (git status names it), the index (judged apart,
// index.go), messages, a description, gc's log, the commits a shallow
// clone lacks the parents of, a bisect's log (BISECT_START, where git
// bisect reset returns, is a pseudo-ref), rerere's list of the paths in
// conflict (it records their resolutions from the work tree), a linked
// worktree's reason to be kept. Any other file there the session made or
// changed is a finding: one the host's git acts on by a name the audit
// did not know passed before (MERGE_AUTOSTASH, a stash every git commit
// applies, its untracked and ignored files too).
var gitData = map[string]bool{"HEAD": true, "index": true, "COMMIT_EDITMSG": true, "MERGE_MSG": true, "MERGE_MODE": true, "SQUASH_MSG": true, "TAG_EDITMSG": true, "NOTES_EDITMSG": true, "EDIT_DESCRIPTION": true, "description": true, "gc.log": true, "gc.pid": true, "shallow": true, "MERGE_RR": true, "gitk.cache": true, "locked": true}

// gitDataDirs are the directories at a git directory's top that hold
// data git never acts on: the cookies of git's file system monitor, what
// git fsck --lost-found recovers. Any other directory there the walk does
// not know is judged whole (a git-svn's, a git-crypt's key).
var gitDataDirs = map[string]bool{"fsmonitor--daemon": true, "lost-found": true}

// isGitData says name is one of gitData, a split index's shared index
// (judged with the index), a lock (git takes and removes it; one left
// makes git refuse), or a bisect's state but its start.
func isGitData(name string) bool {
	return gitData[name] || strings.HasPrefix(name, "sharedindex.") || strings.HasSuffix(name, ".lock") ||
		strings.HasPrefix(name, "BISECT_") && !pseudoRefs[name]
}

// todoLists are the todo lists of a rebase (rebase-merge/) and of a
// cherry-pick or revert (sequencer/), which run their exec lines.
var todoLists = map[string]bool{"git-rebase-todo": true, "todo": true}

// todoData are the files of an operation in progress (rebase-merge/,
// rebase-apply/, sequencer/) that git reads as data: where it started and
// goes, how far it is, messages and authors, flags. Any other the session
// made or changed is a finding: git rebase --continue and git
// cherry-pick --continue run the strategy their state names
// (rebase-merge/strategy, sequencer/opts) as a program, git
// merge-<strategy>, which a slash makes a path in the work tree, git
// am --continue passes rebase-apply/apply-opt to git apply, and a
// rebase applies the stash its autostash names as it ends or is aborted,
// its untracked and ignored files too. Its numbered
// patches are data too (patchNumber).
var todoData = map[string]bool{
	// rebase-merge/
	"head-name": true, "onto": true, "orig-head": true, "interactive": true, "done": true, "msgnum": true, "end": true,
	"message": true, "message-squash": true, "message-fixup": true, "squash-onto": true, "rewritten-list": true,
	"rewritten-pending": true, "current-fixups": true, "author-script": true, "amend": true, "stopped-sha": true,
	"patch": true, "dropped": true, "git-rebase-todo.backup": true, "quiet": true, "verbose": true, "signoff": true,
	"cdate_is_adate": true, "ignore_date": true, "allow_rerere_autoupdate": true, "reschedule-failed-exec": true,
	"no-reschedule-failed-exec": true, "drop_redundant_commits": true, "keep_redundant_commits": true,
	// rebase-apply/ (git am's)
	"next": true, "last": true, "info": true, "msg": true, "msg-clean": true, "final-commit": true,
	"original-commit": true, "abort-safety": true, "keep": true, "messageid": true, "utf8": true, "threeway": true,
	"sign": true, "scissors": true, "quoted-cr": true, "rebasing": true, "applying": true, "dirtyindex": true,
	"patch-merge-index": true,
	// sequencer/
	"head": true,
}

// patchNumber says whether name is one of git am's numbered patches
// (rebase-apply/0001).
func patchNumber(name string) bool {
	return name != "" && strings.Trim(name, "0123456789") == ""
}

// stashRef is the stash's name in refs/ and logs/refs/.
const stashRef = "stash"

// gitOpened are the files git opens in a work tree as its commands run
// (git status, git log, which reads the .mailmap): one that is a FIFO,
// a socket or a device holds them.
var gitOpened = map[string]bool{".gitignore": true, ".gitattributes": true, ".gitmodules": true, ".mailmap": true}

// noFile are the types of what no one reads as a file: git opening one
// waits (a FIFO) or fails.
const noFile = os.ModeNamedPipe | os.ModeSocket | os.ModeDevice | os.ModeCharDevice

// depsDirs hold dependencies installed by package managers (npm's and
// the others', a virtualenv's), the bulk of a tree, which git ignores and
// the host runs: judged at the end by the unit
// a package manager installs (deps.go), not recorded at the start. (The
// host's git reaches a repository among them only through a gitlink in an
// index, which the audit follows.)
var depsDirs = map[string]bool{"node_modules": true, sitePackages: true}

// maxEntries bounds the record taken at the start, whose memory grows
// with the tree: what it lacks counts as new at the end. The exit audit
// keeps nothing per entry and walks to the end, however many entries the
// session made: stopping there would let a plant past the bound stay.
var maxEntries int64 = 2_000_000

// maxNames bounds the bytes of the paths the record at the start holds,
// which a tree of long names makes a kilobyte an entry.
const maxNames = 256 << 20

// maxDepth bounds the walk: a directory deeper is a finding if the session
// made it, and named as not examined otherwise.
const maxDepth = 256

// MaxPathLen bounds the walks as maxDepth does, by a directory's path
// below the top: a chain of 255-byte names has each path in it 64 KB long,
// which a walk holds for each of its entries (1.3 GB for 20,000 files).
// It leaves room under the system's bound on a path (4096 bytes) for the
// project's own path and for where a finding is moved aside.
const MaxPathLen = 1024

// mode is how a directory's entries are judged.
type mode uint8

const (
	plainDir     mode = iota // by name
	allDir                   // every file is host-run
	gitDir                   // a git directory
	hooksDir                 // a git directory's hooks: all but *.sample
	infoDir                  // its info/: attributes, grafts
	todoDir                  // an operation's state: todo lists, strategy, autostash
	depsDir                  // installed dependencies: judged by unit (deps.go)
	gitDataDir               // the rest of a git directory (other refs, logs): only what is no file
	objectsDir               // a git directory's objects (objects.go)
	looseDir                 // a fan-out directory of loose objects
	packDir                  // objects/pack
	objInfoDir               // objects/info
	refsDir                  // a git directory's refs: replace refs, the stash, the rest
	lfsDir                   // a git directory's lfs/ or annex/: its objects (lfs.go)
	lfsObjDir                // lfs/objects, annex/objects and their directories
	logsDir                  // a git directory's logs: reflogs (reflog.go)
	logsRefsDir              // its logs/refs: reflogs, the stash's
	reflogsDir               // below: reflogs
	reftableDir              // its reftable/: every ref, in tables not read
	branchesDir              // its other refs: branches, tags, remote-tracking refs
	worktreesDir             // its worktrees/: linked worktrees' directories, which git prunes
	modulesDir               // its modules/: submodules' git directories, judged by name
)

// Snapshot is what the host obeys in the project at a session's start.
type Snapshot struct {
	// files are the directories and host-run files that were provably in
	// place at the start, with their inodes, and for each directory
	// provably in place whose entries did not change from the start until
	// the snapshot read them, what the walk judged or went into there.
	files files
	// Index maps each git directory whose index was provably in place at
	// the start to that index's hidden entries and gitlinks.
	Index map[string]map[string]uint8
	// IndexFiles is, for each git directory in Index whose index is not
	// split, the index file it was read from.
	IndexFiles map[string]IndexFile
	// Packs are the packs and their indexes in the objects of each git
	// directory, and what they held (objects.go).
	Packs map[string]PackFile
	// Reflogs are the reflogs of each git directory (reflog.go).
	Reflogs map[string]Reflog
	// Obeyed are the names Take judged as host-run wherever they stand;
	// its listings hold no other's entries.
	Obeyed []string
	// Root and Dev are the tree's top and its filesystem.
	Root string
	Dev  uint64
	// Rules are the names the walk judged (a digest): a listing made under
	// others (another claudebox's) lacks what these judge.
	Rules [sha256.Size]byte
}

// IndexFile is an index file as read: its inode, size and status change
// (nanoseconds), which any write to it moves on.
type IndexFile struct {
	Ino   uint64
	Size  int64
	Ctime int64
}

// recordMagic begins what Encode writes.
const recordMagic = "claudebox record 3\n"

// Encode is s as bytes, for Decode: the magic, the length of the rest but
// its files, that rest (appendRest), the files.
func (s *Snapshot) Encode() []byte {
	rest := s.appendRest(nil)
	b := make([]byte, 0, len(recordMagic)+8+len(rest)+16+len(s.files.names)+fileSize*len(s.files.items))
	b = append(b, recordMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(rest)))
	b = append(b, rest...)
	return s.files.appendTo(b)
}

// Decode reads a snapshot Encode wrote.
func Decode(b []byte) (*Snapshot, error) {
	b, ok := bytes.CutPrefix(b, []byte(recordMagic))
	if !ok || len(b) < 8 || binary.LittleEndian.Uint64(b) > uint64(len(b)-8) {
		return nil, errBadRecord
	}
	n := binary.LittleEndian.Uint64(b)
	s, err := decodeRest(b[8 : 8+n])
	if err != nil {
		return nil, err
	}
	if s.files, err = decodeFiles(b[8+n:]); err != nil {
		return nil, err
	}
	return s, nil
}

// Take records what the host obeys under root as it stands, for the audit
// at the end of the session that began at since; obeyed are the file names
// the host's tools obey in whichever directory they start (a .env the
// host's gemini loads). It may run while the session starts: what changed
// at or after since is not recorded, so it counts as changed at the end.
// A directory whose listing base (an earlier record, or nil) holds and
// whose status is still the one base read is not read again: its entries
// are those (so a large tree costs its directories, not its files).
func Take(root string, since time.Time, obeyed []string, base *Snapshot) *Snapshot {
	w := walker{root: root, since: since, obeyed: obeyed, base: base, take: newRecord(root, obeyed), entries: new(atomic.Int64), names: new(atomic.Int64), packedRead: new(atomic.Int64), manifestsRead: new(atomic.Int64)}
	w.walk()
	w.take.files.seal()
	return w.take
}

func newRecord(root string, obeyed []string) *Snapshot {
	return &Snapshot{Index: map[string]map[string]uint8{}, IndexFiles: map[string]IndexFile{}, Packs: map[string]PackFile{}, Reflogs: map[string]Reflog{}, Obeyed: obeyed, Root: root, Rules: rules()}
}

// Hidden is an index entry the session hid from the host's git status:
// Repo is the work tree, Path the entry, Flags the update-index options
// that clear each flag (git applies one per command).
type Hidden struct {
	Repo, Path string
	Flags      []string
	// gitDir holds the index; bits are the flags set.
	gitDir string
	bits   uint8
}

// Report is what the audit found.
type Report struct {
	// Found are the host-run paths that are not provably what they were at
	// the start.
	Found []string
	// Hidden are the index entries marked assume-unchanged or
	// skip-worktree during the session.
	Hidden []Hidden
	// Restat are the entries, in an index the session wrote, of files it
	// changed: git takes an entry whose status data (times, inode, size)
	// matches the file for the content it names without reading the file,
	// and the session can write its edited file's status there, hiding
	// the edit from git status and git diff. Their status data is zeroed,
	// as git leaves an entry it has not compared yet.
	Restat []Hidden
	// Diverged are the entries, in an index the session wrote, of files
	// the host runs that the session left as they were in the work tree,
	// holding other content than the entry names (diverged.go).
	Diverged []Hidden
	// Branches are the refs the session moved or made (branches, tags,
	// remote-tracking refs, ORIG_HEAD and the others of pseudoRefs: their
	// loose refs, and packed refs it wrote that list any), but a branch
	// checked out in the repository, which git status and git log show,
	// and a reflog of HEAD whose last checkout git checkout - would not
	// return to a branch by: git status shows none of them, and a switch,
	// merge or reset to one writes what it holds into the work tree.
	Branches []string
	// Caches are the git directories whose index, written during the
	// session, holds extensions git trusts in place of the entries and
	// the work tree (the cache of trees, the untracked cache, the file
	// system monitor's): a forged one hides new files from git status, or
	// makes git commit write a tree git status never showed.
	Caches []string
	// IncludesUnspelled are the makefiles that include a file, the
	// .envrc that sources one, the justfiles and Taskfiles that import
	// one and the Gemfiles that evaluate one, by a word the audit cannot
	// spell ($(SRCS:.c=.dep), $(shell …), a variable of the environment's,
	// $PWD/…, {{.TASKFILE_DIR}}/…, File.join(…)): any file git ignores
	// that the session wrote may be what make includes or direnv sources
	// there.
	IncludesUnspelled []string
	// SourcesUnspelled are the .envrc files and mise configurations that
	// source or evaluate a file by a name the audit cannot spell, or more
	// than it reads ("$ENV_FILE", "${ENV_FILE:-config/dev.env}", eval
	// "$(tool)", _.source = "{{env.ENV_FILE}}"): any file below one, a
	// tracked one too, may be what direnv or mise runs there at the next
	// cd, before git status shows its change.
	SourcesUnspelled []string
	// NotExamined are the directories (or index files) the audit could not
	// examine in full, and why.
	NotExamined []string
	// Deps are the directories of installed dependencies the session
	// changed, and what in each.
	Deps []DepsChange
}

// Scan lists what under root the host runs or obeys and is not provably
// what it was at since, when start (nil if none was taken) was recorded;
// the paths in guarded are skipped (their guard stood for the whole
// session); files named as in obeyed are host-run at any depth, as for
// Take. It never follows a symlink, nor leaves root.
func Scan(root string, since time.Time, guarded map[string]bool, start *Snapshot, obeyed []string) Report {
	return ScanWalked(root, since, guarded, start, obeyed, nil, nil)
}

// Statuses is what a walk of the whole of root, made beside the audit,
// read of each entry's status.
type Statuses interface {
	// Since is the start the walk judged each status against.
	Since() time.Time
	// ChangedBelow counts the entries at rel (relative to root) and below
	// it whose status is from at or after Since; ok is false unless the
	// walk read the status of every one.
	ChangedBelow(rel string) (n int, ok bool)
}

// ScanWalked is Scan, where walked gives (once that walk is done, and nil
// if it read nothing) the statuses such a walk read: the judgement of
// installed dependencies, which reads the status of every entry (100,000
// in a common node_modules), counts from them what they cover in full
// instead of reading each status again. walked may be nil. What the
// session closed of the user's that the walk meets, reopen (nil for none)
// gives back, and the walk goes in.
func ScanWalked(root string, since time.Time, guarded map[string]bool, start *Snapshot, obeyed []string, walked func() Statuses, reopen *Reopener) Report {
	// A record made under other rules (by another claudebox, whose
	// supervisor was killed) lacks what these judge, and one of another
	// tree (another checkout of the project) says nothing of this one:
	// either is none.
	if start == nil || start.Rules != rules() || start.Root != root {
		start = &Snapshot{}
	}
	w := walker{root: root, since: since, guarded: guarded, start: start, seen: map[string]bool{}, obeyed: obeyed, entries: new(atomic.Int64), names: new(atomic.Int64), packedRead: new(atomic.Int64), manifestsRead: new(atomic.Int64), indexNames: newIndexNames(), objects: &objects{packs: map[string]packHeld{}}, walked: walked, reopen: reopen}
	w.walk()
	w.newlyIgnored(w.ignores)
	w.makeIncluded(w.makefiles)
	w.envrcSourced()
	w.miseSourced()
	w.gemfileNamed()
	w.bazelrcNamed()
	w.taskFileNamed()
	w.hgrcIncluded()
	w.report.Found = slices.DeleteFunc(w.report.Found, w.trackedInWorktree)
	slices.Sort(w.report.Found)
	return w.report
}

type walker struct {
	root    string
	since   time.Time
	guarded map[string]bool
	// obeyed are file names host-run in any directory.
	obeyed []string
	start  *Snapshot // at the end
	take   *Snapshot // at the start
	base   *Snapshot // at the start: an earlier record, its listings reused
	report Report
	seen   map[string]bool
	// existing are the paths exists looked up, and whether each was.
	existing map[string]bool
	// dependedOn are, by folder, the names of the packages its
	// package.json depends on, and by folder/*, those its members'
	// depend on (packageNameTaken).
	dependedOn map[string]map[string]bool
	// entries counts the entries read, by every walker of the walk; names,
	// the bytes of their paths.
	entries, names *atomic.Int64
	// packedRead counts the bytes of packed-refs the reflogs' judgement
	// read, by every walker of the walk (reflog.go); packed, by git
	// directory and ref, what each lookup found.
	packedRead *atomic.Int64
	packed     map[[2]string]string
	// manifestsRead counts the bytes of pyproject.toml and Cargo.toml
	// files parsed, by every walker of the walk (readManifest).
	manifestsRead *atomic.Int64
	// split, at the top of the walk, collects the directories below it,
	// walked side by side once it is read.
	split *[]subWalk
	// links are the gitlinks of changed indexes that were not there at the
	// start, as paths relative to root.
	links []string
	// ignores are the .gitignore files the session wrote; indexNames, the
	// entries of the indexes read to tell what is tracked, shared by the
	// walkers of one walk.
	ignores    []string
	indexNames *indexNames
	// repos and worktrees are the directories tracked and
	// trackedInWorktree found nearest above each directory they looked
	// at ("" for none).
	repos, worktrees map[string]string
	// makefiles are the project's makefiles, whose includes are judged
	// at the end (makeinclude.go).
	makefiles []string
	// envrcs are the project's .envrc files below its top, whose
	// sources are judged at the end (envrc.go).
	envrcs []string
	// miseConfigs are the project's mise configurations below its top
	// (mise.toml, .tool-versions, mise/), whose sources are judged at the
	// end (mise.go).
	miseConfigs []string
	// gemfiles are the project's Gemfiles below its top, whose named
	// files are judged at the end (gemfile.go).
	gemfiles []string
	// importers are the project's justfiles, Taskfiles and .bazelrc
	// files below its top, whose imports are judged at the end
	// (taskincludes.go, bazelrc.go).
	importers []string
	// hgrcs are the Mercurial repositories' configurations, whose
	// includes are judged at the end (hgrc.go).
	hgrcs []string
	// objects is what the walk's checks of objects share (at the end).
	objects *objects
	// walked gives the statuses a walk beside this one read (ScanWalked).
	walked func() Statuses
	// reopen gives back what the session closed of the user's (at the end).
	reopen *Reopener
	// headRefs are, by git directory, the refs its HEADs name
	// (checkedOut).
	headRefs map[string]map[string]bool
	// parents are, by git directory and commit, the first parents read
	// (reflog.go): the reflogs of a thousand branches share their history.
	parents map[[2]string]string
	// startLasts are, by reflog, the values their refs had at the start
	// (reflog.go).
	startLasts map[string]string
}

// subWalk is a directory below the top, walked by a walker of its own.
type subWalk struct {
	w *walker
	n node
}

// fork is a walker for a directory below the top: the same judgement, a
// report and a record of its own.
func (w *walker) fork() *walker {
	f := &walker{root: w.root, since: w.since, guarded: w.guarded, obeyed: w.obeyed, start: w.start, base: w.base, seen: map[string]bool{}, entries: w.entries, names: w.names, packedRead: w.packedRead, manifestsRead: w.manifestsRead, indexNames: w.indexNames, objects: w.objects, walked: w.walked, reopen: w.reopen}
	if w.take != nil {
		f.take = newRecord(w.root, w.obeyed)
	}
	return f
}

// merge adds what f found, and what it recorded but its files (absorbed
// at once, in walk), to w's.
func (w *walker) merge(f *walker) {
	for _, p := range f.report.Found {
		if !w.seen[p] {
			w.seen[p] = true
			w.report.Found = append(w.report.Found, p)
		}
	}
	w.report.NotExamined = append(w.report.NotExamined, f.report.NotExamined...)
	w.report.Hidden = append(w.report.Hidden, f.report.Hidden...)
	w.report.Restat = append(w.report.Restat, f.report.Restat...)
	w.report.Diverged = append(w.report.Diverged, f.report.Diverged...)
	w.report.Branches = append(w.report.Branches, f.report.Branches...)
	w.report.Deps = append(w.report.Deps, f.report.Deps...)
	w.report.Caches = append(w.report.Caches, f.report.Caches...)
	w.links = append(w.links, f.links...)
	w.ignores = append(w.ignores, f.ignores...)
	w.makefiles = append(w.makefiles, f.makefiles...)
	w.envrcs = append(w.envrcs, f.envrcs...)
	w.miseConfigs = append(w.miseConfigs, f.miseConfigs...)
	w.gemfiles = append(w.gemfiles, f.gemfiles...)
	w.importers = append(w.importers, f.importers...)
	w.hgrcs = append(w.hgrcs, f.hgrcs...)
	if w.take != nil {
		maps.Copy(w.take.Index, f.take.Index)
		maps.Copy(w.take.IndexFiles, f.take.IndexFiles)
		maps.Copy(w.take.Packs, f.take.Packs)
		maps.Copy(w.take.Reflogs, f.take.Reflogs)
	}
}

// node is a directory being walked.
type node struct {
	fd  int
	rel string
	// inPlace: the directory is provably where it was at the start.
	inPlace bool
	mode    mode
	// ino is the directory's inode; unchanged: its entries are the start's
	// (its ctime is from before).
	ino       uint64
	unchanged bool
	// record: the record holds its inode (it is in place, below the top).
	record bool
	// ctime is the directory's status change.
	ctime time.Time
	// fold: the directory's names fold case (projectfiles.FoldsCase), so
	// .CURSOR there is the host's .cursor.
	fold bool
	// objectFormat is the object format of the objects walked there.
	objectFormat string
	// gitDir is the git directory it lies in, relative ("" for none).
	gitDir string
	// clone: that git directory and its work tree were both made during
	// the session (a clone), by their birth times, where nothing stood at
	// the start: its refs are all the session's, as its files are, and
	// are not named one by one.
	clone bool
}

func (w *walker) walk() {
	top, err := openRoot(w.root)
	if err != nil {
		w.notExamined(w.root, err.Error())
		return
	}
	// Close-on-exec: the record is taken while the sandbox starts.
	fd, err := unix.FcntlInt(top.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	top.Close()
	if err != nil {
		w.notExamined(w.root, err.Error())
		return
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		w.notExamined(w.root, err.Error())
		return
	}
	if w.take != nil {
		w.take.Dev = st.Dev
		if w.base != nil && (w.base.Root != w.root || w.base.Dev != st.Dev || w.base.Rules != w.take.Rules) {
			w.base = nil
		}
	}
	root := node{fd: fd, inPlace: true, mode: plainDir, ino: st.Ino, unchanged: !w.new(&st), ctime: time.Unix(st.Ctim.Unix()), fold: projectfiles.FoldsCase(fd)}
	if isGitDir(fd) {
		root.mode = gitDir
	}
	var subs []subWalk
	w.split = &subs
	w.dir(root, 0)
	w.split = nil
	unix.Close(fd)
	// The directories below the top are walked side by side: the walk
	// waits on the kernel, a status for each directory.
	parallel.Each(len(subs), func(i int) {
		subs[i].w.dir(subs[i].n, 1)
		unix.Close(subs[i].n.fd)
	})
	if w.take != nil {
		// What each walker took, at once: adding one after another would
		// grow the record's buffers as often.
		took := make([]*files, len(subs))
		for i, sw := range subs {
			took[i] = &sw.w.take.files
		}
		w.take.files.absorb(took)
	}
	for _, sw := range subs {
		w.merge(sw.w)
	}
	// The host's git reaches a submodule at any depth, and in node_modules.
	for i := 0; i < len(w.links); i++ {
		w.gitlink(w.links[i])
	}
}

// dir judges the entries of n, read a batch at a time, and records n.
func (w *walker) dir(n node, depth int) {
	listed, whole := w.list(n, depth)
	if w.take == nil {
		return
	}
	f := file{ino: n.ino}
	if n.record {
		f.has = hasInode
	}
	if whole && n.inPlace && n.unchanged && n.mode < objectsDir {
		f.has |= hasListing
		f.mode, f.ctime = n.mode, n.ctime.UnixNano()
	} else {
		listed = nil
	}
	if f.has != 0 {
		w.take.files.add(f, n.rel, listed)
	}
}

// list judges the entries of n, and is (for the record) those it had to,
// and whether it judged every one.
func (w *walker) list(n node, depth int) ([]byte, bool) {
	var listed []byte
	if l, ok := w.known(n.rel, n.ino, n.mode, n.ctime); ok {
		// What an earlier record holds counts towards the bound as what
		// is read does: a record built on one is no larger.
		if w.take != nil {
			w.entries.Add(int64(strings.Count(l.entries, "\x00")))
			w.names.Add(int64(len(l.entries)))
		}
		for name, typ := range l.each() {
			if w.entry(n, name, typ, depth) && w.take != nil {
				listed = appendEntry(listed, name, typ)
			}
		}
		return listed, true
	}
	// Read through a descriptor of its own, which the os.File closes.
	dup, err := unix.FcntlInt(uintptr(n.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		w.notExamined(w.abs(n.rel), err.Error())
		return nil, false
	}
	f := os.NewFile(uintptr(dup), n.rel)
	defer f.Close()
	for {
		if w.take != nil && (w.entries.Load() > maxEntries || w.names.Load() > maxNames) {
			w.notExamined(w.abs(n.rel), "the record stopped after 2,000,000 entries or 256 MiB of their paths")
			return nil, false
		}
		batch, err := f.ReadDir(512)
		w.entries.Add(int64(len(batch)))
		for _, e := range batch {
			w.names.Add(int64(len(n.rel) + 1 + len(e.Name())))
			if w.entry(n, e.Name(), e.Type(), depth) && w.take != nil {
				listed = appendEntry(listed, e.Name(), e.Type())
			}
		}
		if err == io.EOF || len(batch) == 0 {
			return listed, true
		}
		if err != nil {
			w.notExamined(w.abs(n.rel), err.Error())
			return nil, false
		}
	}
}

// known is the listing of the directory rel (inode ino, walked in mode m,
// its status changed at ctime) when its entries are known without reading
// it (and the same names are judged): at the end, the start's, for a
// directory unchanged since the start; for the record, an earlier
// record's, for one whose status is still the one it read (any change to
// a directory's entries changes its status). Not "older than that record":
// between sessions the clock may have stepped back (NTP setting right a
// clock that ran ahead), and what the host changed then is older.
func (w *walker) known(rel string, ino uint64, m mode, ctime time.Time) (listing, bool) {
	return w.knownAt(w.recordsAt(rel), ino, m, ctime)
}

// knownAt is known, of what the records hold at the directory's path.
func (w *walker) knownAt(at recordsAt, ino uint64, m mode, ctime time.Time) (listing, bool) {
	if at.inStart && slices.Equal(w.start.Obeyed, w.obeyed) {
		if l := at.start; l.ino == ino && l.mode == m && ctime.Before(w.since) {
			return l, true
		}
	}
	if at.inBase && slices.Equal(w.base.Obeyed, w.obeyed) {
		if l := at.base; l.ino == ino && l.mode == m && l.ctime == ctime.UnixNano() {
			return l, true
		}
	}
	return listing{}, false
}

// recordsAt is what the start's record and the base hold at one path,
// each looked up once: the walk asks three questions of most directories'
// paths (is its listing empty, is it known, is it in place), and in a
// large tree the lookups in the records were a tenth of the exit audit.
type recordsAt struct {
	// start and base are the records' listings there, where they hold
	// one (inStart, inBase); startIno, the start's inode there, where it
	// holds one (inStartIno).
	start, base                 listing
	inStart, inBase, inStartIno bool
	startIno                    uint64
}

func (w *walker) recordsAt(rel string) recordsAt {
	var at recordsAt
	if w.start != nil {
		if f, ok := w.start.files.find(rel); ok {
			at.start, at.inStart = w.start.files.listingOf(f)
			at.startIno, at.inStartIno = f.ino, f.has&hasInode != 0
		}
	}
	if w.base != nil {
		if f, ok := w.base.files.find(rel); ok {
			at.base, at.inBase = w.base.files.listingOf(f)
		}
	}
	return at
}

// listedEmpty says whether the start's record or the base holds an
// empty listing there, which knownAt may then give.
func (at recordsAt) listedEmpty() bool {
	return at.inStart && at.start.entries == "" || at.inBase && at.base.entries == ""
}

// claudeCodeStandIn says the entry name of n is one Claude Code's own
// sandbox (its /sandbox screen, 2.1.330) makes, for it to mount over a
// path it keeps from its commands, and leaves: an empty glab-cli folder at
// a git directory's top, an empty .claude-sandbox-noreplace in its info
// and in its objects/info (beside the alternates it keeps).
// Empty, each holds nothing the host obeys, and it is one name: left, as
// an empty alternates is, rather than named at the end of every session
// that opened the screen.
func claudeCodeStandIn(n node, name string) bool {
	if !(n.mode == gitDir && name == "glab-cli" || (n.mode == infoDir || n.mode == objInfoDir) && name == ".claude-sandbox-noreplace") {
		return false
	}
	var st unix.Stat_t
	if unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return st.Size == 0
	case unix.S_IFDIR:
		fd, err := unix.Openat(n.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return false
		}
		f := os.NewFile(uintptr(fd), name)
		defer f.Close()
		names, err := f.Readdirnames(1)
		return len(names) == 0 && err == io.EOF
	}
	return false
}

// entry judges the entry name of n, of type typ (from the directory
// listing; it is looked at again before any use), and says whether it had
// to: it is host-run, or a directory walked.
func (w *walker) entry(n node, name string, typ os.FileMode, depth int) bool {
	rel := filepath.Join(n.rel, name)
	if w.guarded[w.abs(rel)] {
		return true
	}
	if w.take == nil && (n.mode == modulesDir || n.mode == lfsDir && filepath.Base(n.rel) == "annex" && !projectfiles.AnnexOwn(name) ||
		n.mode == gitDir && !projectfiles.GitOwn(name) || n.mode == infoDir && !projectfiles.InfoOwn(name)) && !claudeCodeStandIn(n, name) && w.made(n.fd, name, rel) {
		// Each git directory in modules/ is mounts of its own at every
		// launch, and so is each entry not git's own at a git
		// directory's top, in its info, in annex/ not git-annex's: a
		// session that made them by the hundred would have every later
		// launch refuse, its plan past the arguments bwrap takes or the
		// folder past those shown empty. What the session made there
		// goes aside whole (a submodule it initialized too: git
		// submodule update --init makes it again).
		w.found(rel)
		return true
	}
	var sub mode
	hostRun, descend := false, typ.IsDir()
	switch n.mode {
	case allDir:
		hostRun, sub = true, allDir
	case gitDir:
		var walked bool
		sub, walked = gitWalked[name]
		hostRun = gitRunNames[name] || walked || !typ.IsDir() && (pseudoRefs[name] || !isGitData(name))
		switch {
		case walked:
		case typ.IsDir() && !gitDataDirs[name]:
			// A directory git or a tool of its keeps state in, by a
			// name the audit does not know: what it holds may be
			// what the host's git writes or follows.
			hostRun, sub = true, allDir
		default:
			sub = gitDataDir
		}
	case gitDataDir:
		sub = gitDataDir
	case hooksDir:
		hostRun, sub = !strings.HasSuffix(name, ".sample"), allDir
	case infoDir:
		hostRun, descend = name == "attributes" || name == "grafts", false
	case todoDir:
		if typ.IsDir() {
			hostRun, sub = true, allDir
		} else {
			hostRun, descend = !todoData[name] && !patchNumber(name), false
		}
	case refsDir:
		switch {
		case name == "replace":
			hostRun, sub = true, allDir
		case name == stashRef && !typ.IsDir():
			hostRun = true
		default:
			// Branches, tags, remote-tracking refs, any ref: what a
			// switch, a merge or a reset to it writes.
			hostRun, sub = !typ.IsDir(), branchesDir
		}
	case branchesDir:
		hostRun, sub = !typ.IsDir(), branchesDir
	case worktreesDir:
		// git worktree prune, and git gc, which runs it, remove an entry
		// with no gitdir file recursively, opening it through a link: one
		// to a folder of the user's emptied it. Nothing but git's own
		// directory is left there, and no folder made without the gitdir
		// file git writes in each: past 128 entries, the next launch
		// refuses.
		hostRun, sub = true, plainDir
		var st, gitdir unix.Stat_t
		if w.take == nil && typ.IsDir() && unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && w.new(&st) &&
			(unix.Fstatat(n.fd, name+"/gitdir", &gitdir, unix.AT_SYMLINK_NOFOLLOW) != nil || gitdir.Mode&unix.S_IFMT != unix.S_IFREG) {
			w.found(rel)
			return true
		}
	case logsDir:
		hostRun, sub = !typ.IsDir(), reflogsDir
		if name == "refs" {
			sub = logsRefsDir
		}
	case logsRefsDir, reflogsDir:
		hostRun, sub = !typ.IsDir(), reflogsDir
	case reftableDir:
		hostRun, sub = !typ.IsDir(), reftableDir
	case lfsDir:
		hostRun, sub = name == "objects", lfsObjDir
		if !hostRun {
			sub = gitDataDir
		}
	case lfsObjDir:
		hostRun, sub = true, lfsObjDir
	case objectsDir, looseDir, packDir, objInfoDir:
		var walked bool
		sub, hostRun, walked = objectsEntry(n.mode, name)
		descend = descend && walked
		if hostRun && w.take == nil && claudeCodeStandIn(n, name) {
			hostRun = false
		}
	default:
		if w.take == nil && typ.IsRegular() && n.rel != "" && gemfiles[name] {
			w.gemfiles = append(w.gemfiles, rel)
		}
		if w.take == nil && typ.IsRegular() && n.rel != "" && (justfile(name) || taskfile(name) || name == ".bazelrc") {
			w.importers = append(w.importers, rel)
		}
		switch {
		case depsDirs[name] || w.buildDir(n, name):
			// Anything else by that name (a link to what the session
			// wrote elsewhere) is where npm looks up what it runs.
			hostRun, sub = !typ.IsDir(), depsDir
		case !typ.IsDir() && pnpFiles[name]:
			hostRun = true
		case projectfiles.Is(name, ".git", n.fold):
			hostRun, sub = true, gitDir
		case isObeyed(name, n.fold):
			hostRun, sub = true, allDir
			if w.take == nil && typ.IsRegular() && rel != ".envrc" && projectfiles.Is(name, ".envrc", n.fold) {
				w.envrcs = append(w.envrcs, rel)
			}
			if w.take == nil && n.rel != "" && (typ.IsRegular() || typ.IsDir()) && miseConfig(name) {
				w.miseConfigs = append(w.miseConfigs, rel)
			}
			if w.take == nil && typ.IsRegular() && isHgrc(rel) {
				w.hgrcs = append(w.hgrcs, rel)
			}
		case !typ.IsDir() && pythonModule(name, n.fold):
			hostRun = true
		case !typ.IsDir() && jjConfig(n.rel, name):
			hostRun = true
		case !typ.IsDir() && (name == "package.json" || buildDefinition(n.rel, name, w.exists)):
			// Judged for what git would not show (builddefs.go).
			hostRun = true
		case !typ.IsDir() && (name == ".gitignore" || TaskFile(name) || makeFragment(name) || toolConfig(name) || name == "pyproject.toml" || name == "Cargo.toml" || startupPackage(n.rel, name) || rubyGemfile(name)),
			(typ&noFile != 0 || typ.IsRegular()) && gitOpened[name]:
			// Judged for what git would not show (ignored.go).
			hostRun = true
			if w.take == nil && typ.IsRegular() && makeReads(name) {
				w.makefiles = append(w.makefiles, rel)
			}
		case !typ.IsDir() && w.obeys(name, n.fold):
			// A directory of that name (a virtualenv called .env) is
			// nothing gemini can load.
			hostRun = true
		}
	}
	// A FIFO, socket or device where git opens a file (HEAD, the index,
	// shallow, the branch checked out, logs/HEAD, which git commit
	// appends to) holds the host's git commands there: nothing git writes
	// in its directory is one. Nor a symlink, which git follows to one,
	// or to a file of the user's it writes (gitDirLink).
	if n.mode != plainDir && n.mode != depsDir && typ&(noFile|os.ModeSymlink) != 0 {
		hostRun = true
	}
	// A socket at the project's top has every later launch refuse (the
	// project's bind would show the sandbox a socket of the host's): one
	// the session made goes aside; nothing listens on it once the
	// sandbox is gone.
	if n.rel == "" && n.mode == plainDir && typ&os.ModeSocket != 0 {
		hostRun = true
	}
	if !descend {
		if hostRun {
			w.leaf(n, name, rel)
		}
		return hostRun
	}
	if w.take != nil && (sub == depsDir || n.mode == objectsDir && sub != packDir || sub == lfsObjDir) {
		// Listed for the end's walk, but not taken: a record of a tree
		// that large would cost more at the start than it saves at the
		// end, where the walk reads only directory entries (and the
		// objects whose status changed since the start; of the objects,
		// the start takes only the packs, which git touches in place).
		return true
	}
	// A directory known to hold nothing to judge is not opened: in a
	// large tree, most are. (Its status is read first only where a record
	// holds such a listing of it.)
	// Its status may be the one the record's walk beside this one read.
	var st unix.Stat_t
	var at recordsAt
	if depth < maxDepth && sub != gitDir {
		at = w.recordsAt(rel)
	}
	if depth < maxDepth && sub != gitDir && at.listedEmpty() && w.statAt(n.fd, name, rel, &st) && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		if l, ok := w.knownAt(at, st.Ino, sub, time.Unix(st.Ctim.Unix())); ok && l.entries == "" && sub != gitDir {
			if w.take != nil && w.inPlaceAt(n, at, &st) {
				f := file{has: hasInode, ino: st.Ino}
				if !w.new(&st) {
					f.has, f.mode, f.ctime = hasInode|hasListing, l.mode, l.ctime
				}
				w.take.files.add(f, rel, nil)
			}
			return true
		}
	}
	fd, err := w.reopen.OpenDir(n.fd, name, rel)
	if err == unix.ELOOP || err == unix.ENOTDIR || err == unix.ENOENT {
		// Swapped for a symlink or a file since it was listed: never
		// followed; judged as what it now is.
		if hostRun {
			w.leaf(n, name, rel)
		}
		return true
	}
	if err == nil {
		defer unix.Close(fd)
		if err = unix.Fstat(fd, &st); err == nil {
			w.reopen.Read(rel, &st)
			w.reopen.Opened(fd, rel, &st)
		}
	} else {
		unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	inPlace := w.inPlace(n, rel, &st)
	if err != nil {
		// A directory whose permissions the session took away could hide
		// anything: a finding, unless it was so, in place, before.
		if !inPlace || w.new(&st) {
			w.found(rel)
		} else {
			w.notExamined(w.abs(rel), err.Error())
		}
		return true
	}
	// The record holds its inode, with its listing where dir takes one.
	record := w.take != nil && inPlace
	if depth+1 > maxDepth || len(rel) > MaxPathLen {
		if record {
			w.take.files.add(file{has: hasInode, ino: st.Ino}, rel, nil)
		}
		if inPlace || w.take != nil {
			w.notExamined(w.abs(rel), fmt.Sprintf("deeper than %d directories or %d bytes", maxDepth, MaxPathLen))
		} else {
			w.found(rel) // made during the session, too deep to examine
		}
		return true
	}
	if sub == plainDir && n.mode != todoDir && isGitDir(fd) {
		sub = gitDir
	}
	// A directory made with the casefold attribute passes it on to those
	// made in it; one without may still hold one that has it.
	child := node{fd: fd, rel: rel, inPlace: inPlace, mode: sub, ino: st.Ino, unchanged: !w.new(&st), record: record, ctime: time.Unix(st.Ctim.Unix()), fold: n.fold || projectfiles.FoldsCase(fd), objectFormat: n.objectFormat, gitDir: n.gitDir, clone: n.clone}
	if sub == gitDir {
		child.gitDir = rel
		child.clone = w.madeWhole(n.rel) && bornSince(n.fd, w.since) && bornSince(fd, w.since)
	}
	if sub == objectsDir {
		child.objectFormat = objectFormat(n.fd)
	}
	switch sub {
	case depsDir:
		w.deps(child)
		return true
	case gitDir:
		w.index(child)
	}
	if w.split != nil && depth == 0 {
		// Its own descriptor: this one closes on return.
		if dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err == nil {
			child.fd = dup
			*w.split = append(*w.split, subWalk{w.fork(), child})
			return true
		}
	}
	w.dir(child, depth+1)
	return true
}

// leaf judges a host-run entry that is not walked: a file, a symlink, a
// FIFO, whatever it is.
func (w *walker) leaf(n node, name, rel string) {
	var st unix.Stat_t
	if err := unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return // gone
	}
	if w.take == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o400 == 0 && w.reopen.ReadableAgain(n.fd, name, rel) {
		unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	inPlace := w.inPlace(n, rel, &st) && !w.new(&st)
	if n.mode == looseDir || n.mode == packDir || n.mode == objInfoDir || n.mode == lfsObjDir {
		// An object is read by its name wherever it came from: what
		// matters is that nothing wrote it, or linked or renamed it into
		// place, since the start, all of which change its status.
		inPlace = !w.new(&st)
	}
	if w.take != nil {
		if inPlace {
			w.take.files.add(file{has: hasInode, ino: st.Ino}, rel, nil)
		}
		if n.mode == packDir {
			w.takePack(n, name, rel, &st)
		}
		if inPlace && isReflog(n.mode, name) {
			w.takeReflog(n, name, rel, &st)
		}
		return
	}
	if inPlace {
		return
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG && st.Mode&unix.S_IFMT != unix.S_IFLNK && st.Mode&unix.S_IFMT != unix.S_IFDIR ||
		gitDirLink(n.mode, &st) {
		w.found(rel)
		return
	}
	if (n.mode == looseDir || n.mode == packDir) && w.objectHolds(n, name, rel, &st) ||
		n.mode == lfsObjDir && (w.lfsObjectHolds(n, name) || w.annexObjectHolds(n, name)) {
		return
	}
	// An empty alternates names no other object store: Claude Code's own
	// sandbox (its /sandbox screen) makes one, to mount over.
	if n.mode == objInfoDir && (name == "alternates" || name == "http-alternates") && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size == 0 {
		return
	}
	// A file git reads whole where it opens one that takes less disk
	// than its size: git fails allocating it (a .gitignore of 100 GB,
	// sparse, failed the host's git status, and every launch's snapshot).
	if n.mode == plainDir && gitOpened[name] && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Blocks*512+1<<20 < st.Size {
		w.found(rel)
		return
	}
	// A rule git hides what the session wrote by, and a task file whose
	// change git shows only where it tracks it (ignored.go).
	if n.mode == plainDir && name == ".gitignore" {
		w.ignores = append(w.ignores, rel)
		return
	}
	if n.mode == plainDir && gitOpened[name] && !isObeyed(name, n.fold) {
		return // git's data, judged above for its size alone
	}
	if n.mode == plainDir && (makeFragment(name) || pnpFiles[name] || toolConfig(name) || startupPackage(n.rel, name)) && !isObeyed(name, n.fold) {
		if !w.tracked(rel) {
			w.found(rel)
		}
		return
	}
	if n.mode == plainDir && name == "pyproject.toml" {
		if !w.tracked(rel) && pyprojectConfiguresTools(n.fd, name, w.manifestsRead) {
			w.found(rel)
		}
		return
	}
	if n.mode == plainDir && name == "Cargo.toml" {
		if !w.tracked(rel) && cargoManifestRuns(n.fd, filepath.Dir(rel), name, w.manifestsRead) {
			w.found(rel)
		}
		return
	}
	if n.mode == plainDir && (name == "package.json" || buildDefinition(n.rel, name, w.exists)) {
		if !w.tracked(rel) && (name != "package.json" || w.packageManifestRuns(n.fd, filepath.Dir(rel), name)) {
			w.found(rel)
		}
		return
	}
	// A Gemfile below the top (one there git status shows as new) runs
	// at the host's bundle wherever a Gemfile above evaluates it by a
	// pattern, git ignoring it.
	if n.mode == plainDir && rubyGemfile(name) {
		if _, existed := w.start.files.inode(rel); (existed || w.start.Root == "" || filepath.Dir(rel) != ".") && !w.tracked(rel) {
			w.found(rel)
		}
		return
	}
	if n.mode == plainDir && TaskFile(name) {
		if _, existed := w.start.files.inode(rel); (existed || w.start.Root == "") && !w.tracked(rel) {
			w.found(rel)
		}
		return
	}
	// A todo list runs only its exec lines; git am writes its options
	// for git apply at every start, most often none.
	if n.mode == todoDir && (todoLists[name] && !execLines(n.fd, name) || name == "apply-opt" && st.Size == 0) {
		return
	}
	// A linked worktree of the project's repository: its .git file and the
	// files pointing it and the repository at each other.
	if n.mode == plainDir && name == ".git" && w.linkedWorktree(w.abs(rel)) ||
		n.mode == gitDir && (name == "gitdir" || name == "commondir") && w.worktreeAdmin(n.fd, n.rel) {
		return
	}
	// A .env that sets only an application's own settings: nothing the
	// host's gemini, which loads it, or what gemini runs obeys.
	if n.mode == plainDir && w.obeys(name, false) && harmlessDotenv(n.fd, name) {
		return
	}
	// Packed refs that replace no object and hold no stash are named
	// where they list a branch or a tag.
	if n.mode == gitDir && name == "packed-refs" {
		if obeyed, branches := w.objects.packedRefsObeyed(n.fd, name); !obeyed {
			if branches && !n.clone {
				w.report.Branches = append(w.report.Branches, w.abs(rel))
			}
			return
		}
	}
	// A branch, a tag, any ref is history, named, not moved: but the
	// branch checked out, whose commits git log shows, and a pseudo ref
	// naming what git log shows or the host had (a fast-forward's
	// ORIG_HEAD, a pull's, a host rebase's).
	if n.mode == branchesDir || n.mode == gitDir && pseudoRefs[name] && name != bisectStart {
		if !n.clone && !w.checkedOut(n.gitDir, rel) && !(n.mode == gitDir && w.pseudoRefShown(n.gitDir, name, rel)) {
			w.report.Branches = append(w.report.Branches, w.abs(rel))
		}
		return
	}
	// Reftable tables hold every ref, replace refs and the stash among
	// them, in a form the audit does not read: what the session wrote
	// there is named once, with what to read before git is trusted.
	if n.mode == reftableDir {
		why := w.abs(n.rel) + ": the session wrote reftable tables there, which hold the repository's refs (replace refs, which swap an object for another wherever git reads it, the stash, branches, reflogs) in a form the audit does not read: read git replace -l, git stash list and git reflog before you check out, reset or build there"
		if !n.clone && !slices.Contains(w.report.NotExamined, why) {
			w.report.NotExamined = append(w.report.NotExamined, why)
		}
		return
	}
	// A ref's earlier values, which a reset to HEAD@{1} or git checkout -
	// writes, are named unless git log shows them.
	if isReflog(n.mode, name) {
		if !n.clone && !w.reflogShown(n, name, rel) {
			w.report.Branches = append(w.report.Branches, w.abs(rel))
		}
		return
	}
	// A config that sets only what git never executes (a clone's remote
	// and branch).
	if n.mode == gitDir && (name == "config" || name == "config.worktree") && inertConfig(n.fd, name) {
		return
	}
	w.found(rel)
}

// gitDirLink says st, an entry of a directory walked in mode m, is a
// symlink in a git directory. Git makes none there, and follows one
// wherever it opens a file by that name: git commit writes its message
// into COMMIT_EDITMSG (a session's link to ~/.bashrc had the host's
// commit rewrite it), git gc reads objects/info/packs and git branch
// every loose ref (linked to a FIFO the session left in the work tree,
// each waited forever), however the name is judged as a file.
func gitDirLink(m mode, st *unix.Stat_t) bool {
	return m != plainDir && m != depsDir && st.Mode&unix.S_IFMT == unix.S_IFLNK
}

// checkedOut says whether the ref at rel, in the git directory gitDir,
// is the branch HEAD names there or in one of its linked worktrees (at
// most maxWorktrees of them; past those, one is taken for none). The
// HEADs are read once a git directory: read again for each ref, a
// session's thousands of branches beside a thousand worktrees held the
// exit audit for minutes.
func (w *walker) checkedOut(gitDir, rel string) bool {
	ref, err := filepath.Rel(gitDir, rel)
	if err != nil {
		return false
	}
	refs, ok := w.headRefs[gitDir]
	if !ok {
		refs = w.readHeadRefs(gitDir)
		if w.headRefs == nil {
			w.headRefs = map[string]map[string]bool{}
		}
		w.headRefs[gitDir] = refs
	}
	return refs[ref]
}

// readHeadRefs are the refs the HEADs of the git directory gitDir and of
// its linked worktrees name; of a worktree's, only one the session did
// not write: a worktree it made up (a HEAD alone, which git takes for
// none and prunes) would hide the branch named from the end.
func (w *walker) readHeadRefs(gitDir string) map[string]bool {
	heads := []string{filepath.Join(gitDir, "HEAD")}
	if d, err := untrusted.OpenDir(w.root, filepath.Join(gitDir, "worktrees")); err == nil {
		names, _ := d.Readdirnames(maxWorktrees)
		d.Close()
		for _, name := range names {
			head := filepath.Join(gitDir, "worktrees", name, "HEAD")
			if fi, err := untrusted.Lstat(w.root, head); err == nil && w.older(fi) {
				heads = append(heads, head)
			}
		}
	}
	refs := map[string]bool{}
	for _, head := range heads {
		if b, err := w.read(head); err == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: "); ok {
				refs[ref] = true
			}
		}
	}
	return refs
}

// older says whether fi's status is known to have last changed before
// the start.
func (w *walker) older(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && time.Unix(st.Ctim.Unix()).Before(w.since)
}

// maxWorktrees bounds the linked worktrees checkedOut reads the HEAD of.
const maxWorktrees = 1000

// linkedWorktree says whether the gitfile at path is a linked worktree's
// of the project's own repository (<root>/.git/worktrees/<name>), which
// points back to it: git worktree add made them so. What such a worktree
// runs comes from the project's guarded .git; its config.worktree is
// judged as any other.
func (w *walker) linkedWorktree(path string) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	b, err := w.read(rel)
	admin, ok := strings.CutPrefix(strings.TrimSuffix(string(b), "\n"), "gitdir: ")
	if err != nil || !ok {
		return false
	}
	adminRel, err := filepath.Rel(w.root, admin)
	if err != nil || filepath.Dir(adminRel) != filepath.Join(".git", "worktrees") {
		return false
	}
	back, err1 := w.read(filepath.Join(adminRel, "gitdir"))
	common, err2 := w.read(filepath.Join(adminRel, "commondir"))
	return err1 == nil && err2 == nil && string(back) == path+"\n" && string(common) == "../..\n"
}

// worktreeAdmin says whether the git directory rel is the administrative
// directory of a linked worktree of the project's repository: one in the
// project, or one beside it (git worktree add ../x on the host while a
// session ran, in the folder holding the project, which the sandbox
// cannot write), whose .git file points back to rel, and which shares
// the repository's own git directory.
func (w *walker) worktreeAdmin(fd int, rel string) bool {
	if filepath.Dir(rel) != filepath.Join(".git", "worktrees") {
		return false
	}
	back, err := readAt(fd, "gitdir", 4096)
	path := strings.TrimSuffix(string(back), "\n")
	if err != nil || filepath.Base(path) != ".git" || !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return false
	}
	if strings.HasPrefix(path, w.root+"/") {
		return w.linkedWorktree(path)
	}
	// Only beside the project: a path anywhere would have the end look
	// wherever the sandbox chose (an automount's).
	if filepath.Dir(filepath.Dir(path)) != filepath.Dir(w.root) {
		return false
	}
	common, err := readAt(fd, "commondir", 4096)
	if err != nil || string(common) != "../..\n" {
		return false
	}
	gitFile, err := untrusted.ReadFile(filepath.Dir(path), ".git", 4096)
	return err == nil && string(gitFile) == "gitdir: "+filepath.Join(w.root, rel)+"\n"
}

func (w *walker) obeys(name string, fold bool) bool { return Obeys(w.obeyed, name, fold) }

// Obeys says whether name is one of obeyed, the names the host's tools
// obey wherever they stand, or a variant of one (.env.local,
// .env.production): direnv's dotenv_if_exists .env.local, bun, Vite and
// Next.js load those as the .env, and git ignores them as it does the
// .env.
func Obeys(obeyed []string, name string, fold bool) bool {
	return slices.ContainsFunc(obeyed, func(o string) bool {
		return projectfiles.Is(name, o, fold) || len(name) > len(o)+1 && projectfiles.Is(name[:len(o)+1], o+".", fold)
	})
}

// read reads rel beneath the root: a small regular file, reached without
// following a symlink.
func (w *walker) read(rel string) ([]byte, error) {
	return untrusted.ReadFile(w.root, rel, 4096)
}

// statAt reads the status of the entry name of fd, at rel, into st, or
// takes the one the record's walk read (Reopener.Status), and says
// whether it has one.
func (w *walker) statAt(fd int, name, rel string, st *unix.Stat_t) bool {
	if w.reopen.Status(rel, st) {
		return true
	}
	if unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	w.reopen.Read(rel, st)
	return true
}

// inPlace says whether rel, of status st, in n, is provably what stood at
// rel at the start: the snapshot says so, or n is and it was not renamed
// since.
func (w *walker) inPlace(n node, rel string, st *unix.Stat_t) bool {
	return w.inPlaceAt(n, w.recordsAt(rel), st)
}

// inPlaceAt is inPlace, of what the records hold at rel.
func (w *walker) inPlaceAt(n node, at recordsAt, st *unix.Stat_t) bool {
	return at.inStartIno && at.startIno == st.Ino || n.inPlace && !w.new(st)
}

// new says whether st's status changed at or after the start.
func (w *walker) new(st *unix.Stat_t) bool {
	return !time.Unix(st.Ctim.Unix()).Before(w.since)
}

func (w *walker) found(rel string) {
	if w.take != nil {
		return
	}
	if p := w.abs(rel); !w.seen[p] {
		w.seen[p] = true
		w.report.Found = append(w.report.Found, p)
	}
}

func (w *walker) notExamined(p, why string) {
	if w.take != nil {
		return
	}
	w.report.NotExamined = append(w.report.NotExamined, p+": "+why)
}

func (w *walker) abs(rel string) string { return filepath.Join(w.root, rel) }

// exists says whether something, a link too, lies at rel, each path
// looked up once a walker: buildDefinition asks of the folder above each
// file below a src/.
func (w *walker) exists(rel string) bool {
	if there, ok := w.existing[rel]; ok {
		return there
	}
	if w.existing == nil {
		w.existing = map[string]bool{}
	}
	_, err := untrusted.Lstat(w.root, rel)
	w.existing[rel] = err == nil
	return err == nil
}

// folder says whether a directory, no link, lies at rel: a path
// dependency of a package.json passes only where it leads to one.
func (w *walker) folder(rel string) bool {
	fi, err := untrusted.Lstat(w.root, rel)
	return err == nil && fi.IsDir()
}

// atMost is the first n of files (relative to the root), those past them
// named as not examined, why saying n is the most the audit reads.
func (w *walker) atMost(files []string, n int, why string) []string {
	if len(files) <= n {
		return files
	}
	for _, rel := range files[n:] {
		w.notExamined(w.abs(rel), fmt.Sprintf(why, n))
	}
	return files[:n]
}

// includesUnspelled names rel, once, among the files that include one
// by a path the audit cannot spell (Report.IncludesUnspelled).
func (w *walker) includesUnspelled(rel string) {
	if p := w.abs(rel); !slices.Contains(w.report.IncludesUnspelled, p) {
		w.report.IncludesUnspelled = append(w.report.IncludesUnspelled, p)
	}
}

// index compares the index of the git directory n with the start's: the
// entries hidden from git status since, and the gitlinks added since,
// whose repositories are then examined wherever they are. An index that
// is provably the start's is not read.
func (w *walker) index(n node) {
	// What git reads first of its directory (HEAD, or it takes the
	// directory for none) and the index, the session made unreadable,
	// are the user's again before they are read.
	for _, name := range []string{"HEAD", "index"} {
		var st unix.Stat_t
		if w.take == nil && unix.Fstatat(n.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && st.Mode&0o400 == 0 {
			w.reopen.ReadableAgain(n.fd, name, filepath.Join(n.rel, name))
		}
	}
	var st unix.Stat_t
	if unix.Fstatat(n.fd, "index", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return
	}
	rel := filepath.Join(n.rel, "index")
	inPlace := w.inPlace(n, rel, &st) && !w.new(&st)
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		// git reads an index through a symlink (to one anywhere, with
		// gitlinks) or from a FIFO, which the audit does not.
		if !inPlace {
			w.found(rel)
		}
		return
	}
	if w.take == nil && inPlace {
		return
	}
	if w.take != nil {
		if inPlace {
			w.takeIndex(n, &st)
		}
		return // or changed already: the end compares with nothing
	}
	r, err := readIndex(n.fd, true)
	if err != nil {
		// Changed, and git may read what the audit cannot (a shared
		// index through a symlink, one over its size limit): a finding.
		w.found(rel)
		return
	}
	entries, names, cached := r.entries, r.names, r.cached
	if cached {
		w.report.Caches = append(w.report.Caches, w.abs(n.rel))
	}
	work, before := w.workTree(n), w.start.Index[n.rel]
	if work != "" && !r.split {
		w.divergedIn(n, work)
	}
	if work != "" {
		for _, p := range names {
			var st unix.Stat_t
			if p != "" && unix.Lstat(filepath.Join(work, p), &st) == nil && w.new(&st) {
				w.report.Restat = append(w.report.Restat, Hidden{Repo: work, Path: p, gitDir: w.abs(n.rel), bits: restat})
			}
		}
	}
	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		bits := entries[p] &^ before[p]
		if (p == "" || work == "") && bits != 0 {
			w.found(rel) // a path the audit cannot name
			continue
		}
		if bits&skipWorktree != 0 && bits&assumeUnchanged == 0 && !exists(filepath.Join(work, p)) {
			// A file that is not there hides nothing (a sparse
			// checkout's): the host runs no such file.
			bits &^= skipWorktree
		}
		var clear []string
		if bits&assumeUnchanged != 0 {
			clear = append(clear, "--no-assume-unchanged")
		}
		if bits&skipWorktree != 0 {
			clear = append(clear, "--no-skip-worktree")
		}
		if clear != nil {
			w.report.Hidden = append(w.report.Hidden, Hidden{Repo: work, Path: p, Flags: clear, gitDir: w.abs(n.rel), bits: bits & (assumeUnchanged | skipWorktree)})
		}
		if bits&gitlink != 0 {
			if lp, err := filepath.Rel(w.root, filepath.Join(work, p)); err == nil && filepath.IsLocal(lp) {
				w.links = append(w.links, lp)
			} else {
				w.found(rel) // a repository outside the project, unexamined
			}
		}
	}
}

// exists says whether anything stands at p (a symlink is not followed).
func exists(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) != unix.ENOENT
}

// workTree is the work tree of the git directory n, whose index the host's
// git status there reads: a .git directory's parent, a linked worktree's
// (its gitdir file names the worktree's .git), a submodule's under
// .git/modules (its core.worktree, which git submodule sets); "" for none.
func (w *walker) workTree(n node) string {
	dir := w.abs(n.rel)
	if filepath.Base(n.rel) == ".git" {
		return filepath.Dir(dir)
	}
	relative := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	if b, err := readAt(n.fd, "gitdir", 4096); err == nil {
		return filepath.Dir(relative(strings.TrimSuffix(string(b), "\n")))
	}
	if b, err := readAt(n.fd, "config", 1<<20); err == nil {
		if entries, err := gitconfig.Parse(b); err == nil {
			if wt := gitconfig.Last(entries, "core.worktree"); wt != "" {
				return relative(wt)
			}
		}
	}
	return ""
}

// takeIndex records, for the end, the hidden entries and gitlinks of the
// index of n (whose status is st). The same file as the base record's,
// unchanged since it read it (its inode, size and status change: any
// write to it moves the last on, and nothing sets it back), has the
// entries it had then, so a large repository's index (80 MB for 1,000,000
// files) is not read again at every start. A split index is always read:
// its shared part is another file.
func (w *walker) takeIndex(n node, st *unix.Stat_t) {
	file := IndexFile{Ino: st.Ino, Size: st.Size, Ctime: st.Ctim.Nano()}
	if w.base != nil {
		if entries, ok := w.base.Index[n.rel]; ok && w.base.IndexFiles[n.rel] == file {
			w.take.Index[n.rel], w.take.IndexFiles[n.rel] = entries, file
			return
		}
	}
	r, err := readIndex(n.fd, false)
	// Read while the session runs: an index written since the status
	// above was taken may be the session's (the end then compares with
	// nothing).
	var now unix.Stat_t
	if err != nil || unix.Fstatat(n.fd, "index", &now, unix.AT_SYMLINK_NOFOLLOW) != nil || now.Ino != st.Ino || now.Size != st.Size || now.Ctim != st.Ctim {
		return
	}
	w.take.Index[n.rel] = r.entries
	if !r.split {
		w.take.IndexFiles[n.rel] = file
	}
}

// indexRead is what readIndex read of an index.
type indexRead struct {
	entries map[string]uint8
	names   []string
	// cached: it holds caches derived from the work tree (derived);
	// split: it builds on a shared index.
	cached, split bool
}

// indexReading is held by the readIndex running.
var indexReading sync.Mutex

// readIndex reads the index of the git directory fd: its entries hidden
// from git status or gitlinks, and, for a split index, those of the shared
// index it builds on (.git/sharedindex.<hash>), which git reads as its own;
// and, where withNames asks (the end's look for what the session made
// new, not the start's record: 1,000,000 entries cost 0.1-0.2 s), the
// names of its file entries.
// A replacement entry (a split index's, nameless) stands for a shared
// entry at a position the audit does not decode: it is read as the empty
// path.
func readIndex(fd int, withNames bool) (indexRead, error) {
	// One at a time, whatever the walks side by side: an index may take
	// 256 MiB, and the session can make a repository, with a sparse
	// index of that size, in each directory the walks share out.
	indexReading.Lock()
	defer indexReading.Unlock()
	n := hashLen(fd)
	b, err := readAt(fd, "index", maxIndex)
	if err != nil {
		return indexRead{}, err
	}
	entries, shared, err := parseIndex(b, n)
	if err != nil {
		return indexRead{}, err
	}
	r := indexRead{entries: entries, cached: workTreeCache(b, n), split: shared != ""}
	if withNames {
		if r.names, err = entryNames(b, n); err != nil {
			return indexRead{}, err
		}
	}
	if shared == "" {
		return r, nil
	}
	if b, err = readAt(fd, "sharedindex."+shared, maxIndex); err != nil {
		return indexRead{}, err
	}
	base, link, err := parseIndex(b, n)
	if err == nil && link != "" {
		err = errIndex
	}
	if err != nil {
		return indexRead{}, err
	}
	for p, bits := range base {
		entries[p] |= bits
	}
	if !withNames {
		return r, nil
	}
	sharedNames, err := entryNames(b, n)
	if err != nil {
		return indexRead{}, err
	}
	r.names = append(r.names, sharedNames...)
	return r, nil
}

// gitlink examines the repository at rel, a submodule the host's git
// recurses into, however deep and wherever it is: each directory down to
// it is opened without following a symlink.
func (w *walker) gitlink(rel string) {
	fd, err := unix.Open(w.root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	n := node{fd: fd, inPlace: true, mode: plainDir}
	defer func() { unix.Close(n.fd) }()
	for _, part := range strings.Split(rel, "/") {
		sub, err := unix.Openat(n.fd, part, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if err != nil {
			return // not a directory reached without a symlink: git finds no repository there either
		}
		subRel := filepath.Join(n.rel, part)
		var st unix.Stat_t
		if err := unix.Fstat(sub, &st); err != nil {
			unix.Close(sub)
			return
		}
		next := node{fd: sub, rel: subRel, inPlace: w.inPlace(n, subRel, &st), mode: plainDir, ino: st.Ino, ctime: time.Unix(st.Ctim.Unix())}
		unix.Close(n.fd)
		n = next
	}
	var st unix.Stat_t
	if unix.Fstatat(n.fd, ".git", &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		typ := os.FileMode(0)
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			typ = os.ModeDir
		}
		w.entry(n, ".git", typ, 0)
	}
}

// isGitDir says whether the directory fd is one git uses as a repository:
// a HEAD beside objects, or beside a commondir (a linked worktree's).
func isGitDir(fd int) bool {
	var st unix.Stat_t
	if unix.Fstatat(fd, "HEAD", &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return false
	}
	return unix.Fstatat(fd, "objects", &st, unix.AT_SYMLINK_NOFOLLOW) == nil || unix.Fstatat(fd, "commondir", &st, unix.AT_SYMLINK_NOFOLLOW) == nil
}

// hashLen is the length of object names in the git directory fd: SHA-256's
// where its config names that format.
func hashLen(fd int) int {
	b, err := readAt(fd, "config", 1<<20)
	if err == nil && bytes.Contains(bytes.ToLower(b), []byte("sha256")) {
		return 32
	}
	return 20
}

// execLines says whether the todo list name in fd runs a command (an exec
// line), or cannot be read to tell. It is read a part at a time: each
// walker read one whole, 16 MiB and a copy, at once. One with a hole,
// which git never writes, is not read.
func execLines(fd int, name string) bool {
	ffd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return true
	}
	f := os.NewFile(uintptr(ffd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 16<<20 {
		return true
	}
	if hole, err := unix.Seek(ffd, 0, unix.SEEK_HOLE); err != nil || hole < fi.Size() {
		return true
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return true
	}
	br := bufio.NewReaderSize(io.LimitReader(f, 16<<20), 64<<10)
	lineStart := true
	for {
		chunk, err := br.ReadSlice('\n')
		if lineStart {
			rest := bytes.TrimLeftFunc(chunk, unicode.IsSpace)
			word, _, cut := bytes.Cut(rest, []byte(" "))
			if i := bytes.IndexFunc(word, unicode.IsSpace); i >= 0 {
				word, cut = word[:i], true
			}
			switch {
			case len(rest) == 0 && err == bufio.ErrBufferFull:
				// Still in the line's leading blanks.
			case !cut && err == bufio.ErrBufferFull:
				return true // a first word longer than a part: cannot tell
			case string(word) == "exec" || string(word) == "x":
				return true
			default:
				lineStart = false
			}
		}
		switch err {
		case nil:
			lineStart = true
		case bufio.ErrBufferFull:
		case io.EOF:
			return false
		default:
			return true
		}
	}
}

// readAt reads name in the directory fd: a regular file, not followed if a
// symlink, of at most limit bytes.
func readAt(fd int, name string, limit int64) ([]byte, error) {
	ffd, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(ffd), name)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, errors.New("not a regular file of at most " + fmt.Sprint(limit) + " bytes")
	}
	// Into one buffer of the size it had: reading into a growing one
	// holds the file's size twice.
	b := make([]byte, fi.Size())
	n, err := io.ReadFull(f, b)
	if err == io.ErrUnexpectedEOF {
		err = nil
	}
	return b[:n], err
}

// Replaced lists the guarded paths that are regular files whose status
// changed at or after since. A guard's file cannot change while its guard
// stands, so the host replaced it during the session (git config, an
// editor's save); the new file was written in a directory the sandbox
// can write, so the sandbox may have written it before the rename.
func Replaced(guarded []string, since time.Time) []string {
	var out []string
	for _, p := range guarded {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && !time.Unix(st.Ctim.Unix()).Before(since) {
			out = append(out, p)
		}
	}
	return out
}

// madeWhole says no directory stood at rel at the start, by the start's
// snapshot: a repository the user had, replaced by a clone under its
// name, is no clone of the session's. Without the snapshot, none is.
func (w *walker) madeWhole(rel string) bool {
	if w.start == nil {
		return false
	}
	_, had := w.start.files.inode(rel)
	return !had
}

// made says whether the entry name of the directory open at fd was made
// during the session: born since its start where the filesystem keeps
// birth times (no one can set one), else changed since and not in the
// start's record.
func (w *walker) made(fd int, name, rel string) bool {
	var st unix.Statx_t
	if unix.Statx(fd, name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME|unix.STATX_CTIME, &st) != nil || time.Unix(st.Ctime.Sec, int64(st.Ctime.Nsec)).Before(w.since) {
		return false
	}
	if st.Mask&unix.STATX_BTIME != 0 {
		return !time.Unix(st.Btime.Sec, int64(st.Btime.Nsec)).Before(w.since)
	}
	return w.madeWhole(rel)
}

// bornSince says the directory open at fd was made at since or after, by
// its birth time, which no one can set; false where the filesystem keeps
// none.
func bornSince(fd int, since time.Time) bool {
	var st unix.Statx_t
	if unix.Statx(fd, "", unix.AT_EMPTY_PATH, unix.STATX_BTIME, &st) != nil || st.Mask&unix.STATX_BTIME == 0 {
		return false
	}
	return !time.Unix(st.Btime.Sec, int64(st.Btime.Nsec)).Before(since)
}

// rules digests the names the walk judges, and how: once for the
// registry it is made of (each record's start and its end ask, and the
// digest costs a millisecond).
func rules() [sha256.Size]byte {
	rulesDigest.Lock()
	defer rulesDigest.Unlock()
	if len(projectfiles.Entries) == 0 || rulesDigest.of != &projectfiles.Entries[0] || rulesDigest.n != len(projectfiles.Entries) {
		rulesDigest.sum = sha256.Sum256(fmt.Append(nil, projectfiles.Entries, gitRunNames, gitWalked, gitOpened, depsDirs, buildKinds, pnpFiles, taskFiles, "justfile", fragmentExts, "Makefile.", "Makefile2", gemfiles, "*Gemfile*", "*.gemfile", ".gitignore", ".pyc", ".so", stashRef, gitDataDir, pseudoRefs, gitData, gitDataDirs, "sharedindex.*", "*.lock", "BISECT_*", "logs/**", "reftable/*", "refs/*", toolConfigs, "Cargo.toml", "[lib|bin|test|bench|example].path", "package.workspace", "*.neon", ".*rc", ".*-version", "*.config.*", "*.conf.*", configExts, todoData, "rebase-apply/[0-9]*", "rebase-merge/*/", ".jj/{repo,workspace-config.toml,workspace-config-id}", ".jj/repo/{config.toml,config-id,store/git_target}", "package.json", installScripts, "bin", "directories", "file:<folder>", "name:<taken>", "binding.gyp", "package.json5", "package.yaml", "*.sbt", "buildSrc/*", "buildSrc/src/**", "project/*.{scala,java}", "project/project/*", "*.gradle", "*.gradle.kts", "<settings.gradle*>/src/**"))
		rulesDigest.of, rulesDigest.n = nil, len(projectfiles.Entries)
		if len(projectfiles.Entries) > 0 {
			rulesDigest.of = &projectfiles.Entries[0]
		}
	}
	return rulesDigest.sum
}

// rulesDigest is rules' last digest, and the registry it was made of (an
// upgrade's, in the tests, is another slice).
var rulesDigest struct {
	sync.Mutex
	of  *projectfiles.Entry
	n   int
	sum [sha256.Size]byte
}

// isObeyed says the registry names name: what the host runs or obeys
// there, whatever lies inside. (A variable: tests give the registry an
// entry an upgrade would bring.)
var isObeyed = func(name string, fold bool) bool {
	_, ok := projectfiles.Lookup(name, fold)
	return ok
}

// Moved is a finding and where it went.
type Moved struct{ From, To string }

// copyLimit bounds what one MoveAside copies across filesystems: the
// session can leave a sparse file of a terabyte, whose copy would take
// hours and fill claudebox's disk.
const copyLimit = 1 << 30

// CopyingSuffix names, beside the dest of a MoveAside, the folder it
// copies into across filesystems before a whole copy is renamed into dest:
// what a kill part way leaves there is no file of the user's alone.
const CopyingSuffix = ".copying"

// MoveAside moves each path (under root) to the same relative path under
// dest, never following a symlink, in any component of the path: by
// rename, or, across filesystems, by copying and removing, up to copyLimit
// bytes in all. (A session of an overlapping project may still be running,
// and swap a directory above a finding for a symlink to the user's files
// after the audit saw it.) One that cannot be moved there (dest's disk
// full, the bound reached) is renamed beside itself (renameBeside); one
// that cannot be moved at all is reported, and the rest still go. Each
// goes whole or not at all: across filesystems a path is first copied
// whole (in dest+CopyingSuffix), then named in dest, and only then
// removed from root, so that every file of it is at one of the places the
// result names.
func MoveAside(root, dest string, paths []string) ([]Moved, error) {
	top, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	at := untrusted.FDPath(top)
	budget := int64(copyLimit)
	scratch := dest + CopyingSuffix
	defer os.RemoveAll(scratch)
	var moved []Moved
	var errs []error
	for _, p := range paths {
		rel, err := filepath.Rel(root, p)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		// Gone since the scan (a stand-in the cleanup beside this took
		// away under its aside name, a path below one moved before it):
		// nothing of it is left in place to say, and no folder is made
		// for it in dest, which would stay there empty.
		if gone(at, rel) {
			continue
		}
		to := filepath.Join(dest, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			errs = append(errs, err)
			continue
		}
		err = moveFile(at, rel, to, scratch, &budget)
		if errors.Is(err, fs.ErrNotExist) && gone(at, rel) {
			continue // gone meanwhile
		}
		var left notRemoved
		if errors.As(err, &left) {
			// Whole in dest, and some of it still in the project.
			moved = append(moved, Moved{From: p, To: to})
			errs = append(errs, fmt.Errorf("%s: copied whole to %s, but not removed: %w", p, to, pathless(left.error)))
			continue
		}
		if err != nil {
			// Where it cannot go (the session filled the disk holding
			// dest, or left more than copyLimit), it is renamed beside
			// itself, to a name nothing obeys, rather than left where
			// the host obeys it.
			if beside, rerr := renameBeside(at, rel, filepath.Base(dest)); rerr == nil {
				moved = append(moved, Moved{From: p, To: filepath.Join(root, beside)})
				continue
			}
			errs = append(errs, fmt.Errorf("%s: %w", p, pathless(err)))
			continue
		}
		moved = append(moved, Moved{From: p, To: to})
	}
	return moved, errors.Join(errs...)
}

// gone says nothing is at rel beneath root, or at a directory above it.
func gone(root, rel string) bool {
	_, err := untrusted.Lstat(root, rel)
	return errors.Is(err, fs.ErrNotExist)
}

// notRemoved is the error of a path copied whole to its place in dest
// that could not then be removed from the project.
type notRemoved struct{ error }

// pathless is err without the path it names, which is the descriptor's:
// the caller names the path in the project.
func pathless(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// moveFile moves rel, beneath root, to to; across filesystems it copies
// rel whole into scratch first, taking from budget the bytes it copies,
// and renames the copy to to before it removes rel.
func moveFile(root, rel, to, scratch string, budget *int64) error {
	fi, err := untrusted.Lstat(root, rel)
	if err != nil {
		return err
	}
	// A directory the session took its owner's permissions from cannot be
	// renamed into another: they are given back first.
	if fi.IsDir() && fi.Mode().Perm()&0o700 != 0o700 {
		if err := untrusted.Chmod(root, rel, fi.Mode().Perm()|0o700); err != nil {
			return err
		}
	}
	err = untrusted.RenameOut(root, rel, to)
	if errors.Is(err, unix.EACCES) && openParent(root, rel) {
		err = untrusted.RenameOut(root, rel, to)
	}
	if !errors.Is(err, unix.EXDEV) {
		return err
	}
	// Across filesystems the rename fails before the kernel looks at the
	// directory holding it, whose permissions the removal below needs.
	openParent(root, rel)
	// A FIFO or a device is nothing anyone meant to keep: removed.
	if fi.Mode().IsRegular() || fi.IsDir() || fi.Mode()&os.ModeSymlink != 0 {
		if err := os.MkdirAll(scratch, 0o700); err != nil {
			return err
		}
		copied := filepath.Join(scratch, rand.Text())
		spent := *budget
		if err := copyTree(root, rel, fi, copied, budget); err != nil {
			// A part copied is no copy: all of it stays where it was.
			os.RemoveAll(copied)
			*budget = spent
			return err
		}
		if err := os.Rename(copied, to); err != nil {
			os.RemoveAll(copied)
			return err
		}
	}
	if err := untrusted.RemoveAll(root, rel); err != nil {
		return notRemoved{err}
	}
	return nil
}

// copyTree copies rel, beneath root, of status fi, to to, which it makes:
// a symlink as itself, a regular file within budget, a directory with
// what it holds. A FIFO or a device in a directory is not copied.
func copyTree(root, rel string, fi fs.FileInfo, to string, budget *int64) error {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := untrusted.Readlink(root, rel)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	case fi.Mode().IsRegular():
		if fi.Size() > *budget {
			return fmt.Errorf("%s: %d bytes, more than claudebox copies to move it aside to another filesystem", filepath.Join(root, rel), fi.Size())
		}
		*budget -= fi.Size()
		return copyRegular(root, rel, to, fi.Mode().Perm(), fi.Size())
	case fi.IsDir():
		// One the session took its owner's permissions from is read
		// and emptied with them given back.
		if fi.Mode().Perm()&0o700 != 0o700 {
			if err := untrusted.Chmod(root, rel, fi.Mode().Perm()|0o700); err != nil {
				return err
			}
		}
		if err := os.Mkdir(to, 0o700); err != nil {
			return err
		}
		entries, err := untrusted.ReadDir(root, rel)
		if err != nil {
			return err
		}
		for _, e := range entries {
			child := filepath.Join(rel, e.Name())
			cfi, err := untrusted.Lstat(root, child)
			if err != nil {
				return err
			}
			if err := copyTree(root, child, cfi, filepath.Join(to, e.Name()), budget); err != nil {
				return err
			}
		}
	}
	return nil
}

// renameBeside renames rel, beneath root, to its name with
// ".claudebox-aside-" and stamp added, in its own directory, and returns
// the new name. Where that cannot be (the session, which can guess the
// time, made it first; the name grows past what a name may hold), it is
// renamed to ".claudebox-aside-", stamp and a random part alone.
func renameBeside(root, rel, stamp string) (string, error) {
	rename := func(to string) error {
		err := untrusted.Rename(root, rel, to)
		if errors.Is(err, unix.EACCES) && openParent(root, rel) {
			err = untrusted.Rename(root, rel, to)
		}
		return err
	}
	beside := rel + ".claudebox-aside-" + stamp
	err := rename(beside)
	if err != nil && !errors.Is(err, unix.EACCES) {
		beside = filepath.Join(filepath.Dir(rel), ".claudebox-aside-"+stamp+"-"+rand.Text())
		err = rename(beside)
	}
	return beside, err
}

// openParent gives the directory holding rel, beneath root, its owner's
// permissions back when it lacks those that removing rel from it needs
// (git-annex makes its objects' directories read-only; a session, any of
// its own), and says whether it did.
func openParent(root, rel string) bool {
	dir := filepath.Dir(rel)
	if dir == "." {
		return false
	}
	d, err := untrusted.Lstat(root, dir)
	return err == nil && d.IsDir() && d.Mode().Perm()&0o300 != 0o300 && untrusted.Chmod(root, dir, d.Mode().Perm()|0o700) == nil
}

// copyRegular copies the first size bytes of rel, a regular file beneath
// root, to to.
func copyRegular(root, rel, to string, perm os.FileMode, size int64) error {
	in, err := untrusted.Open(root, rel)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm&0o700)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, size))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// openRoot opens the directory at the top of a walk with no symlink on the
// way to it, from /: a session of a project around this one may have
// swapped a directory above it for a link to the user's files, where the
// walk would find, and move aside, what the host changed since the start.
// A descriptor the caller holds open (untrusted.FDPath, a link of /proc's)
// names its own directory.
func openRoot(root string) (*os.File, error) {
	if strings.HasPrefix(root, "/proc/self/fd/") {
		return os.OpenFile(root, os.O_RDONLY|unix.O_DIRECTORY, 0)
	}
	return untrusted.OpenDir("/", strings.TrimPrefix(filepath.Clean(root), "/"))
}
