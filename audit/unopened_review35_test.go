package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestUnopenedDirectoriesJudged: a directory the start's record lists as
// holding nothing to judge (a large tree's leaves, only sources) is not
// opened at the exit while its status is the start's: one status, looked
// up once in the record. What the session hides in one, and then sets the
// directory's times back (touch -d), is still found: a name made there by
// writing, by a rename from a directory of the session's, or as a hard
// link to a file of the user's changes the directory's status change
// time, which no one sets back; a directory of the session's put in the
// place of one is another inode. Each with the statuses read by the audit
// alone and handed through a Reopener, as at a session's end.
func TestUnopenedDirectoriesJudged(t *testing.T) {
	for _, c := range []struct {
		name   string
		attack func(t *testing.T, root string)
		found  []string
	}{
		{"nothing", func(*testing.T, string) {}, nil},
		{"planted, times set back", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "lib", "a", ".envrc"))
		}, []string{"lib/a/.envrc"}},
		{"renamed in from the session's directory", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "tmp", ".envrc"))
			must(t, os.Rename(filepath.Join(root, "tmp", ".envrc"), filepath.Join(root, "lib", "a", ".envrc")))
		}, []string{"lib/a/.envrc"}},
		{"hard link to a file of the user's", func(t *testing.T, root string) {
			must(t, os.Link(filepath.Join(root, "lib", "b", "f0.go"), filepath.Join(root, "lib", "a", ".envrc")))
		}, []string{"lib/a/.envrc"}},
		{"the session's directory in its place", func(t *testing.T, root string) {
			write(t, filepath.Join(root, "tmp", ".envrc"))
			must(t, os.Rename(filepath.Join(root, "lib", "a"), filepath.Join(root, "old")))
			must(t, os.Rename(filepath.Join(root, "tmp"), filepath.Join(root, "lib", "a")))
		}, []string{"lib/a/.envrc"}},
	} {
		for _, handed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, handed %v", c.name, handed), func(t *testing.T) {
				root := t.TempDir()
				for _, d := range []string{"a", "b", "c"} {
					for _, f := range []string{"f0.go", "f1.go"} {
						write(t, filepath.Join(root, "lib", d, f))
					}
				}
				// The last exit's record, then the session's start's,
				// built on it, as a launch takes it.
				base, err := Decode(Take(root, mark(t, t.TempDir()), nil, nil).Encode())
				if err != nil {
					t.Fatal(err)
				}
				since := mark(t, t.TempDir())
				start := Take(root, since, nil, base)
				if l, ok := start.files.listing(filepath.Join("lib", "a")); !ok || l.entries != "" {
					t.Fatalf("setup: the start's record lists lib/a as %+v (%v), want a listing of nothing to judge", l, ok)
				}
				time.Sleep(20 * time.Millisecond)
				c.attack(t, root)
				// touch -d: each directory's times from before the start.
				old := since.Add(-time.Hour)
				for _, d := range []string{"lib", "lib/a", "lib/b", "lib/c"} {
					must(t, os.Chtimes(filepath.Join(root, d), old, old))
				}
				var r Report
				if handed {
					reopen := NewReopener(root, since, start, nil)
					r = ScanWalked(root, since, nil, start, nil, nil, reopen)
				} else {
					r = Scan(root, since, nil, start, nil)
				}
				var got []string
				for _, f := range r.Found {
					rel, _ := filepath.Rel(root, f)
					got = append(got, rel)
				}
				if !slices.Equal(got, c.found) || r.NotExamined != nil {
					t.Errorf("found %q (not examined %q), want %q", got, r.NotExamined, c.found)
				}
			})
		}
	}
}
