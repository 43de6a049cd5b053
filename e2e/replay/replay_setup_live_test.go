package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplaySetupGeminiExtensionChangedDuringSession: with --agent
// gemini, each extension's directory was shown whole and live, its .env
// hidden only where the launch found one: the settings the host's gemini
// writes into an extension during the session (gemini extensions config,
// a service's key in its .env), the URL an update records
// (.gemini-extension-install.json, token and all) and a clone the host
// makes there were readable inside. The attack: the host writes them
// while gemini runs; the sandbox's view of ~/.gemini is read through
// /proc. Proof: none of them holds the token; the extension's manifest
// is shown.
func TestReplaySetupGeminiExtensionChangedDuringSession(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	const token = "glpat-SETUPLIVE-EXTENSION-SECRET"
	ext := filepath.Join(h.Home, ".gemini", "extensions", "jira")
	h.Write(filepath.Join(h.Home, ".gemini", ".env"), "GEMINI_API_KEY=AIza-real-gemini-key-setuplive\n")
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"ui":{"hideBanner":true}}`+"\n")
	h.Write(filepath.Join(ext, "gemini-extension.json"), `{"name":"jira","version":"1.0.0","settings":[{"name":"Jira token","description":"d","envVar":"JIRA_API_TOKEN"}]}`)
	h.Write(filepath.Join(ext, ".gemini-extension-install.json"), `{"source":"https://gitlab.example.com/org/jira.git","type":"git"}`)
	h.Write(filepath.Join(ext, "commands", "open.toml"), "prompt = \"open\"\n")
	var once sync.Once
	var planted error
	mark := harness.TestMark(t)
	look := harness.LookInside(filepath.Join(h.Home, ".gemini"), mark)
	f := harness.StartAgentAPI(t, "X-Goog-Api-Key", func() []harness.SandboxView {
		// The sandbox is up: the host's gemini configures the extension,
		// records an update's source, and a clone appears beside it.
		once.Do(func() {
			for _, w := range []struct{ path, content string }{
				{filepath.Join(ext, ".env"), "JIRA_API_TOKEN=" + token + "\n"},
				{filepath.Join(ext, ".gemini-extension-install.json"), `{"source":"https://oauth2:` + token + `@gitlab.example.com/org/jira.git","type":"git"}`},
				{filepath.Join(ext, "vendor", ".git", "config"), "[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/org/v.git\n"},
			} {
				if planted == nil {
					planted = os.MkdirAll(filepath.Dir(w.path), 0o755)
				}
				if planted == nil {
					planted = os.WriteFile(w.path, []byte(w.content), 0o644)
				}
			}
		})
		return look()
	})
	out := h.Run(proj, []string{"GOOGLE_GEMINI_BASE_URL=" + f.URL, harness.NoResolve}, "claudebox", "--env", mark, "--agent", "gemini", "--skip-trust", "-p", "say pong")
	if !strings.Contains(out, "PONG-GEMINI") {
		t.Fatalf("gemini did not answer: %s", out)
	}
	if planted != nil {
		t.Fatal(planted)
	}
	manifest, command, read := false, false, map[string]bool{}
	for _, v := range f.Inside() {
		for path, content := range v.Files {
			if strings.Contains(content, token) && !read[path] {
				read[path] = true
				t.Errorf("the sandbox reads what the host wrote into the extension during the session, in %s", path)
			}
			manifest = manifest || strings.HasSuffix(path, "/jira/gemini-extension.json")
			command = command || strings.HasSuffix(path, "/jira/commands/open.toml")
		}
	}
	if !manifest || !command {
		t.Errorf("the extension's manifest or command is not shown inside")
	}
}

// TestReplaySetupCloneDuringSession: the directories of the user's Claude
// Code setup where clones go, but the plugins', were shown whole and
// live: ~/.claude/skills, a local marketplace the settings name. A skill
// the host clones there during the session (git clone
// https://oauth2:TOKEN@…, which keeps the token in the clone's
// .git/config), or a repository it makes of one (git init, git remote
// add), was readable inside, token and all. The attack, from
// inside: wait for the host's clones, then grep for the token. Proof:
// not found; what the launch found is still shown, read-only.
func TestReplaySetupCloneDuringSession(t *testing.T) {
	h := harness.NewHost(t)
	const token = "glpat-SETUPLIVE-CLONE-SECRET"
	claude := filepath.Join(h.Home, ".claude")
	mkt := filepath.Join(h.Home, "src", "mkt")
	h.Write(filepath.Join(claude, "skills", "old", "SKILL.md"), "---\nname: old\n---\n")
	h.Write(filepath.Join(claude, "agents", "reviewer.md"), "---\nname: reviewer\n---\n")
	h.Write(filepath.Join(mkt, ".claude-plugin", "marketplace.json"), `{"name":"mkt","plugins":[]}`)
	h.Write(filepath.Join(claude, "settings.json"), `{"extraKnownMarketplaces":{"mkt":{"source":{"source":"directory","path":"`+mkt+`"}}}}`)
	proj := filepath.Join(h.Home, "code", "proj")
	h.Write(filepath.Join(proj, "x"), "x\n")
	ready, planted := filepath.Join(proj, "ready"), filepath.Join(proj, "planted")
	host := harness.WhenReady(ready, planted, func() error {
		config := "[remote \"origin\"]\n\turl = https://oauth2:" + token + "@gitlab.example.com/org/x.git\n"
		var err error
		for _, p := range []string{
			filepath.Join(claude, "skills", "team", ".git", "config"),
			filepath.Join(mkt, ".git", "config"),
			filepath.Join(mkt, "plugins", "late", ".git", "config"),
		} {
			if err == nil {
				err = os.MkdirAll(filepath.Dir(p), 0o755)
			}
			if err == nil {
				err = os.WriteFile(p, []byte(config), 0o644)
			}
		}
		return err
	})
	out := h.Inside(proj, nil, `touch ready; for i in $(seq 1200); do [ -e planted ] && break; sleep 0.1; done
		echo planted: $(ls planted)
		grep -rl `+token+` ~/.claude ~/src 2>/dev/null
		echo skill: $(cat ~/.claude/skills/old/SKILL.md)
		echo agent: $(cat ~/.claude/agents/reviewer.md)
		echo marketplace: $(cat ~/src/mkt/.claude-plugin/marketplace.json)
		mkdir ~/.claude/skills/new ~/src/mkt/new 2>/dev/null && echo writable || true`)
	if err := <-host; err != nil {
		t.Fatal(err)
	}
	t.Log(out)
	if strings.Contains(out, token) || strings.Contains(out, "/.git/config") || !strings.Contains(out, "planted: planted") {
		t.Errorf("what the host cloned during the session is readable inside, its token too:\n%s", out)
	}
	if !strings.Contains(out, "skill: --- name: old ---") || !strings.Contains(out, "agent: --- name: reviewer ---") ||
		!strings.Contains(out, `marketplace: {"name":"mkt","plugins":[]}`) || strings.Contains(out, "writable") {
		t.Errorf("what the launch found is not shown, or is writable inside:\n%s", out)
	}
}

// BenchmarkClaudeSetupSession is a session's launch with a long-time
// user's Claude Code setup (ten skills, twenty commands, fifteen agents,
// two marketplaces and four plugins installed, a local marketplace),
// each a directory the launch shows entry by entry: `claudebox --shell -c
// true`, median in ms, and the mounts of its plan. With
// CLAUDEBOX_BENCH_BEFORE naming another claudebox binary, its sessions
// run in the same loop ("before-ms").
func BenchmarkClaudeSetupSession(b *testing.B) {
	h := harness.NewHost(b)
	claude := filepath.Join(h.Home, ".claude")
	for i := range 10 {
		h.Write(filepath.Join(claude, "skills", fmt.Sprintf("skill%d", i), "SKILL.md"), "---\nname: s\n---\n")
		h.Write(filepath.Join(claude, "skills", fmt.Sprintf("skill%d", i), "scripts", "run.py"), "print(1)\n")
	}
	for i := range 20 {
		h.Write(filepath.Join(claude, "commands", fmt.Sprintf("cmd%d.md", i)), "do it\n")
	}
	for i := range 15 {
		h.Write(filepath.Join(claude, "agents", fmt.Sprintf("agent%d.md", i)), "---\nname: a\n---\n")
	}
	plugins := filepath.Join(claude, "plugins")
	for _, m := range []string{"official", "team"} {
		h.Write(filepath.Join(plugins, "marketplaces", m, ".git", "config"), "[core]\n\tbare = false\n")
		h.Write(filepath.Join(plugins, "marketplaces", m, ".claude-plugin", "marketplace.json"), "{}\n")
	}
	for _, p := range []string{"official/p1/1.0.0", "official/p2/1.0.0", "official/p3/1.2.0", "team/p4/2.0.0"} {
		h.Write(filepath.Join(plugins, "cache", p, ".claude-plugin", "plugin.json"), "{}\n")
		h.Write(filepath.Join(plugins, "cache", p, "commands", "x.md"), "x\n")
	}
	h.Write(filepath.Join(plugins, "known_marketplaces.json"), "{}\n")
	mkt := filepath.Join(h.Home, "src", "mkt")
	for _, p := range []string{"a", "b", "c"} {
		h.Write(filepath.Join(mkt, "plugins", p, ".claude-plugin", "plugin.json"), "{}\n")
	}
	h.Write(filepath.Join(mkt, ".claude-plugin", "marketplace.json"), "{}\n")
	h.Write(filepath.Join(claude, "settings.json"), `{"extraKnownMarketplaces":{"mkt":{"source":{"source":"directory","path":"`+mkt+`"}}}}`)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	mounts := 0
	for _, line := range strings.Split(dry, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") && !strings.HasPrefix(strings.TrimSpace(line), "-- ") {
			mounts++
		}
	}
	env := map[string][]string{"setup": nil}
	if before := os.Getenv("CLAUDEBOX_BENCH_BEFORE"); before != "" {
		dir := filepath.Join(h.Base, "before")
		os.MkdirAll(dir, 0o755)
		h.CopyFile(before, filepath.Join(dir, "claudebox"), 0o755)
		h.Chown()
		env["before"] = []string{"PATH=" + dir + ":/usr/local/bin:/usr/bin:/bin"}
	}
	took := map[string][]float64{}
	for b.Loop() {
		for name, extra := range env {
			began := time.Now()
			h.Run(proj, extra, "claudebox", "--shell", "-c", "true")
			took[name] = append(took[name], float64(time.Since(began).Microseconds())/1000)
		}
	}
	for name, s := range took {
		slices.Sort(s)
		b.ReportMetric(s[len(s)/2], name+"-ms")
	}
	b.ReportMetric(float64(mounts), "plan-lines")
}
