// Package unprivileged lets a test see files as an ordinary user does,
// also when it runs as root (as CI does): root reads, lists and changes
// what the sandbox made mode 000, so a test of what claudebox does about
// such a file would pass whether claudebox handled it or not.
package unprivileged

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// bypass are the capabilities that let root ignore a file's permissions and
// owner.
var bypass = []uint{unix.CAP_DAC_OVERRIDE, unix.CAP_DAC_READ_SEARCH, unix.CAP_FOWNER}

// Do runs f on a thread of its own without the capabilities that bypass
// file permissions, and returns when f does. Capabilities are per thread:
// the thread is locked to f and ends with it, so no other goroutine ever
// runs on it, and the rest of the test keeps its privileges. f must not
// start goroutines that touch files, and reports failures with t.Error
// (t.Fatal belongs to the test's own goroutine).
func Do(t testing.TB, f func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			done <- err
			return
		}
		for _, c := range bypass {
			data[c/32].Effective &^= 1 << (c % 32)
		}
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			done <- err
			return
		}
		f()
	}()
	if err := <-done; err != nil {
		t.Fatalf("dropping capabilities: %v", err)
	}
}
