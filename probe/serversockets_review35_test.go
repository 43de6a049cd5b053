package probe

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The sockets a host server listens on in the project are those
// /proc/net/unix lists as listening at a path in the roots that is a
// socket now (an absolute path, one with a space, or one relative to the
// checkout, through a link in the project too); not an abstract name, one
// not listening, one outside the roots or a file that is no socket.
func TestServerSockets(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	checkout := filepath.Join(root, "proj")
	listen := func(path string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
	listen(filepath.Join(checkout, ".run", "tmux.sock"))
	listen(filepath.Join(checkout, "db", "my sock"))
	listen(filepath.Join(checkout, "rel", "srv.sock"))
	listen(filepath.Join(checkout, "idle.sock"))
	listen(filepath.Join(root, "outside.sock"))
	os.WriteFile(filepath.Join(checkout, "file.sock"), nil, 0o644)
	os.Symlink("rel", filepath.Join(checkout, "via"))
	list := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01    11 " + filepath.Join(checkout, ".run", "tmux.sock") + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 12 " + filepath.Join(checkout, "db", "my sock") + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 13 via/srv.sock\n" +
		"0000000000000000: 00000003 00000000 00000000 0001 03 14 " + filepath.Join(checkout, "idle.sock") + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 15 " + filepath.Join(root, "outside.sock") + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 16 " + filepath.Join(checkout, "file.sock") + "\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 17 @/tmp/.X11-unix/X0\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 18\n"
	got := serverSockets([]byte(list), checkout, []string{checkout})
	want := []string{filepath.Join(checkout, ".run", "tmux.sock"), filepath.Join(checkout, "db", "my sock"), filepath.Join(checkout, "rel", "srv.sock")}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// The kernel's own list names the sockets this test listens on.
	real, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		t.Skip(err)
	}
	if got := serverSockets(real, checkout, []string{checkout}); !slices.Contains(got, filepath.Join(checkout, "db", "my sock")) || slices.Contains(got, filepath.Join(checkout, "file.sock")) {
		t.Errorf("from /proc/net/unix: %q", got)
	}
}

// BenchmarkServerSockets is the launch's look at the kernel's list of
// sockets (this host's, and a desktop's 500 listening in /run and /tmp),
// for a project with none.
func BenchmarkServerSockets(b *testing.B) {
	checkout := b.TempDir()
	b.Run("host", func(b *testing.B) {
		for range b.N {
			list, err := os.ReadFile("/proc/net/unix")
			if err != nil {
				b.Skip(err)
			}
			serverSockets(list, checkout, []string{checkout})
		}
	})
	b.Run("desktop", func(b *testing.B) {
		list := "Num       RefCount Protocol Flags    Type St Inode Path\n"
		for i := range 250 {
			list += fmt.Sprintf("0000000000000000: 00000002 00000000 00010000 0001 01 %d /run/user/1000/app%d/bus\n", 1000+i, i)
			list += fmt.Sprintf("0000000000000000: 00000002 00000000 00010000 0001 01 %d /tmp/.X11-unix/X%d\n", 2000+i, i)
		}
		for range b.N {
			serverSockets([]byte(list), checkout, []string{checkout})
		}
	})
}
