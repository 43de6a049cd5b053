package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// BenchmarkGitConfigCopyRestored measures, for renames back to back over a
// repository's .git/config as the host's git config makes them, the time
// from the host's rename to a guard standing on the path inside again:
// where the watcher stands a copy of what git needs made from the host's
// new file (read, filtered, written in its own tmpfs, bound), the window in
// which the sandbox reads the host's file as written.
func BenchmarkGitConfigCopyRestored(b *testing.B) {
	h := harness.NewHost(b)
	repo := filepath.Join(h.Home, "code", "repo")
	h.GitRepo(repo)
	config := filepath.Join(repo, ".git", "config")
	s := h.Command(repo, nil, "claudebox", "--shell", "-c", "touch started; exec sleep 600")
	var out strings.Builder
	s.Stdout, s.Stderr = &out, &out
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { s.Process.Kill(); s.Wait() }()
	var mountinfo string
	for deadline := time.Now().Add(10 * time.Second); mountinfo == ""; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("the session did not start")
		}
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if c, _ := os.ReadFile(p); string(c) == "sleep\x00600\x00" {
				mountinfo = filepath.Join(filepath.Dir(p), "mountinfo")
			}
		}
	}
	guarded := func() bool {
		m, _ := os.ReadFile(mountinfo)
		return strings.Contains(string(m), " "+config+" ")
	}
	for !guarded() {
		time.Sleep(time.Millisecond)
	}
	was, err := os.ReadFile(config)
	if err != nil {
		b.Fatal(err)
	}
	lock := config + ".lock"
	var window time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		content := string(was) + "[remote \"x\"]\n\turl = https://u:TOKEN@host/x.git\n"
		if err := os.WriteFile(lock, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		// The user's own file, as their git writes it: the watcher holds
		// only the user's files against writers.
		if h.UID >= 0 {
			os.Lchown(lock, h.UID, h.GID)
		}
		if err := os.Rename(lock, config); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for !guarded() {
			if time.Since(start) > 5*time.Second {
				b.Fatalf("the guard did not come back after %d renames: %s", i, out.String())
			}
		}
		window += time.Since(start)
	}
	b.ReportMetric(float64(window.Nanoseconds())/float64(b.N), "ns/window")
}
