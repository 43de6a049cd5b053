package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// BenchmarkSession is a whole session, from typing the command to the
// prompt coming back, with the real bwrap as an unprivileged user and a
// claude that exits at once, measured in one run beside what it is judged
// against: a bare bwrap, and the bash claudebox it replaces
// (testdata/bash-claudebox.sh). Each loop runs every case once, in turn, so
// a machine under load slows them alike; the metrics are medians in ms and
// their ratios. claudebox is built as users get it, not the test binary.
// With CLAUDEBOX_BENCH_BEFORE naming another claudebox binary (an older
// build), its sessions run in the same loop, as the cases "…-before", in
// a copy of the home.
func BenchmarkSession(b *testing.B) {
	h := harness.NewHost(b)
	h.Write(filepath.Join(h.Bin, "claude"), "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(h.Bin, "claude"), 0o755)
	h.CopyFile("testdata/bash-claudebox.sh", filepath.Join(h.Bin, "bash-claudebox"), 0o755)
	small := filepath.Join(h.Home, "code", "small")
	h.GitRepo(small)
	large := filepath.Join(h.Home, "code", "large")
	h.GitRepo(large)
	for d := range 3000 {
		dir := filepath.Join(large, fmt.Sprintf("d%02d", d/100), fmt.Sprintf("e%02d", d%100))
		os.MkdirAll(dir, 0o755)
		for f := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644)
		}
	}
	h.Chown()
	key := []string{"ANTHROPIC_API_KEY=sk-ant-bench"}
	type session struct {
		name  string
		dir   string
		args  []string
		extra []string
	}
	cases := []session{
		{"bare", small, []string{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "true"}, nil},
		{"bash", small, []string{"bash-claudebox", "-p", "hi"}, nil},
		{"small", small, []string{"claudebox", "-p", "hi"}, nil},
		{"small-host", small, []string{"claudebox", "--network=host", "-p", "hi"}, nil},
		{"large", large, []string{"claudebox", "-p", "hi"}, nil},
		{"large-host", large, []string{"claudebox", "--network=host", "-p", "hi"}, nil},
	}
	// The floor of any design that mounts what the plan mounts: the bwrap
	// of the one-file project's own plan alone, with no supervisor, guard
	// watcher, proxy, placeholders or exit audit, in a copy of the project
	// (bwrap makes the guards' mount points there).
	floor := filepath.Join(h.Home, "code", "floor")
	h.GitRepo(floor)
	cases = append(cases, session{"plan-bwrap", floor, append([]string{"bwrap"}, planArgs(b, h, floor)...), nil})
	// Where the host names its CA bundle for each tool, as NixOS and many
	// CI images do.
	if bundle := "/etc/ssl/certs/ca-certificates.crt"; paths.Exists(bundle) {
		var named []string
		for _, v := range []string{"SSL_CERT_FILE", "NIX_SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO"} {
			named = append(named, v+"="+bundle)
		}
		cases = append(cases, session{"small-ca", small, []string{"claudebox", "-p", "hi"}, named})
	}
	if before := os.Getenv("CLAUDEBOX_BENCH_BEFORE"); before != "" {
		dir := filepath.Join(h.Base, "before")
		os.MkdirAll(dir, 0o755)
		h.CopyFile(before, filepath.Join(dir, "claudebox"), 0o755)
		h.CopyFile(filepath.Join(h.Bin, "claude"), filepath.Join(dir, "claude"), 0o755)
		h.Chown()
		path := "PATH=" + dir + ":/usr/local/bin:/usr/bin:/bin"
		// In a home of its own: a launch keeps its verdicts for the
		// executable that judged (BenchmarkSessionAgainstPeer).
		home := "HOME=" + twinHome(b, h, h.Home)
		for _, c := range slices.Clone(cases[2:]) {
			cases = append(cases, session{c.name + "-before", c.dir, c.args, append(slices.Clone(c.extra), path, home)})
		}
	}
	for _, c := range cases { // warm the caches and the instances
		h.Run(c.dir, append(c.extra, key...), c.args[0], c.args[1:]...)
	}
	took := map[string][]float64{}
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cases {
			cmd := h.Command(c.dir, append(c.extra, key...), c.args[0], c.args[1:]...)
			began := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			took[c.name] = append(took[c.name], float64(time.Since(began).Microseconds())/1000)
		}
	}
	median := func(name string) float64 {
		s := slices.Clone(took[name])
		slices.Sort(s)
		return s[len(s)/2]
	}
	for _, c := range cases {
		b.ReportMetric(median(c.name), c.name+"-ms")
	}
	b.ReportMetric(median("small")-median("bare"), "small-over-bare-ms")
	b.ReportMetric(median("small-host")-median("bare"), "small-host-over-bare-ms")
	b.ReportMetric(median("small")/median("bash"), "small/bash")
	b.ReportMetric(median("small-host")/median("bash"), "small-host/bash")
	b.ReportMetric(median("plan-bwrap")-median("bare"), "plan-bwrap-over-bare-ms")
	b.ReportMetric(median("plan-bwrap")/median("bash"), "plan-bwrap/bash")
	b.ReportMetric(median("large")/median("small"), "large/small")
	if len(took["small-ca"]) > 0 {
		b.ReportMetric(median("small-ca")/median("small"), "small-ca/small")
	}
	b.ReportMetric(median("large-host")/median("small-host"), "large-host/small-host")
	if len(took["small-before"]) > 0 {
		b.ReportMetric(median("small")/median("small-before"), "small/before")
		b.ReportMetric(median("small-host")/median("small-host-before"), "small-host/before")
		b.ReportMetric(median("large")/median("large-before"), "large/before")
		b.ReportMetric(median("large-host")/median("large-host-before"), "large-host/before")
	}
}

// planArgs is bwrap's arguments for the plan of dir on the host's network,
// as --dry-run shows them after a session made its instance, to run true: the descriptors a launch passes
// are left out (the seccomp filter, the watcher's user namespace) or an
// empty file in their place (a data mount's content), the stand-ins a
// launch makes for the guarded files git reads are made in dir, and the
// private copies of directories it writes are empty directories.
func planArgs(b *testing.B, h *harness.Host, dir string) []string {
	b.Helper()
	key := []string{"ANTHROPIC_API_KEY=sk-ant-bench"}
	h.Run(dir, key, "claudebox", "--network=host", "-p", "hi") // the instance the plan binds
	script := h.Run(dir, key, "claudebox", "--network=host", "--dry-run", "-p", "hi")
	_, bwrap, ok := strings.Cut(script, "/usr/bin/bwrap \\\n")
	if !ok {
		b.Fatalf("no bwrap in --dry-run:\n%s", script)
	}
	fields := strings.Fields(strings.ReplaceAll(bwrap, "\\\n", " "))
	var args []string
	for i := 0; i < len(fields); i++ {
		switch f := fields[i]; f {
		case "--userns", "--info-fd", "--block-fd", "--seccomp":
			i++
		case "--perms":
			if strings.HasSuffix(fields[i+2], "-data") || fields[i+2] == "--file" {
				i++
			} else {
				args = append(args, f)
			}
		case "--bind-data", "--ro-bind-data":
			args = append(args, "--ro-bind", "/dev/null")
			i++
		case "--file":
			// a copy written into a tmpfs, no mount, from a descriptor
			// only a launch has: left out
			i += 2
		case "--":
			return append(args, "--", "true")
		default:
			if f == "--ro-bind" && !paths.Exists(fields[i+1]) {
				if strings.HasPrefix(fields[i+1], dir+"/.git/") {
					h.Write(fields[i+1], "")
				} else {
					// a private copy of a directory, written at launch
					// under ~/.claudebox/run, which later launches clean
					empty := filepath.Join(h.Base, "copy", strconv.Itoa(i))
					harness.Must(b, os.MkdirAll(empty, 0o755))
					args = append(args, f, empty)
					i++
					continue
				}
			}
			args = append(args, f)
		}
	}
	b.Fatalf("no command in --dry-run's bwrap:\n%s", bwrap)
	return nil
}

// BenchmarkBwrapMounts is what bwrap's mounts cost, as an unprivileged
// user: a bare bwrap, then with 40 tmpfs (the kind of mount a directory's
// placeholder is) and with 40 read-only binds (a guard on a file that
// exists), in one loop; medians in ms.
func BenchmarkBwrapMounts(b *testing.B) {
	h := harness.NewHost(b)
	dir := filepath.Join(h.Base, "mounts")
	h.Write(filepath.Join(dir, "file"), "")
	bare := []string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--bind", dir, dir}
	tmpfs, binds := slices.Clone(bare), slices.Clone(bare)
	for i := range 40 {
		dest := filepath.Join(dir, fmt.Sprintf("m%02d", i))
		h.Write(dest, "")
		tmpfs = append(tmpfs, "--tmpfs", dest+"-dir")
		binds = append(binds, "--ro-bind", filepath.Join(dir, "file"), dest)
	}
	cases := map[string][]string{"bare": bare, "40-tmpfs": tmpfs, "40-ro-binds": binds}
	took := map[string][]float64{}
	for b.Loop() {
		for name, args := range cases {
			began := time.Now()
			if out, err := h.Command(dir, nil, "bwrap", append(args, "true")...).CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", name, err, out)
			}
			took[name] = append(took[name], float64(time.Since(began).Microseconds())/1000)
		}
	}
	for name := range cases {
		s := slices.Clone(took[name])
		slices.Sort(s)
		b.ReportMetric(s[len(s)/2], name+"-ms")
	}
}
