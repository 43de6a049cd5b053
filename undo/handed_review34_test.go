package undo

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/audit"
	"golang.org/x/sys/unix"
)

// TestRecordTakesAuditStatuses: the exit's two walks, the audit's and
// the record's, each handed the statuses of directories the other read
// beside it (through the checkout's Reopener), find what each finds
// reading every one itself, whichever reads first, also where a
// directory's status changes between the two walks: one the session
// closed, given back by the first walk, and a stand-in removed from one.
// lib/sub holds only committed files, and is taken whole by its status
// alone: from the last exit's record by the record's walk, from the
// start's by the audit's.
func TestRecordTakesAuditStatuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		attack func(checkout string)
	}{
		{"nothing", func(string) {}},
		{"added to committed files", func(d string) {
			os.WriteFile(filepath.Join(d, "lib", "sub", "run.sh"), []byte("planted\n"), 0o755)
		}},
		{"committed files closed", func(d string) {
			os.WriteFile(filepath.Join(d, "lib", "sub", "run.sh"), []byte("planted\n"), 0o755)
			os.Chmod(filepath.Join(d, "lib", "sub"), 0)
		}},
		{"committed files closed, unchanged", func(d string) {
			os.Chmod(filepath.Join(d, "lib", "sub"), 0o500)
		}},
		{"committed file rewritten, directory closed", func(d string) {
			os.WriteFile(filepath.Join(d, "lib", "sub", "l3.go"), []byte("planted\n"), 0o755)
			os.Chmod(filepath.Join(d, "lib", "sub"), 0o500)
		}},
	} {
		for _, standIn := range []string{"lib/.vscode", "lib/sub/.vscode", "a/.envrc"} {
			for _, auditFirst := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s, stand-in %s, audit first %v", c.name, standIn, auditFirst), func(t *testing.T) {
					walk := func(handed bool) (treeSeen, audit.Report) {
						checkout, record, compared := recordedTree(t, true)
						t.Cleanup(func() { os.Chmod(filepath.Join(checkout, "lib", "sub"), 0o755) })
						// The launch's stand-in, closed.
						path := filepath.Join(checkout, standIn)
						if err := os.Mkdir(path, 0o500); err != nil {
							t.Fatal(err)
						}
						since := after(t, t.TempDir(), checkout)
						start := audit.Take(checkout, since, nil, nil)
						c.attack(checkout)
						// Alone, each walk has a Reopener of its own.
						r, other := audit.NewReopener(checkout, since, start, []string{path}), audit.NewReopener(checkout, since, start, []string{path})
						if handed {
							other = r
						}
						var report audit.Report
						scan := func() {
							report = audit.ScanWalked(checkout, since, map[string]bool{path: true}, start, nil, nil, other)
						}
						if auditFirst {
							scan()
						}
						// The stand-ins go while the walks read.
						if err := os.Remove(path); err != nil {
							t.Fatal(err)
						}
						now, err := walkCheckout(checkout, []string{path}, since, r, compared, record)
						if err != nil {
							t.Fatal(err)
						}
						if !auditFirst {
							scan()
						}
						var st unix.Stat_t
						if handed && c.name == "nothing" && standIn == "a/.envrc" && !r.Status("lib/sub", &st) {
							t.Error("no status of lib/sub was handed")
						}
						rel := func(p []string) []string {
							var out []string
							for _, q := range p {
								out = append(out, strings.TrimPrefix(q, checkout))
							}
							return out
						}
						report.Found, report.NotExamined = rel(report.Found), rel(report.NotExamined)
						return seen(now), report
					}
					aloneTree, aloneReport := walk(false)
					handedTree, handedReport := walk(true)
					if !reflect.DeepEqual(aloneTree, handedTree) {
						t.Errorf("handed the audit's statuses the record's walk found\n%+v\nreading each itself\n%+v", handedTree, aloneTree)
					}
					if !slices.Equal(aloneReport.Found, handedReport.Found) || !slices.Equal(aloneReport.NotExamined, handedReport.NotExamined) {
						t.Errorf("handed the record's statuses the audit found %q (not examined %q)\nreading each itself %q (%q)", handedReport.Found, handedReport.NotExamined, aloneReport.Found, aloneReport.NotExamined)
					}
				})
			}
		}
	}
}

// treeSeen is what a walk found, apart from times and inodes.
type treeSeen struct {
	Recent, Gone, Unstatted, Skip []string
	Dirs                          map[string][]string
	Unread                        []unreadDir
	Cut                           bool
}

func seen(t tree) treeSeen {
	s := treeSeen{Recent: slices.Sorted(maps.Keys(t.recent)), Gone: slices.Sorted(maps.Keys(t.gone)), Unstatted: t.unstatted, Skip: t.skip, Dirs: map[string][]string{}, Unread: t.unread, Cut: t.cut}
	for d, names := range t.dirs {
		s.Dirs[d] = slices.Sorted(maps.Keys(names))
	}
	return s
}
