package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// BenchmarkGoBuildSession is a `go build` of a small program (net/http, so
// a few hundred packages of the standard library) in a new session, as
// the user runs it: cold, with the project's caches emptied (every session
// before they were kept); warm, the caches kept from the session before;
// and on the host with its own warm cache, the mark to meet; empty is a
// session that runs nothing, what warm pays beyond the build. Each build
// links a new binary, as a session's does (its /tmp is new): go build
// does not cache what it links, and a host build whose output is already
// up to date skips the link (about 0.6 s of the 0.7 s here), which made
// the host look four times faster than it is.
func BenchmarkGoBuildSession(b *testing.B) {
	goDir := filepath.Dir(harness.RequireTool(b, "go", "install Go"))
	h := harness.NewHost(b)
	proj := filepath.Join(h.Home, "code", "hello")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, "go.mod"), "module example.com/hello\n\ngo 1.22\n")
	h.Write(filepath.Join(proj, "main.go"), "package main\n\nimport \"net/http\"\n\nfunc main() { http.ListenAndServe(\":0\", nil) }\n")
	env := []string{"PATH=" + h.Bin + ":" + goDir + ":/usr/bin:/bin", "GOTOOLCHAIN=local"}
	build := []string{"--shell", "-c", "go build -o /tmp/hello ."}
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			h.Run(h.Home, env, "claudebox", "--gc", "--caches")
			b.StartTimer()
			h.Run(proj, env, "claudebox", build...)
		}
	})
	b.Run("warm", func(b *testing.B) {
		h.Run(proj, env, "claudebox", build...)
		for b.Loop() {
			h.Run(proj, env, "claudebox", build...)
		}
	})
	b.Run("empty", func(b *testing.B) {
		for b.Loop() {
			h.Run(proj, env, "claudebox", "--shell", "-c", "true")
		}
	})
	b.Run("host", func(b *testing.B) {
		out := filepath.Join(h.Base, "hello")
		h.Run(proj, env, "go", "build", "-o", out, ".")
		for b.Loop() {
			b.StopTimer()
			os.Remove(out)
			b.StartTimer()
			h.Run(proj, env, "go", "build", "-o", out, ".")
		}
	})
}

// BenchmarkSupervisorIdle runs a real session, as the unprivileged user,
// that sleeps and reports what its supervisor and its guard watcher use
// while the session idles (past its first second, after which both give
// back what their start used):
// resident memory (RSS counts the pages of claudebox's binary the two
// share in each; PSS divides them between them), and the CPU time they
// spend between two samples 0.6 s apart.
func BenchmarkSupervisorIdle(b *testing.B) {
	h := harness.NewHost(b)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	var rssKB, pssKB, watcherRSSKB, watcherPSSKB, idleTicks, watcherTicks float64
	for b.Loop() {
		c := h.Command(proj, nil, "claudebox", "--shell", "-c", "sleep 2.6")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		watcher := childRunning(c.Process.Pid, "--watch-guards")
		before, watcherBefore := cpuTicks(c.Process.Pid), cpuTicks(watcher)
		time.Sleep(600 * time.Millisecond)
		idleTicks = float64(cpuTicks(c.Process.Pid) - before)
		watcherTicks = float64(cpuTicks(watcher) - watcherBefore)
		rssKB, pssKB = memoryKB(c.Process.Pid)
		watcherRSSKB, watcherPSSKB = memoryKB(watcher)
		if err := c.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(rssKB, "RSS-KB")
	b.ReportMetric(pssKB, "PSS-KB")
	b.ReportMetric(watcherRSSKB, "watcher-RSS-KB")
	b.ReportMetric(watcherPSSKB, "watcher-PSS-KB")
	b.ReportMetric(idleTicks, "idle-CPU-ticks")
	b.ReportMetric(watcherTicks, "watcher-idle-CPU-ticks")
}

// childRunning is the child of pid whose command line holds arg (0 if
// none).
func childRunning(pid int, arg string) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(b)) {
			var child int
			fmt.Sscan(f, &child)
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child)); strings.Contains(string(cmd), arg) {
				return child
			}
		}
	}
	return 0
}

// memoryKB is a process's resident and proportional set sizes.
func memoryKB(pid int) (rss, pss float64) {
	rollup, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	for _, line := range strings.Split(string(rollup), "\n") {
		if v, ok := strings.CutPrefix(line, "Rss:"); ok {
			fmt.Sscan(v, &rss)
		}
		if v, ok := strings.CutPrefix(line, "Pss:"); ok {
			fmt.Sscan(v, &pss)
		}
	}
	return rss, pss
}

// cpuTicks is a process's user and system time, in clock ticks.
func cpuTicks(pid int) int {
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	_, rest, _ := strings.Cut(string(stat), ") ")
	fields := strings.Fields(rest)
	if len(fields) < 13 {
		return 0
	}
	var u, s int
	fmt.Sscan(fields[11], &u)
	fmt.Sscan(fields[12], &s)
	return u + s
}

// BenchmarkBwrapFailure: a launch whose bwrap fails at once, to the hint.
func BenchmarkBwrapFailure(b *testing.B) {
	h, proj := harness.FailingBwrapHost(b, true)
	for b.Loop() {
		if h.Command(proj, nil, "claudebox", "--shell", "-c", "true").Run() == nil {
			b.Fatal("the launch succeeded")
		}
	}
}
