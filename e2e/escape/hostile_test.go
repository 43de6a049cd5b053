package escape

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/gc"
	"github.com/claudebox/claudebox/instance"
)

// The instance directory is the sandbox's ~/.claude/projects: whatever the
// sandbox leaves there, every claudebox command on the host must finish,
// say what it found, and touch nothing outside the instance. Each bad state
// below is planted as the sandbox would leave it (by the unprivileged user,
// who owns the instance) and each command is run against it, as that user:
// root would read through mode 000 and hide half of these.

// hostileState plants one bad state. inst is the instance of the project
// the commands run in; decoy is a directory outside every instance that a
// symlink points at; projects is ~/.claudebox/projects; gone is a project
// root that no longer exists, whose instance is there.
type hostileState func(t *testing.T, inst, decoy, projects, gone string)

var hostileStates = map[string]hostileState{
	"claude.json FIFO": func(t *testing.T, inst, _, _, _ string) {
		mkfifo(t, clear(t, inst, instance.ClaudeJSONFile))
	},
	"claude.json 1 TiB sparse": func(t *testing.T, inst, _, _, _ string) {
		f, err := os.Create(clear(t, inst, instance.ClaudeJSONFile))
		check(t, err)
		check(t, f.Truncate(1<<40))
		f.Close()
	},
	"claude.json socket": func(t *testing.T, inst, _, _, _ string) {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		check(t, err)
		defer unix.Close(fd)
		check(t, unix.Bind(fd, &unix.SockaddrUnix{Name: clear(t, inst, instance.ClaudeJSONFile)}))
	},
	"claude.json device node": func(t *testing.T, inst, _, _, _ string) {
		// The sandbox cannot make one; a host that had one there must cope.
		if err := unix.Mknod(clear(t, inst, instance.ClaudeJSONFile), unix.S_IFCHR|0o600, int(unix.Mkdev(1, 3))); err != nil {
			t.Skipf("mknod needs root here: %v", err)
		}
	},
	"claude.json symlink": func(t *testing.T, inst, decoy, _, _ string) {
		check(t, os.Symlink(filepath.Join(decoy, "secret"), clear(t, inst, instance.ClaudeJSONFile)))
	},
	"history directory": func(t *testing.T, inst, _, _, _ string) {
		check(t, os.Mkdir(clear(t, inst, "history.jsonl"), 0o700))
	},
	"history mode 000": func(t *testing.T, inst, _, _, _ string) {
		check(t, os.WriteFile(clear(t, inst, "history.jsonl"), []byte("{}\n"), 0))
	},
	"instance mode 000": func(t *testing.T, inst, _, _, _ string) {
		check(t, os.Chmod(inst, 0))
	},
	"directory mode 000": func(t *testing.T, inst, _, _, gone string) {
		// In the gone project's instance too, which --gc removes.
		for _, d := range []string{inst, instance.Dir(filepath.Dir(filepath.Dir(inst)), gone)} {
			locked := filepath.Join(d, "-locked", "deeper")
			check(t, os.MkdirAll(locked, 0o700))
			check(t, os.WriteFile(filepath.Join(locked, "f.jsonl"), []byte("{}\n"), 0o600))
			check(t, os.Chmod(locked, 0))
			check(t, os.Chmod(filepath.Dir(locked), 0))
		}
	},
	"symlinked session directory": func(t *testing.T, inst, decoy, _, gone string) {
		// ln -s ~/.local/bin ~/.claude/projects/zz, and a zz/git in the
		// instance a merge brings in.
		check(t, os.Symlink(decoy, filepath.Join(inst, "zz")))
		old := filepath.Join(instance.Dir(filepath.Dir(filepath.Dir(inst)), gone), "zz")
		check(t, os.MkdirAll(old, 0o700))
		check(t, os.WriteFile(filepath.Join(old, "git"), []byte("#!/bin/sh\necho pwned\n"), 0o755))
	},
	"interrupted --gc": func(t *testing.T, _, _, projects, _ string) {
		locked := filepath.Join(projects, ".gc-0123456789abcdef", "-x", "locked")
		check(t, os.MkdirAll(locked, 0o700))
		check(t, os.WriteFile(filepath.Join(locked, "f"), nil, 0o600))
		check(t, os.Chmod(locked, 0))
		check(t, os.Chmod(filepath.Dir(locked), 0))
	},
	"interrupted --move": func(t *testing.T, _, _, projects, gone string) {
		// An instance renamed to its new hash whose project-root still
		// names the old root.
		moved := filepath.Join(projects, instance.Hash(gone+"-moved"))
		check(t, os.MkdirAll(moved, 0o700))
		check(t, os.WriteFile(filepath.Join(moved, instance.RootFile), []byte(gone+"\n"), 0o600))
	},
}

// hostileCommands are the commands run against each state: the args, and
// whether they run in the project (else in the home directory).
var hostileCommands = []struct {
	name      string
	args      []string
	inProject bool
}{
	{"launch", []string{"--shell", "-c", "true"}, true},
	{"--dry-run", []string{"--dry-run"}, true},
	{"--check", []string{"--check"}, true},
	{"--gc", []string{"--gc"}, false},
	{"--list", []string{"--list"}, false},
	{"--move --merge", []string{"--move", "GONE", "--merge"}, true},
}

func TestHostileInstance(t *testing.T) {
	harness.RequireClaude(t)
	for state, plant := range hostileStates {
		for _, c := range hostileCommands {
			t.Run(state+"/"+c.name, func(t *testing.T) {
				h := harness.NewHost(t)
				proj := filepath.Join(h.Home, "code", "proj")
				h.Write(filepath.Join(proj, "README"), "proj\n")
				h.Write(filepath.Join(h.Home, ".claude.json"), `{"theme": "dark"}`+"\n")
				decoy := filepath.Join(h.Home, ".local", "bin")
				h.Write(filepath.Join(decoy, "secret"), "SECRET\n")
				gone := filepath.Join(h.Home, "code", "gone")
				state := filepath.Join(h.Home, ".claudebox")
				projects := gc.ProjectsDir(state)
				// A launch makes the instance as it is before the sandbox
				// runs; the gone project's instance holds one session.
				h.Run(proj, nil, "claudebox", "--shell", "-c", "true")
				inst := instance.Dir(state, proj)
				// The launch's placeholder cleanup holds the lock a moment.
				lock, err := instance.OpenLock(inst)
				check(t, err)
				check(t, instance.LockIdle(lock))
				lock.Close()
				goneInst := instance.Dir(state, gone)
				sessions := filepath.Join(goneInst, gc.ClaudeProjectDir(gone))
				check(t, os.MkdirAll(sessions, 0o700))
				check(t, os.WriteFile(filepath.Join(goneInst, instance.RootFile), []byte(gone+"\n"), 0o600))
				check(t, os.WriteFile(filepath.Join(sessions, "s.jsonl"), []byte(fmt.Sprintf(`{"cwd":%q}`+"\n", gone)), 0o600))
				h.Chown()
				plant(t, inst, decoy, projects, gone)
				if h.UID >= 0 {
					lchownTree(state, h.UID, h.GID)
				}
				outside := outsideState(t, h.Home, state, proj)

				dir := h.Home
				if c.inProject {
					dir = proj
				}
				args := make([]string, len(c.args))
				for i, a := range c.args {
					args[i] = strings.ReplaceAll(a, "GONE", gone)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				// A hang must fail the test, not stall it.
				plain := h.Command(dir, []string{"ANTHROPIC_API_KEY=sk-test"}, "claudebox", args...)
				cmd := exec.CommandContext(ctx, plain.Path, plain.Args[1:]...)
				cmd.Dir, cmd.Env, cmd.WaitDelay = plain.Dir, plain.Env, time.Second
				start := time.Now()
				out, err := cmd.CombinedOutput()
				if ctx.Err() != nil {
					t.Fatalf("claudebox %s hung (killed after %v):\n%s", strings.Join(args, " "), time.Since(start).Round(time.Second), out)
				}
				if err != nil && !(c.name == "--move --merge" && strings.Contains(string(out), "claudebox: ")) {
					t.Errorf("claudebox %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				if strings.Contains(string(out), "panic") {
					t.Errorf("claudebox %s panicked:\n%s", strings.Join(args, " "), out)
				}
				if after := outsideState(t, h.Home, state, proj); after != outside {
					t.Errorf("claudebox %s changed files outside the instances:\nbefore:\n%s\nafter:\n%s\noutput:\n%s", strings.Join(args, " "), outside, after, out)
				}
				t.Logf("claudebox %s (%v):\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), out)
				// Let the test's cleanup remove what the sandbox locked.
				filepath.WalkDir(h.Base, func(p string, d fs.DirEntry, err error) error {
					if d != nil && d.IsDir() {
						os.Chmod(p, 0o755)
					}
					return nil
				})
			})
		}
	}
}

// clear removes name from the instance, for the sandbox's replacement,
// and returns its path.
func clear(t *testing.T, inst, name string) string {
	t.Helper()
	check(t, os.RemoveAll(filepath.Join(inst, name)))
	return filepath.Join(inst, name)
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	check(t, unix.Mkfifo(path, 0o600))
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lchownTree gives a tree to uid without following links or needing read
// permission on the entries (root walks mode 000 directories).
func lchownTree(root string, uid, gid int) {
	filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error {
		os.Lchown(p, uid, gid)
		return nil
	})
}

// outsideState describes every file under home but claudebox's state and the
// project (which a launch binds and guards): path, type, mode and a hash of
// the content.
func outsideState(t *testing.T, home, state, proj string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(home, func(p string, _ fs.DirEntry, _ error) error {
		if p == state || p == proj {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return nil
		}
		fmt.Fprintf(&b, "%s %v", p, fi.Mode())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %x", sha256.Sum256(c))
		}
		b.WriteString("\n")
		return nil
	})
	return b.String()
}
