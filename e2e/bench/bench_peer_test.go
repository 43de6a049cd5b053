package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// BenchmarkSessionAgainstPeer is a sandboxed true, `claudebox --shell -c
// true` as an unprivileged user with the real bwrap, against Anthropic's
// sandbox-runtime (`srt -c true`, installed from npm into a temporary
// prefix; the benchmark skips, saying why, where it cannot be), in one
// loop: each loop runs every case once, in an order of its own, so that
// load slows them alike and no case always follows the same one (srt's
// sessions left the next one slower). Beside it, the same session in 60,000 files in 3,000 directories
// against a one-file repository, and with a 25 MB ~/.claude.json (a
// long-time user's, thousands of projects), unchanged and just rewritten,
// against a 100-byte one, and with a plugin of 20 MiB of bundled
// JavaScript against none, and a one-file session of Claude (a claude that
// exits at once) against the bash claudebox it replaces
// (testdata/bash-claudebox.sh). After the loop, a burst of 100
// sessions one after another. The metrics are medians in ms and their
// ratios, and for the one-file, the large trees' and the ~/.claude.json
// sessions their processor time's.
func BenchmarkSessionAgainstPeer(b *testing.B) {
	h := harness.NewHost(b)
	srt := installSandboxRuntime(b, h)
	h.Write(filepath.Join(h.Bin, "claude"), "#!/bin/sh\nexit 0\n")
	os.Chmod(filepath.Join(h.Bin, "claude"), 0o755)
	h.CopyFile("testdata/bash-claudebox.sh", filepath.Join(h.Bin, "bash-claudebox"), 0o755)
	small := filepath.Join(h.Home, "code", "small")
	h.GitRepo(small)
	// The large tree twice: its 60,000 files untracked, and committed,
	// as a repository's are.
	large, committed := filepath.Join(h.Home, "code", "large"), filepath.Join(h.Home, "code", "large-committed")
	for _, tree := range []string{large, committed} {
		h.GitRepo(tree)
		for d := range 3000 {
			dir := filepath.Join(tree, fmt.Sprintf("d%02d", d/100), fmt.Sprintf("e%02d", d%100))
			os.MkdirAll(dir, 0o755)
			for f := range 20 {
				os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), []byte("package x\n"), 0o644)
			}
		}
	}
	// Three homes alike but for ~/.claude.json: carol's of 100 bytes,
	// bob's of 25 MB, and dave's of 25 MB that the host's Claude Code
	// rewrites before each session (as it does at each of its starts).
	small100 := `{"hasCompletedOnboarding":true,"lastOnboardingVersion":"2.1.330","userID":"0123456789abcdef"}` + "\n"
	h.Write(filepath.Join(h.Home, ".claude.json"), small100)
	carol, bob, dave := filepath.Join(h.Base, "home", "carol"), filepath.Join(h.Base, "home", "bob"), filepath.Join(h.Base, "home", "dave")
	h.Write(filepath.Join(carol, ".claude.json"), small100)
	big := string(bigClaudeJSON(25 << 20))
	h.Write(filepath.Join(bob, ".claude.json"), big)
	h.Write(filepath.Join(dave, ".claude.json"), big)
	// erin's home is carol's with a plugin of 20 MiB of bundled
	// JavaScript, which a launch judges for a credential.
	erin := filepath.Join(h.Base, "home", "erin")
	h.Write(filepath.Join(erin, ".claude.json"), small100)
	pluginBundles(h, filepath.Join(erin, ".claude"), 20)
	h.Chown()
	h.Run(committed, nil, "git", "add", "-A")
	h.Run(committed, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "files")
	type session struct {
		name string
		dir  string
		env  []string
		args []string
	}
	sandboxedTrue := []string{"claudebox", "--shell", "-c", "true"}
	cases := []session{
		{"srt", small, nil, []string{srt, "-c", "true"}},
		{"claudebox", small, nil, sandboxedTrue},
		{"claude-json-100B", small, []string{"HOME=" + carol}, sandboxedTrue},
		{"claude-json-25MB", small, []string{"HOME=" + bob}, sandboxedTrue},
		{"claude-json-25MB-changed", small, []string{"HOME=" + dave}, sandboxedTrue},
		{"plugins-20MiB", small, []string{"HOME=" + erin}, sandboxedTrue},
		{"large", large, nil, sandboxedTrue},
		{"large-committed", committed, nil, sandboxedTrue},
		{"bash-claudebox", small, []string{"ANTHROPIC_API_KEY=sk-ant-bench"}, []string{"bash-claudebox", "-p", "hi"}},
		{"claudebox-p", small, []string{"ANTHROPIC_API_KEY=sk-ant-bench"}, []string{"claudebox", "-p", "hi"}},
	}
	before := beforeBuild(b, h)
	if before != nil {
		// The build before runs in homes of its own, copies of the
		// others: a launch keeps its verdicts for the executable that
		// judged (internal/verdict), so in one home each session after
		// the other build's judged its scripts and plugins again and
		// rewrote the record (a one-file session took 14-18% more
		// processor time, both builds alike).
		for _, c := range slices.DeleteFunc(slices.Clone(cases[1:]), func(c session) bool { return c.name == "bash-claudebox" }) {
			env := append(slices.Clone(c.env), before...)
			env = append(env, "HOME="+twinHome(b, h, homeOf(h, c.env)))
			cases = append(cases, session{c.name + "-before", c.dir, env, c.args})
		}
	}
	// used is each session's processor time (the launch and what it
	// waited for: the sandbox, git, the walks), which the machine's load
	// does not stretch as it does the wall time.
	used := map[string][]float64{}
	run := func(c session) float64 {
		if strings.HasPrefix(c.name, "claude-json-25MB-changed") {
			now := time.Now()
			os.Chtimes(filepath.Join(homeOf(h, c.env), ".claude.json"), now, now)
		}
		cmd := h.Command(c.dir, c.env, c.args[0], c.args[1:]...)
		began := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", c.name, err, out)
		}
		ms := float64(time.Since(began).Microseconds()) / 1000
		used[c.name] = append(used[c.name], float64((cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()).Microseconds())/1000)
		return ms
	}
	for _, c := range cases { // warm the caches, the instances and their records
		run(c)
		run(c)
	}
	used = map[string][]float64{}
	took := map[string][]float64{}
	b.ResetTimer()
	for b.Loop() {
		order := slices.Clone(cases)
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, c := range order {
			took[c.name] = append(took[c.name], run(c))
		}
	}
	b.StopTimer()
	for range 100 {
		took["burst"] = append(took["burst"], run(cases[1]))
	}
	middle := func(s []float64) float64 {
		s = slices.Clone(s)
		slices.Sort(s)
		return s[len(s)/2]
	}
	median := func(name string) float64 { return middle(took[name]) }
	processor := func(name string) float64 { return middle(used[name]) }
	for _, c := range cases {
		b.ReportMetric(median(c.name), c.name+"-ms")
	}
	b.ReportMetric(median("burst"), "burst-ms")
	last := took["burst"][len(took["burst"])-10:]
	slices.Sort(last)
	b.ReportMetric(last[len(last)/2], "burst-last-10-ms")
	b.ReportMetric(median("claudebox")/median("srt"), "claudebox/srt")
	b.ReportMetric(median("burst")/median("srt"), "burst/srt")
	b.ReportMetric(median("large")/median("claudebox"), "large/small")
	b.ReportMetric(median("large-committed")/median("claudebox"), "large-committed/small")
	// The same ratios in processor time: under load the wall time of
	// every session stretches by its waits for a processor, which
	// squeezes the ratios toward 1.
	for _, name := range []string{"claudebox", "large", "large-committed"} {
		b.ReportMetric(processor(name), name+"-processor-ms")
	}
	b.ReportMetric(processor("large")/processor("claudebox"), "large/small-processor")
	b.ReportMetric(processor("large-committed")/processor("claudebox"), "large-committed/small-processor")
	b.ReportMetric(median("claude-json-25MB")/median("claude-json-100B"), "claude-json-25MB/100B")
	b.ReportMetric(median("claude-json-25MB-changed")/median("claude-json-100B"), "claude-json-25MB-changed/100B")
	// The same in processor time: a few sessions a home move their wall
	// clock's medians by more than the unchanged file costs (one status).
	b.ReportMetric(processor("claude-json-25MB")/processor("claude-json-100B"), "claude-json-25MB/100B-processor")
	b.ReportMetric(processor("claude-json-25MB-changed")/processor("claude-json-100B"), "claude-json-25MB-changed/100B-processor")
	b.ReportMetric(median("claudebox-p")/median("bash-claudebox"), "claudebox-p/bash-claudebox")
	b.ReportMetric(median("plugins-20MiB")/median("claude-json-100B"), "plugins-20MiB/none")
	if before != nil {
		b.ReportMetric(median("claudebox-p-before")/median("bash-claudebox"), "claudebox-p-before/bash-claudebox")
		b.ReportMetric(median("claudebox-before")/median("srt"), "claudebox-before/srt")
		b.ReportMetric(median("large-before")/median("claudebox-before"), "large/small-before")
		b.ReportMetric(processor("large-before")/processor("claudebox-before"), "large/small-processor-before")
		b.ReportMetric(median("claude-json-25MB-before")/median("claude-json-100B-before"), "claude-json-25MB/100B-before")
		b.ReportMetric(median("claude-json-25MB-changed-before")/median("claude-json-100B-before"), "claude-json-25MB-changed/100B-before")
		b.ReportMetric(median("plugins-20MiB-before")/median("claude-json-100B-before"), "plugins-20MiB/none-before")
	}
}

// beforeBuild is, where CLAUDEBOX_BENCH_BEFORE names another claudebox
// binary (an older build), the variables that run it in place of the one
// built: its sessions run in the same loop, as the cases "…-before".
func beforeBuild(b *testing.B, h *harness.Host) []string {
	b.Helper()
	before := os.Getenv("CLAUDEBOX_BENCH_BEFORE")
	if before == "" {
		return nil
	}
	dir := filepath.Join(h.Base, "before")
	os.MkdirAll(dir, 0o755)
	h.CopyFile(before, filepath.Join(dir, "claudebox"), 0o755)
	h.Chown()
	return []string{"PATH=" + dir + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
}

// beforeHost is, where CLAUDEBOX_BENCH_BEFORE names another claudebox
// binary (an older build), a host of its own whose claudebox is that
// build, nil where it names none. The build before runs in its own homes
// because a launch keeps its verdicts (internal/verdict) for the
// executable that judged: in one home each session after the other
// build's judged its scripts and plugins again and rewrote the record,
// and both builds measured slower than either is.
func beforeHost(b *testing.B) *harness.Host {
	b.Helper()
	before := os.Getenv("CLAUDEBOX_BENCH_BEFORE")
	if before == "" {
		return nil
	}
	h := harness.NewHost(b)
	h.CopyFile(before, filepath.Join(h.Bin, "claudebox"), 0o755)
	h.Chown()
	return h
}

// homeOf is the home a session with the extra environment env runs in.
func homeOf(h *harness.Host, env []string) string {
	home := h.Home
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "HOME="); ok {
			home = v
		}
	}
	return home
}

// twinHome is a copy of home beside it, but for its projects (code),
// made at the first call for that home, the user's.
func twinHome(b *testing.B, h *harness.Host, home string) string {
	b.Helper()
	twin := home + "-before"
	if _, err := os.Stat(twin); err == nil {
		return twin
	}
	if err := os.MkdirAll(twin, 0o755); err != nil {
		b.Fatal(err)
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "code" {
			continue
		}
		if out, err := exec.Command("cp", "-a", filepath.Join(home, e.Name()), twin).CombinedOutput(); err != nil {
			b.Fatalf("cp %s: %v\n%s", e.Name(), err, out)
		}
	}
	h.Chown()
	return twin
}

// installSandboxRuntime installs Anthropic's sandbox-runtime from npm into
// a temporary prefix the unprivileged user can run, and returns its srt;
// it skips the benchmark, saying why, where that cannot be done or srt
// cannot run here.
func installSandboxRuntime(b *testing.B, h *harness.Host) string {
	b.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		b.Skip("no npm to install @anthropic-ai/sandbox-runtime with")
	}
	prefix := filepath.Join(h.Base, "srt")
	install := exec.Command("npm", "install", "--prefix", prefix, "--no-fund", "--no-audit", "--no-update-notifier", "@anthropic-ai/sandbox-runtime@0.0.83")
	if out, err := install.CombinedOutput(); err != nil {
		b.Skipf("cannot install @anthropic-ai/sandbox-runtime from npm: %v\n%s", err, out)
	}
	h.Chown()
	srt := filepath.Join(prefix, "node_modules", ".bin", "srt")
	if out, err := h.Command(h.Home, nil, srt, "-c", "true").CombinedOutput(); err != nil {
		b.Skipf("srt cannot run here (it needs bwrap, socat and ripgrep): %v\n%s", err, out)
	}
	return srt
}

// pluginBundles installs in the ~/.claude at dir a plugin of mib files
// of 1 MiB of bundled JavaScript, as a plugin ships its server built.
func pluginBundles(h *harness.Host, dir string, mib int) {
	plugin := filepath.Join(dir, "plugins", "cache", "bench", "bundled", "1.0.0")
	h.Write(filepath.Join(dir, "plugins", "installed_plugins.json"), `{"version":2,"plugins":{"bundled@bench":[{"scope":"user","installPath":"`+plugin+`","version":"1.0.0"}]}}`)
	h.Write(filepath.Join(plugin, ".claude-plugin", "plugin.json"), `{"name":"bundled"}`)
	for f := range mib {
		var js strings.Builder
		for i := 0; js.Len() < 1<<20; i++ {
			fmt.Fprintf(&js, "function f%d_%d(e,t){var n=e.headers||{};return t.map(function(r){return r.id===%d?n[r.key]:\"row-%d\"}).filter(Boolean).join(\",\")}\n", f, i, i, i)
		}
		h.Write(filepath.Join(plugin, "dist", fmt.Sprintf("chunk-%02d.js", f)), js.String())
	}
}

// bigClaudeJSON is a ~/.claude.json of about size bytes, as years of use
// grow it: the account, and thousands of projects, each with its history
// of prompts and its settings.
func bigClaudeJSON(size int) []byte {
	projects := map[string]json.RawMessage{}
	for i, total := 0, 0; total < size; i++ {
		var history []map[string]string
		for j := range 20 {
			history = append(history, map[string]string{"display": fmt.Sprintf("fix the failing test in package %d of project %d, then run the whole suite again", j, i), "pastedContents": "{}"})
		}
		project, _ := json.Marshal(map[string]any{
			"allowedTools": []string{}, "history": history, "hasTrustDialogAccepted": true,
			"mcpServers": map[string]any{}, "lastCost": 0.25, "lastSessionId": fmt.Sprintf("%032x", i),
		})
		path := fmt.Sprintf("/home/alice/code/project-%05d", i)
		projects[path] = project
		total += len(path) + len(project) + 4
	}
	out, _ := json.Marshal(map[string]any{
		"numStartups": 4242, "hasCompletedOnboarding": true, "lastOnboardingVersion": "2.1.330",
		"userID": "0123456789abcdef", "theme": "dark", "projects": projects,
	})
	return out
}

// BenchmarkExitMillionFiles is how long a session in a repository of
// 1,000,000 files (50,000 directories of 20, all committed) whose command
// changed 100 of them takes from its command's exit to claudebox's: the
// command prints the time as its last act, and the clock stops when
// claudebox exits. The first session (whose record of the project's
// start reads the whole tree, beside the session) is left out; the metric
// is the median in ms, beside the median processor time of the whole
// session (claudebox and what it waited for: the sandbox, the walks,
// git), and CLAUDEBOX_TRACE's phases of the last session are logged.
//
// Each round runs the session twice: at once, as a scripted run would
// (its exit also waits for the rest of the record of the project's
// start, taken beside the session: seconds in this tree), and as long as
// an agent's (exit-after-agent-ms: its command first waits agentWait,
// by which that record is written).
func BenchmarkExitMillionFiles(b *testing.B) {
	type build struct {
		suffix string
		h      *harness.Host
		repo   string
	}
	h := harness.NewHost(b)
	repo := filepath.Join(h.Home, "code", "huge")
	h.GitRepo(repo)
	content := []byte("package x\n")
	for d := range 50000 {
		dir := filepath.Join(repo, fmt.Sprintf("d%03d", d/100), fmt.Sprintf("e%02d", d%100))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 20 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), content, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	h.Chown()
	h.Run(repo, nil, "git", "add", "-A")
	h.Run(repo, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "a million files")
	builds := []build{{"", h, repo}}
	if hb := beforeHost(b); hb != nil {
		// A copy of the repository, its index refreshed (the copy's
		// inodes differ), in the build before's own home.
		copied := filepath.Join(hb.Home, "code", "huge")
		os.MkdirAll(filepath.Dir(copied), 0o755)
		if out, err := exec.Command("cp", "-a", repo, copied).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v\n%s", err, out)
		}
		hb.Chown()
		hb.Run(copied, nil, "git", "update-index", "-q", "--refresh")
		builds = append(builds, build{"-before", hb, copied})
	}
	session := func(bu build, round int, wait time.Duration) (float64, float64, string) {
		script := fmt.Sprintf(`sleep %g; for d in $(seq 0 99); do echo %d >> $(printf d%%03d/e00/f00.go $d); done; date +%%s%%N`, wait.Seconds(), round)
		var stdout, stderr bytes.Buffer
		cmd := bu.h.Command(bu.repo, []string{"CLAUDEBOX_TRACE=1"}, "claudebox", "--shell", "-c", script)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			b.Fatalf("%v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		exited := time.Now()
		processor := float64((cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Microseconds()) / 1000
		lines := strings.Fields(stdout.String())
		ns, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
		if err != nil {
			b.Fatalf("no time printed: %q", stdout.String())
		}
		return float64(exited.Sub(time.Unix(0, ns)).Microseconds()) / 1000, processor, strings.TrimSpace(stderr.String())
	}
	round := 0
	first := map[string]float64{}
	for _, bu := range builds {
		var trace string
		first[bu.suffix], _, trace = session(bu, round, 0)
		round++
		b.Logf("first session%s: %s", bu.suffix, trace)
	}
	took, used, agent := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	traces := map[string]string{}
	b.ResetTimer()
	for b.Loop() {
		for _, bu := range builds {
			var ms, processor float64
			ms, processor, traces[bu.suffix] = session(bu, round, 0)
			took[bu.suffix] = append(took[bu.suffix], ms)
			used[bu.suffix] = append(used[bu.suffix], processor)
			round++
			ms, _, traces["agent"+bu.suffix] = session(bu, round, agentWait)
			agent[bu.suffix] = append(agent[bu.suffix], ms)
			round++
		}
	}
	middle := func(s []float64) float64 {
		slices.Sort(s)
		return s[len(s)/2]
	}
	for suffix, t := range took {
		b.ReportMetric(first[suffix], "first-session-exit-ms"+suffix)
		b.ReportMetric(middle(t), "exit-after-command-ms"+suffix)
		b.ReportMetric(middle(agent[suffix]), "exit-after-agent-ms"+suffix)
		b.ReportMetric(middle(used[suffix]), "session-processor-ms"+suffix)
		b.Logf("last session%s: %s", suffix, traces[suffix])
		b.Logf("last agent's session%s: %s", suffix, traces["agent"+suffix])
	}
}

// agentWait is how long BenchmarkExitMillionFiles's agent-like session
// waits before its changes: past the record of the project's start in
// the million files (0.4-1.6 s a step at a load of 20, three steps), and
// shorter than any agent's session.
const agentWait = 10 * time.Second

// BenchmarkIdleSessionMemory is the memory every claudebox process of an
// idle session holds together (the supervisor, the guard watcher and, with
// published ports, the relay inside the sandbox), as an unprivileged user
// with the real bwrap: summed from /proc every 250 ms from the session's
// first second to its fourth; each metric is the largest sum. Three
// sessions: `claude -p` (a claude that sleeps, on the filtered network,
// whose relay hands its listeners to the supervisor and becomes claude),
// the same with a published port (its relay stays inside, serving it), and
// `--shell`.
// The figure to read is the proportional size (PSS), what the processes
// hold together: each maps claudebox's binary, shared page cache that
// their resident sizes (RSS) each count whole, and the page cache may
// hold it in 2 MiB folios (FilePmdMapped in smaps), mapped whole at a
// fault; PSS counts a shared page once, divided among the processes
// mapping it. Beside it, their anonymous memory (heap, stacks, the
// runtime's own: what no other process could share), and the RSS sum
// with each process's share at its worst sample, as earlier rounds
// reported it, and the median PSS sum at the fourth second, once the
// processes gave back what their start used (settled-total-PSS-KB: the
// largest sum is that of the first second, where a loaded machine has
// not yet started the sandbox). With CLAUDEBOX_BENCH_BEFORE, the older
// build's sessions alternate with the new one's.
func BenchmarkIdleSessionMemory(b *testing.B) {
	h := harness.NewHost(b)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	builds := []memoryBuild{{"", h, proj}}
	if hb := beforeHost(b); hb != nil {
		builds = append(builds, memoryBuild{"-before", hb, filepath.Join(hb.Home, "code", "proj")})
		hb.GitRepo(builds[1].proj)
	}
	for _, bu := range builds {
		bu.h.Write(filepath.Join(bu.h.Bin, "claude"), "#!/bin/sh\nexec sleep 4.5\n")
		os.Chmod(filepath.Join(bu.h.Bin, "claude"), 0o755)
		bu.h.Run(bu.proj, nil, "claudebox", "--shell", "-c", "true") // the instance and the project's record
	}
	sessions := []struct {
		name string
		args func() []string
	}{
		{"claude-p", func() []string { return []string{"-p", "hi"} }},
		{"claude-p-published", func() []string {
			return []string{"--publish", strconv.Itoa(harness.FreePort(b)) + ":8080", "-p", "hi"}
		}},
		{"shell", func() []string { return []string{"--shell", "-c", "sleep 4.5"} }},
	}
	for _, session := range sessions {
		b.Run(session.name, func(b *testing.B) { idleSessionMemory(b, builds, session.args) })
	}
}

// memoryBuild is a claudebox build whose sessions IdleSessionMemory
// measures: its host and project, and the suffix of its metrics.
type memoryBuild struct {
	suffix string
	h      *harness.Host
	proj   string
}

// idleSessionMemory measures the sessions claudebox args starts, in each
// build in turn.
func idleSessionMemory(b *testing.B, builds []memoryBuild, args func() []string) {
	roles := []string{"supervisor", "watcher", "relay"}
	type sample struct{ rss, pss, anon [3]float64 }
	sum := func(v [3]float64) float64 { return v[0] + v[1] + v[2] }
	worstRSS, worstPSS, worstAnon := map[string]sample{}, map[string]sample{}, map[string]float64{}
	settled := map[string][]float64{}
	for b.Loop() {
		for _, bu := range builds {
			cmd := bu.h.Command(bu.proj, []string{"ANTHROPIC_API_KEY=sk-ant-bench"}, "claudebox", args()...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			began := time.Now()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			for at := time.Second; at <= 4*time.Second; at += 250 * time.Millisecond {
				time.Sleep(time.Until(began.Add(at)))
				var s sample
				for pid, role := range claudeboxProcesses(filepath.Join(bu.h.Bin, "claudebox"), cmd.Process.Pid) {
					i := slices.Index(roles, role)
					if i < 0 {
						continue
					}
					m := smapsRollupKB(pid)
					s.rss[i] += m["Rss"]
					s.pss[i] += m["Pss"]
					s.anon[i] += m["Anonymous"]
				}
				if os.Getenv("BENCH_MEMORY_TIMELINE") != "" {
					b.Logf("%s %v: supervisor, watcher, relay: RSS %v PSS %v anonymous %v", bu.suffix, at, s.rss, s.pss, s.anon)
				}
				if sum(s.rss) > sum(worstRSS[bu.suffix].rss) {
					worstRSS[bu.suffix] = s
				}
				if sum(s.pss) > sum(worstPSS[bu.suffix].pss) {
					worstPSS[bu.suffix] = s
				}
				worstAnon[bu.suffix] = max(worstAnon[bu.suffix], sum(s.anon))
				if at == 4*time.Second {
					settled[bu.suffix] = append(settled[bu.suffix], sum(s.pss))
				}
			}
			if err := cmd.Wait(); err != nil {
				b.Fatalf("%v\n%s", err, out.String())
			}
		}
	}
	for _, bu := range builds {
		p, r := worstPSS[bu.suffix], worstRSS[bu.suffix]
		b.ReportMetric(sum(p.pss), "max-total-PSS-KB"+bu.suffix)
		slices.Sort(settled[bu.suffix])
		b.ReportMetric(settled[bu.suffix][len(settled[bu.suffix])/2], "settled-total-PSS-KB"+bu.suffix)
		b.ReportMetric(worstAnon[bu.suffix], "max-total-anon-KB"+bu.suffix)
		b.ReportMetric(sum(r.rss), "max-total-RSS-KB"+bu.suffix)
		for i, role := range roles {
			b.ReportMetric(p.pss[i], role+"-PSS-KB"+bu.suffix)
			b.ReportMetric(r.rss[i], role+"-RSS-KB"+bu.suffix)
		}
	}
}

// smapsRollupKB is a process's /proc/PID/smaps_rollup: each field's kB.
func smapsRollupKB(pid int) map[string]float64 {
	rollup, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	fields := map[string]float64{}
	for _, line := range strings.Split(string(rollup), "\n") {
		if name, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(v, " kB") {
			var kb float64
			fmt.Sscan(v, &kb)
			fields[name] = kb
		}
	}
	return fields
}

// claudeboxProcesses are root and those of its descendants that run
// binary (the same file, whatever its path in their mount namespace), by
// role: the supervisor (root), the guard watcher, the relay.
func claudeboxProcesses(binary string, root int) map[int]string {
	want, err := os.Stat(binary)
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		_, rest, _ := strings.Cut(string(stat), ") ")
		if f := strings.Fields(rest); len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	descends := func(pid int) bool {
		for ; pid > 1; pid = parent[pid] {
			if pid == root {
				return true
			}
		}
		return false
	}
	procs := map[int]string{}
	for pid := range parent {
		exe, err := os.Stat(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || !descends(pid) || !os.SameFile(exe, want) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		switch {
		case pid == root:
			procs[pid] = "supervisor"
		case bytes.Contains(cmdline, []byte("--watch-guards")):
			procs[pid] = "watcher"
		case bytes.Contains(cmdline, []byte("--relay")):
			procs[pid] = "relay"
		default:
			procs[pid] = "other"
		}
	}
	return procs
}
