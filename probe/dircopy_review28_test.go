package probe

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/internal/unprivileged"
	"github.com/claudebox/claudebox/mount"
)

// TestDirCopiesHostile pins what each of the three private copies of a
// directory (dirCopy: ~/.claude's; managedClaudeCopy: the managed
// policy's .claude, the directory laid out being its skills;
// phpDirCopy: PHP's configuration in /etc) makes of a hostile
// directory, read as an ordinary user does (root only where a case
// says): what is copied, what is left out (out:) or named as a
// credential (cred:), and whether the copy is refused whole.
func TestDirCopiesHostile(t *testing.T) {
	const ini = "memory_limit = 128M\n"
	// comments is n bytes of an ini file's comments: a settings file of
	// no credential, which PHP's copy rebuilds to nothing.
	comments := func(n int) string { return strings.Repeat(strings.Repeat(";", 63)+"\n", n/64) }
	write := func(t *testing.T, path, content string, mode os.FileMode) {
		testfs.Write(t, path, content)
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	deep := func(levels int) func(t *testing.T, dir, outside string) {
		return func(t *testing.T, dir, _ string) {
			p := dir
			for i := 1; i <= levels; i++ {
				p = filepath.Join(p, "d"+strconv.Itoa(i))
			}
			testfs.Write(t, filepath.Join(p, "a.ini"), ini)
		}
	}
	many := func(n int) func(t *testing.T, dir, outside string) {
		return func(t *testing.T, dir, _ string) {
			for i := range n {
				testfs.Write(t, filepath.Join(dir, fmt.Sprintf("%04d.ini", i)), "")
			}
		}
	}
	for _, tc := range []struct {
		name string
		// build lays out dir, the directory copied; outside is a
		// directory beside it.
		build func(t *testing.T, dir, outside string)
		// root reads as root does, past the files' modes.
		root bool
		// dirCopy, managed, php: what each copy makes of dir.
		dirCopy, managed, php string
	}{{
		name: "plain",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			write(t, filepath.Join(dir, "sub", "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
		},
		dirCopy: `a.ini "memory_limit = 128M\n"; sub/; sub/run.sh* "#!/bin/sh\necho hi\n"`,
		managed: `.; a.ini "memory_limit = 128M\n"; sub/; sub/run.sh* "#!/bin/sh\necho hi\n"`,
		php:     `a.ini "memory_limit = 128M\n"; sub/; out:sub/run.sh`,
	}, {
		name: "links out and looping",
		build: func(t *testing.T, dir, outside string) {
			testfs.Write(t, filepath.Join(outside, "secret.ini"), "mysqli.default_pw = hunter2\n")
			testfs.Tree(t, dir, "out.ini -> "+filepath.Join(outside, "secret.ini"), "up -> ..", "outdir -> "+outside,
				"loop -> loop", "l1 -> l2", "l2 -> l1", "sub/back -> ../../..")
		},
		dirCopy: `l1 -> l2; l2 -> l1; loop -> loop; out.ini -> OUTSIDE/secret.ini; outdir -> OUTSIDE; sub/; sub/back -> ../../..; up -> ..`,
		managed: `.; l1 -> l2; l2 -> l1; loop -> loop; out.ini -> OUTSIDE/secret.ini; outdir -> OUTSIDE; sub/; sub/back -> ../../..; up -> ..`,
		php:     `l1 -> l2; l2 -> l1; loop -> loop; out.ini -> OUTSIDE/secret.ini; outdir -> OUTSIDE; sub/; sub/back -> ../../..; up -> ..`,
	}, {
		name: "FIFO and socket",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo.ini"), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := net.Listen("unix", filepath.Join(dir, "s.ini"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
		},
		dirCopy: `a.ini "memory_limit = 128M\n"`,
		managed: `.; a.ini "memory_limit = 128M\n"`,
		php:     `a.ini "memory_limit = 128M\n"; out:fifo.ini; out:s.ini`,
	}, {
		name: "chmod 000 directory",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			testfs.Write(t, filepath.Join(dir, "locked", "b.ini"), ini)
			os.Chmod(filepath.Join(dir, "locked"), 0)
		},
		dirCopy: `refused`,
		managed: `out:.`,
		php:     `a.ini "memory_limit = 128M\n"; out:locked`,
	}, {
		name: "chmod 000 directory, as root",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			testfs.Write(t, filepath.Join(dir, "locked", "b.ini"), ini)
			os.Chmod(filepath.Join(dir, "locked"), 0)
		},
		root:    true,
		dirCopy: `a.ini "memory_limit = 128M\n"; locked/; locked/b.ini "memory_limit = 128M\n"`,
		managed: `.; a.ini "memory_limit = 128M\n"; out:locked`,
		php:     `a.ini "memory_limit = 128M\n"; out:locked`,
	}, {
		name: "chmod 0700 and 0704 directories, as root",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "own", "b.ini"), ini)
			testfs.Write(t, filepath.Join(dir, "listed", "c.ini"), ini)
			os.Chmod(filepath.Join(dir, "own"), 0o700)
			os.Chmod(filepath.Join(dir, "listed"), 0o704)
		},
		root:    true,
		dirCopy: `listed/; listed/c.ini "memory_limit = 128M\n"; own/; own/b.ini "memory_limit = 128M\n"`,
		managed: `.; out:listed; out:own`,
		php:     `out:listed; out:own`,
	}, {
		name: "chmod 000 copied directory",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			os.Chmod(dir, 0)
		},
		dirCopy: `refused`,
		managed: `out:.`,
		php:     `refused`,
	}, {
		name: "chmod 000 and 0600 files",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			write(t, filepath.Join(dir, "own.ini"), ini, 0o600)
		},
		root:    true,
		dirCopy: `a.ini "memory_limit = 128M\n"; own.ini "memory_limit = 128M\n"`,
		managed: `.; a.ini "memory_limit = 128M\n"; out:own.ini`,
		php:     `a.ini "memory_limit = 128M\n"; out:own.ini`,
	}, {
		name: "chmod 000 file",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			write(t, filepath.Join(dir, "locked.ini"), ini, 0)
		},
		dirCopy: `refused`,
		managed: `.; a.ini "memory_limit = 128M\n"; out:locked.ini`,
		php:     `a.ini "memory_limit = 128M\n"; out:locked.ini`,
	}, {
		name: "a file over the bound",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			testfs.Write(t, filepath.Join(dir, "big.ini"), comments(dirCopyBytes+64))
		},
		dirCopy: `a.ini "memory_limit = 128M\n"; cred:big.ini`,
		managed: `.; a.ini "memory_limit = 128M\n"; out:big.ini`,
		php:     `refused`,
	}, {
		name: "a sparse file",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "a.ini"), ini)
			testfs.Write(t, filepath.Join(dir, "sparse.ini"), "")
			if err := os.Truncate(filepath.Join(dir, "sparse.ini"), 1<<40); err != nil {
				t.Fatal(err)
			}
		},
		dirCopy: `a.ini "memory_limit = 128M\n"; cred:sparse.ini`,
		managed: `.; a.ini "memory_limit = 128M\n"; out:sparse.ini`,
		php:     `refused`,
	}, {
		name: "files over the bound together",
		build: func(t *testing.T, dir, _ string) {
			for _, name := range []string{"a.ini", "b.ini", "c.ini"} {
				testfs.Write(t, filepath.Join(dir, name), comments(dirCopyBytes/2-64*1024))
			}
			testfs.Write(t, filepath.Join(dir, "d.ini"), ini)
		},
		dirCopy: `refused`,
		managed: `.; a.ini 8323072 bytes; b.ini 8323072 bytes; d.ini "memory_limit = 128M\n"; out:c.ini`,
		php:     `a.ini ""; b.ini ""; c.ini ""; d.ini "memory_limit = 128M\n"`,
	}, {
		name:    "1999 entries",
		build:   many(1999),
		dirCopy: `1999 entries`,
		managed: `2000 entries`,
		php:     `1999 entries`,
	}, {
		name:    "2000 entries",
		build:   many(2000),
		dirCopy: `2000 entries`,
		managed: `out:.`,
		php:     `2000 entries`,
	}, {
		name:    "2001 entries",
		build:   many(2001),
		dirCopy: `refused`,
		managed: `out:.`,
		php:     `refused`,
	}, {
		name:    "7 levels",
		build:   deep(7),
		dirCopy: `d1/; d1/d2/; d1/d2/d3/; d1/d2/d3/d4/; d1/d2/d3/d4/d5/; d1/d2/d3/d4/d5/d6/; d1/d2/d3/d4/d5/d6/d7/; d1/d2/d3/d4/d5/d6/d7/a.ini "memory_limit = 128M\n"`,
		managed: `.; d1/; d1/d2/; d1/d2/d3/; d1/d2/d3/d4/; d1/d2/d3/d4/d5/; d1/d2/d3/d4/d5/d6/; d1/d2/d3/d4/d5/d6/d7/; d1/d2/d3/d4/d5/d6/d7/a.ini "memory_limit = 128M\n"`,
		php:     `d1/; d1/d2/; d1/d2/d3/; d1/d2/d3/d4/; d1/d2/d3/d4/d5/; d1/d2/d3/d4/d5/d6/; d1/d2/d3/d4/d5/d6/d7/; d1/d2/d3/d4/d5/d6/d7/a.ini "memory_limit = 128M\n"`,
	}, {
		name:    "8 levels",
		build:   deep(8),
		dirCopy: `refused`,
		managed: `out:.`,
		php:     `d1/; d1/d2/; d1/d2/d3/; d1/d2/d3/d4/; d1/d2/d3/d4/d5/; d1/d2/d3/d4/d5/d6/; d1/d2/d3/d4/d5/d6/d7/; d1/d2/d3/d4/d5/d6/d7/d8/; d1/d2/d3/d4/d5/d6/d7/d8/a.ini "memory_limit = 128M\n"`,
	}, {
		name:    "9 levels",
		build:   deep(9),
		dirCopy: `refused`,
		managed: `out:.`,
		php:     `refused`,
	}, {
		name: "hard links",
		build: func(t *testing.T, dir, outside string) {
			testfs.Write(t, filepath.Join(outside, "shared.ini"), "memory_limit = 2M\n")
			write(t, filepath.Join(outside, "own.ini"), "memory_limit = 3M\n", 0o600)
			os.MkdirAll(dir, 0o755)
			for _, name := range []string{"shared.ini", "own.ini"} {
				if err := os.Link(filepath.Join(outside, name), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
		},
		dirCopy: `own.ini "memory_limit = 3M\n"; shared.ini "memory_limit = 2M\n"`,
		managed: `.; shared.ini "memory_limit = 2M\n"; out:own.ini`,
		php:     `shared.ini "memory_limit = 2M\n"; out:own.ini`,
	}, {
		name: "control characters and bytes not UTF-8 in names",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "\x1b[2J\r\n.ini"), ini)
			testfs.Write(t, filepath.Join(dir, "\xff\xfe.ini"), ini)
			testfs.Tree(t, dir, "\x07link -> \x1b]0;x\x07")
			testfs.Write(t, filepath.Join(dir, "\x1b[31m", "x.txt"), "x\n")
		},
		dirCopy: `"\alink" -> "\x1b]0;x\a"; "\x1b[2J\r\n.ini" "memory_limit = 128M\n"; "\x1b[31m"/; "\x1b[31m/x.txt" "x\n"; "\xff\xfe.ini" "memory_limit = 128M\n"`,
		managed: `.; "\alink" -> "\x1b]0;x\a"; "\x1b[2J\r\n.ini" "memory_limit = 128M\n"; "\x1b[31m"/; "\x1b[31m/x.txt" "x\n"; "\xff\xfe.ini" "memory_limit = 128M\n"`,
		php:     `"\alink" -> "\x1b]0;x\a"; "\x1b[2J\r\n.ini" "memory_limit = 128M\n"; "\x1b[31m"/; "\xff\xfe.ini" "memory_limit = 128M\n"; out:"\x1b[31m/x.txt"`,
	}, {
		name: "git directories and files",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, ".git", "config"), "[remote \"o\"]\n\turl = https://u:tok@x/r\n")
			testfs.Write(t, filepath.Join(dir, "bare", "HEAD"), "ref: refs/heads/main\n")
			testfs.Write(t, filepath.Join(dir, "bare", "objects", "x"), "")
			testfs.Write(t, filepath.Join(dir, "wt", ".git"), "gitdir: /x\n")
			testfs.Tree(t, dir, "linked/.git -> /x")
		},
		dirCopy: `linked/; wt/`,
		managed: `.; linked/; linked/.git -> /x; wt/; wt/.git "gitdir: /x\n"; out:.git; out:bare`,
		php:     `.git/; bare/; bare/objects/; linked/; linked/.git -> /x; wt/; out:.git/config; out:bare/HEAD; out:bare/objects/x; out:wt/.git`,
	}, {
		name: "a git directory copied",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, "HEAD"), "ref: refs/heads/main\n")
			testfs.Write(t, filepath.Join(dir, "objects", "x"), "")
		},
		dirCopy: `refused`,
		managed: `out:.`,
		php:     `objects/; out:HEAD; out:objects/x`,
	}, {
		name: "credentials",
		build: func(t *testing.T, dir, _ string) {
			testfs.Write(t, filepath.Join(dir, ".env"), "TOKEN=x\n")
			testfs.Write(t, filepath.Join(dir, "token.json"), `{"t": "x"}`)
			testfs.Write(t, filepath.Join(dir, "pw.ini"), "mysqli.default_pw = hunter2\npassword = hunter2\n")
			write(t, filepath.Join(dir, "hook.sh"), "curl -H 'Authorization: Bearer abcdefghijklmnop0123456789' https://x.example\n", 0o755)
		},
		dirCopy: `cred:.env; cred:hook.sh; cred:pw.ini; cred:token.json`,
		managed: `.; out:.env; out:hook.sh; out:pw.ini; out:token.json`,
		php:     `pw.ini ""; out:.env; out:hook.sh; out:token.json`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, walker := range []struct {
				name string
				copy func(t *testing.T, base, outside string) string
				want string
			}{
				{"dirCopy", func(t *testing.T, base, outside string) string {
					dir := filepath.Join(base, "agents")
					tc.build(t, dir, outside)
					var got string
					read(t, tc.root, func() {
						c, creds, ok := dirCopy(dir)
						got = copySummary(c, ok, "", creds, dir+"/")
					})
					return got
				}, tc.dirCopy},
				{"managedClaudeCopy", func(t *testing.T, base, outside string) string {
					etc := base
					dir := filepath.Join(etc, "claude-code", ".claude")
					tc.build(t, filepath.Join(dir, "skills"), outside)
					var got string
					read(t, tc.root, func() {
						c, leftOut, ok := managedClaudeCopy(etc, dir)
						got = copySummary(c, ok, "skills", leftOut, "claude-code/.claude/skills/")
					})
					return got
				}, tc.managed},
				{"phpDirCopy", func(t *testing.T, base, outside string) string {
					etc := base
					dir := filepath.Join(etc, "php", "8.2", "cli")
					tc.build(t, dir, outside)
					var got string
					read(t, tc.root, func() {
						c, leftOut, ok := phpDirCopy(etc, dir)
						got = copySummary(c, ok, "", leftOut, "php/8.2/cli/")
					})
					return got
				}, tc.php},
			} {
				tmp := t.TempDir()
				outside := filepath.Join(tmp, "outside")
				os.MkdirAll(outside, 0o755)
				base := filepath.Join(tmp, "base")
				got := strings.ReplaceAll(walker.copy(t, base, outside), outside, "OUTSIDE")
				if got != walker.want {
					t.Errorf("%s:\n got %s\nwant %s", walker.name, got, walker.want)
				}
			}
		})
	}
}

// read runs f as an ordinary user reads files, or as root does.
func read(t *testing.T, root bool, f func()) {
	if root {
		if os.Geteuid() != 0 {
			t.Skip("needs root")
		}
		f()
		return
	}
	unprivileged.Do(t, f)
}

// copySummary says what a copy holds: each entry, by its path in top
// (the directory laid out, "." for top itself), a directory with a /, a
// file's content quoted (its size where large, * where executable), a
// link's target; then each path named (the copy's leftOut or creds,
// under prefix); or how many entries it holds where there are many;
// or that it was refused.
func copySummary(c mount.DirCopy, ok bool, top string, named []string, prefix string) string {
	if !ok {
		// What was read before is not used.
		return "refused"
	}
	quote := func(s string) string {
		if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || r == 0xfffd }) {
			return strconv.Quote(s)
		}
		return s
	}
	var parts []string
	for _, e := range c.Entries {
		rel := e.Rel
		if top != "" {
			if rel == top {
				rel = "."
			} else {
				rel = strings.TrimPrefix(rel, top+"/")
			}
		}
		s := quote(rel)
		switch {
		case e.Dir && rel == ".":
		case e.Dir:
			s += "/"
		case e.Link != "":
			s += " -> " + quote(e.Link)
		case len(e.Content) > 1024:
			s += fmt.Sprintf(" %d bytes", len(e.Content))
		default:
			if e.Executable {
				s += "*"
			}
			s += " " + strconv.Quote(e.Content)
		}
		parts = append(parts, s)
	}
	if len(parts) > 100 {
		parts = []string{fmt.Sprintf("%d entries", len(parts))}
	}
	kind := "out:"
	if top == "" && prefix != "php/8.2/cli/" {
		kind = "cred:"
	}
	var names []string
	for _, p := range named {
		switch rel := strings.TrimPrefix(p, prefix); {
		case p+"/" == prefix:
			names = append(names, kind+".")
		default:
			names = append(names, kind+quote(rel))
		}
	}
	slices.Sort(names)
	parts = append(parts, names...)
	return strings.Join(parts, "; ")
}

// TestTreeCopyLinkMadeDuringWalk: a directory of the copy replaced by a
// link once the walk has judged it (a concurrent session writing where
// ~/.claude's directory leads, in its project) is not followed: the
// copy is refused rather than holding what the link leads to.
func TestTreeCopyLinkMadeDuringWalk(t *testing.T) {
	root, outside := filepath.Join(t.TempDir(), "agents"), t.TempDir()
	testfs.Write(t, filepath.Join(outside, "a.md"), "SECRET\n")
	testfs.Write(t, filepath.Join(root, "sub", "a.md"), "harmless\n")
	des, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	w := treeCopy{DirCopy: mount.DirCopy{Path: root}, policy: copyPolicy{
		levels: dirCopyDepth,
		dir: func(full string, _ fs.FileInfo, _ []os.DirEntry, whole bool) copyFate {
			if !whole {
				return refuseCopy
			}
			// Judged, listed: now the link.
			if err := os.Rename(full, full+".was"); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, full); err != nil {
				t.Fatal(err)
			}
			return copyEntry
		},
		file: func(_ string, _ fs.FileInfo, read func() ([]byte, error)) (mount.DirCopyEntry, copyFate) {
			b, err := read()
			if err != nil {
				return mount.DirCopyEntry{}, refuseCopy
			}
			return mount.DirCopyEntry{Content: string(b)}, copyEntry
		},
	}}
	ok := w.walk("", des, 0)
	for _, e := range w.Entries {
		if strings.Contains(e.Content, "SECRET") {
			t.Errorf("the copy holds %s, read through a link made during the walk", e.Rel)
		}
	}
	if ok {
		t.Errorf("the copy was not refused: %+v", w.Entries)
	}
}
