package guard

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"golang.org/x/sys/unix"
)

// TestNoOpStandIn: the stand-in git reads as nothing is created whole, with
// the content that makes it a no-op, and is recognised as claudebox's only
// while it is exactly that.
func TestNoOpStandIn(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"commondir", "config.worktree"} {
		path := filepath.Join(dir, name)
		m := mount.Guard{Path: path, NoOp: true}.Mount()
		if err := CreatePlaceholder(m); err != nil {
			t.Fatal(err)
		}
		if !instance.IsPlaceholder(path) {
			t.Errorf("%s: not recognised as a stand-in", name)
		}
		if b, _ := os.ReadFile(path); !bytes.Equal(b, instance.StandInContent(path)) {
			t.Errorf("%s: content %q", name, b)
		}
		if err := CreatePlaceholder(m); !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: a second creation: %v, want it to exist", name, err)
		}
		os.Chmod(path, 0o644)
		os.WriteFile(path, []byte("../..\n"), 0o644)
		os.Chmod(path, 0o444)
		if instance.IsPlaceholder(path) {
			t.Errorf("%s: a file of other content taken for a stand-in", name)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestStandInParentSwapped: the directory a stand-in is made in may be
// one a sandbox writes, which replaces it (or one above it) with a link to
// a directory of the user's between the probe's look and the creation.
// No stand-in, nor anything of its making, lands in the link's target;
// the creation fails, naming the link.
func TestStandInParentSwapped(t *testing.T) {
	base := t.TempDir()
	user := filepath.Join(base, "user")
	os.MkdirAll(filepath.Join(user, "sub"), 0o700)
	for _, kind := range []mount.Kind{mount.Tmpfs, mount.RoBind, mount.RoBindData} {
		for _, swapped := range []string{"proj/sub", "proj"} {
			proj := filepath.Join(base, "proj")
			os.RemoveAll(proj)
			os.MkdirAll(filepath.Join(proj, "sub"), 0o755)
			dest := filepath.Join(proj, "sub", ".mcp.json")
			// The swap, after the look.
			victim := user
			if swapped == "proj" {
				victim = filepath.Join(user, "sub")
				os.RemoveAll(proj)
				os.Symlink(user, proj)
			} else {
				os.RemoveAll(filepath.Join(proj, "sub"))
				os.Symlink(user, filepath.Join(proj, "sub"))
			}
			err := CreatePlaceholder(mount.Mount{Kind: kind, Dest: dest})
			if err == nil || !strings.Contains(err.Error(), "link") {
				t.Errorf("%s, %s swapped for a link: %v, want a refusal naming the link", kind, swapped, err)
			}
			if entries, _ := os.ReadDir(victim); len(entries) > 0 && !(victim == user && len(entries) == 1 && entries[0].Name() == "sub") {
				t.Errorf("%s, %s swapped for a link: the user's directory %s got %v", kind, swapped, victim, entries)
			}
			os.RemoveAll(proj)
		}
	}
}

// TestStandInKinds: each kind of stand-in is made as the host recognises
// it: a directory with the stand-in's mode, a socket, a no-op file whole.
func TestStandInKinds(t *testing.T) {
	dir := t.TempDir()
	for kind, want := range map[mount.Kind]os.FileMode{mount.Tmpfs: os.ModeDir | instance.StandInDirMode, mount.RoBindData: os.ModeSocket, mount.RoBind: instance.StandInMode} {
		path := filepath.Join(dir, strings.TrimPrefix(string(kind), "--"))
		if err := CreatePlaceholder(mount.Mount{Kind: kind, Dest: path}); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&^0o222 != want&^0o222 || !instance.IsPlaceholder(path) {
			t.Errorf("%s: %v (%v), want %v, a stand-in", kind, fi.Mode(), err, want)
		}
	}
}

// TestConfigBesideStandIn: a launch of the project beside makes the
// stand-in of a git configuration file the probe reads (.gitmodules, a
// socket of mode 000) while this one reads it: it sets nothing, and never
// refuses the launch.
func TestConfigBesideStandIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gitmodules")
	for i := range 2000 {
		os.Remove(path)
		made := make(chan struct{})
		go func() {
			defer close(made)
			unix.Mknod(path, unix.S_IFSOCK, 0)
		}()
		g := &guardProbe{}
		g.config(path)
		<-made
		if len(g.redirects) > 0 {
			t.Fatalf("try %d: %v", i, g.redirects)
		}
	}
}
