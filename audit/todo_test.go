package audit

import (
	"os"
	"path/filepath"
	"runtime"
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
