package undo

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A snapshot keeps, beside its record, the list of its tree's files as
// git ls-tree -r writes it: the session's end reads it in place of git,
// whose start on every exit cost more than the list of a small tree.
// It is made from the store's index, whose entries are the tree's, and,
// like every file of the store, no sandbox sees it.

// listingLimit bounds a snapshot's list (60,000 files' take 4 MiB):
// past it the end asks git.
const listingLimit = 64 << 20

// staged is an entry of the store's index, as git ls-files --stage
// lists it.
type staged struct{ mode, oid, path string }

// keepListing keeps the list of s's tree beside it, for the session's end
// to read in place of git's: a link to the list of an earlier snapshot
// of the same tree, or the list made.
func (st store) keepListing(s Snapshot, list func() []byte) {
	to := filepath.Join(st.dir, s.ID+".listing")
	for _, earlier := range st.list(s.Checkout) {
		if earlier.Tree == s.Tree && earlier.ID != s.ID && os.Link(filepath.Join(st.dir, earlier.ID+".listing"), to) == nil {
			return
		}
	}
	if listing := list(); len(listing) <= listingLimit {
		writeRecord(to, listing)
	}
}

// stagedEntries reads git ls-files -z --stage.
func stagedEntries(out string) []staged {
	var entries []staged
	for rec := range strings.SplitSeq(out, "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 3 || path == "" {
			continue
		}
		entries = append(entries, staged{mode: f[0], oid: f[1], path: path})
	}
	return entries
}

// listedEntries are the entries of the copy of the store's index at
// work, of status copied when it was written, where git add left it as
// it was: the store's index, whose tree (known) a kept list names
// entry by entry (a git process fewer at a launch in a checkout
// unchanged since the last). listed is false where they are not known
// so.
func (st store) listedEntries(checkout, known, work string, copied *unix.Stat_t) (entries []staged, listed bool) {
	if known == "" || !sameStatus(work, copied) {
		return nil, false
	}
	for _, s := range st.list(checkout) {
		if s.Tree != known {
			continue
		}
		b, err := os.ReadFile(filepath.Join(st.dir, s.ID+".listing"))
		if err != nil {
			continue
		}
		for rec := range strings.SplitSeq(string(b), "\x00") {
			meta, path, ok := strings.Cut(rec, "\t")
			f := strings.Fields(meta)
			if !ok || len(f) != 3 || path == "" {
				continue
			}
			entries = append(entries, staged{mode: f[0], oid: f[2], path: path})
		}
		return entries, true
	}
	return nil, false
}

// listingOf is the list of the tree git write-tree makes of entries once
// the unknown paths (sorted) are taken out.
func listingOf(entries []staged, unknown []string) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		if _, out := slices.BinarySearch(unknown, e.path); out {
			continue
		}
		kind := "blob"
		if e.mode == "160000" {
			kind = "commit"
		}
		b.WriteString(e.mode + " " + kind + " " + e.oid + "\t" + e.path + "\x00")
	}
	return b.Bytes()
}

// readIndex reads the store's index of a checkout, and the tree the
// snapshot that kept it wrote of it ("" if not known): keepIndex
// recorded it with the index's status, which a later index, renamed into
// place, does not share.
func (st store) readIndex(index string) ([]byte, string, error) {
	f, err := os.Open(index)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	var sx unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &sx); err != nil {
		return nil, "", err
	}
	data, err := readAll(f, sx.Size)
	if err != nil {
		return nil, "", err
	}
	record, _ := os.ReadFile(index + ".tree")
	status, tree, ok := strings.Cut(strings.TrimSpace(string(record)), " ")
	if !ok || status != statusOf(&sx) {
		tree = ""
	}
	return data, tree, nil
}

// readAll reads f, of size bytes when it was opened.
func readAll(f *os.File, size int64) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(int(size) + 512)
	_, err := b.ReadFrom(f)
	return b.Bytes(), err
}

// keepIndex renames work, of which git wrote tree, into place as the
// store's index, and records tree with its status.
func (st store) keepIndex(work, index, tree string) error {
	f, err := os.Open(work)
	if err != nil {
		return err
	}
	defer f.Close()
	os.Remove(index + ".tree")
	if err := os.Rename(work, index); err != nil {
		return err
	}
	// The open file is the one renamed, whatever another snapshot renames
	// there meanwhile; the rename changed its status.
	var sx unix.Stat_t
	if unix.Fstat(int(f.Fd()), &sx) == nil {
		writeRecord(index+".tree", []byte(statusOf(&sx)+" "+tree+"\n"))
	}
	return nil
}

// statusOf is what tells one version of a file of the store from
// another: each is renamed into place whole, a new file.
func statusOf(sx *unix.Stat_t) string {
	return strconv.FormatUint(sx.Dev, 10) + ":" + strconv.FormatUint(sx.Ino, 10) + ":" + strconv.FormatInt(sx.Size, 10) + ":" +
		strconv.FormatInt(sx.Ctim.Nano(), 10) + ":" + strconv.FormatInt(sx.Mtim.Nano(), 10)
}

// sameStatus says the file at path is still the one of status was.
func sameStatus(path string, was *unix.Stat_t) bool {
	var sx unix.Stat_t
	return unix.Lstat(path, &sx) == nil && statusOf(&sx) == statusOf(was)
}

// hasObject says the store holds the object oid, loose, as write-tree
// left it: written to its own objects, or found in those its alternates
// name (the project's, where a tree of a commit already is).
func (st store) hasObject(oid string) bool {
	if len(oid) < 3 {
		return false
	}
	dirs := []string{filepath.Join(st.gitDir, "objects")}
	alternates, _ := os.ReadFile(filepath.Join(st.gitDir, "objects", "info", "alternates"))
	for _, dir := range strings.Split(string(alternates), "\n") {
		if filepath.IsAbs(dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, dir := range dirs {
		var sx unix.Stat_t
		if unix.Lstat(filepath.Join(dir, oid[:2], oid[2:]), &sx) == nil && sx.Mode&unix.S_IFMT == unix.S_IFREG {
			return true
		}
	}
	return false
}
