package audit

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExecLinesBounded: a todo list was read whole, 16 MiB, and copied
// again into a string, by each walker at once (a sandbox can leave one in
// every git directory it makes). It is now read a part at a time, one
// with a hole is judged unread, and one too large to tell runs a command.
func TestExecLinesBounded(t *testing.T) {
	dir := t.TempDir()
	pick := strings.Repeat("pick 1234567 a commit's subject\n", (8<<20)/32)
	for _, tc := range []struct {
		name, content string
		sparse        int64
		want          bool
	}{
		{"picks alone", pick, 0, false},
		{"an exec at the end", pick + "  exec make\n", 0, true},
		{"x at the start", "x make\n" + pick, 0, true},
		{"an exec inside a line", "pick 1 exec\n", 0, false},
		{"a long line's exec", strings.Repeat(" ", 1<<20) + "exec make\n", 0, true},
		{"a line longer than read", "pick " + strings.Repeat("a", 2<<20) + "\n", 0, false},
		{"a hole", "pick 1\n", 16 << 20, true},
		{"over the limit", pick + pick + pick, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "todo")
			must(t, os.WriteFile(path, []byte(tc.content), 0o644))
			if tc.sparse > 0 {
				must(t, os.Truncate(path, tc.sparse))
			}
			fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			must(t, err)
			defer unix.Close(fd)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := execLines(fd, "todo")
			runtime.ReadMemStats(&after)
			if got != tc.want {
				t.Errorf("execLines = %v, want %v", got, tc.want)
			}
			if held := after.TotalAlloc - before.TotalAlloc; held > 1<<20 {
				t.Errorf("execLines allocated %d bytes for a todo of %d", held, len(tc.content))
			}
		})
	}
}

// TestTodoStateJudgedByName: git rebase --continue and git cherry-pick
// --continue run the merge strategy their state names
// (rebase-merge/strategy, sequencer/opts' strategy) as a program, git
// merge-<strategy>, a path from the work tree's top where it holds a
// slash (x/evil runs git-merge-x/evil), and git am --continue passes
// rebase-apply/apply-opt to git apply. The audit judged the todo lists
// and the autostash there and passed the rest: what is not known to be
// data is now a finding, in a nested repository's git directory too.
func TestTodoStateJudgedByName(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "sub/.git/HEAD"))
	write(t, filepath.Join(root, "sub/.git/modules/m/HEAD")) // a submodule the session did not make
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	state := map[string]bool{
		"sub/.git/rebase-merge/strategy":                  true,
		"sub/.git/rebase-merge/strategy_opts":             true,
		"sub/.git/rebase-merge/gpg_sign_opt":              true,
		"sub/.git/rebase-merge/refs-to-update":            true,
		"sub/.git/rebase-merge/a-future-name":             true,
		"sub/.git/rebase-merge/sub/x":                     true,
		"sub/.git/sequencer/opts":                         true,
		"sub/.git/rebase-apply/apply-opt":                 true,
		"sub/.git/modules/m/sequencer/opts":               true,
		"sub/.git/rebase-merge/head-name":                 false,
		"sub/.git/rebase-merge/onto":                      false,
		"sub/.git/rebase-merge/orig-head":                 false,
		"sub/.git/rebase-merge/done":                      false,
		"sub/.git/rebase-merge/msgnum":                    false,
		"sub/.git/rebase-merge/end":                       false,
		"sub/.git/rebase-merge/interactive":               false,
		"sub/.git/rebase-merge/message":                   false,
		"sub/.git/rebase-merge/author-script":             false,
		"sub/.git/rebase-merge/stopped-sha":               false,
		"sub/.git/rebase-merge/amend":                     false,
		"sub/.git/rebase-merge/git-rebase-todo":           false,
		"sub/.git/rebase-merge/git-rebase-todo.backup":    false,
		"sub/.git/rebase-merge/no-reschedule-failed-exec": false,
		"sub/.git/sequencer/head":                         false,
		"sub/.git/sequencer/abort-safety":                 false,
		"sub/.git/rebase-apply/0001":                      false,
		"sub/.git/rebase-apply/next":                      false,
		"sub/.git/rebase-apply/last":                      false,
		"sub/.git/rebase-apply/final-commit":              false,
	}
	for p := range state {
		write(t, filepath.Join(root, p))
	}
	must(t, os.WriteFile(filepath.Join(root, "sub/.git/rebase-merge/git-rebase-todo"), []byte("pick 1234 x\n"), 0o644))
	for _, p := range []string{"sub/.git/modules/m/HEAD", "sub/.git/modules/m/objects/info/x"} {
		write(t, filepath.Join(root, p))
	}
	// What every git am writes: its options for git apply, none; the
	// index of its three-way merge.
	for _, p := range []string{"sub/.git/modules/m/rebase-apply/apply-opt", "sub/.git/modules/m/rebase-apply/patch-merge-index"} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), nil, 0o644))
		state[p] = false
	}
	r := Scan(root, since, nil, start, nil)
	for p, finding := range state {
		if got := slices.Contains(r.Found, filepath.Join(root, p)); got != finding {
			t.Errorf("%s: found %v, want %v", p, got, finding)
		}
	}
}
