// Package idle gives back what a long-running process's start used and
// its waiting does not need.
package idle

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// After is how long a process that then only waits (the supervisor, the
// guard watcher, the relay) runs before it calls Release: soon enough that
// their resident memory together is small from the session's first second
// on, under load too; a session that ends sooner does not pay for it.
const After = 300 * time.Millisecond

// Release returns to the kernel the heap the process no longer uses, and
// takes out of its resident set the pages of the files it maps read-only
// (claudebox's binary, libc) that its start touched: they stay in the
// page cache, shared with every process mapping them, and come back on
// their next use. A mapping holding a page the process wrote (a copy the
// loader relocated) is left as it is: dropping it would lose the write.
func Release() {
	debug.FreeOSMemory()
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return
	}
	var start, end uint64
	clean := false
	drop := func() {
		if clean {
			unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4 {
			drop()
			lo, hi, _ := strings.Cut(f[0], "-")
			var err1, err2 error
			start, err1 = strconv.ParseUint(lo, 16, 64)
			end, err2 = strconv.ParseUint(hi, 16, 64)
			// A file's mapping (an inode, a path), never written.
			clean = err1 == nil && err2 == nil && f[1][1] != 'w' && f[4] != "0" && len(f) >= 6 && strings.HasPrefix(f[5], "/")
			continue
		}
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok && strings.TrimSpace(v) != "0 kB" {
			clean = false
		}
	}
	drop()
}
