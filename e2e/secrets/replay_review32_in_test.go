package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview32InReflogURLPathToken: a reflog's copy took a URL's
// user and password out of git's record of a command, not a token in
// its path: git clone and git pull of https://host/TOKEN/repo.git (a
// registry that takes its token in the path) wrote it into logs/HEAD and
// the branch's log, git fetch into FETCH_HEAD, and the clone kept it in
// the remote's URL, whose copy in .git/config kept the path as written:
// the sandbox read all four. The attack, from inside: read them, git
// remote -v. Proof: the token is nowhere inside; a pull whose URL's path
// reads as words is still shown as git wrote it; the host's logs are
// byte-identical after the session.
func TestReplayReview32InReflogURLPathToken(t *testing.T) {
	h := harness.NewHost(t)
	// The upstream lies where its URL's path leads once git rewrites it
	// (insteadOf), so that the URL typed is a registry's: one under a
	// token, one under words.
	srv := filepath.Join(h.Base, "srv")
	secret := filepath.Join(srv, "R32pathZk3wQp9LmT2v", "up.git")
	plain := filepath.Join(srv, "acme", "plain.git")
	h.GitRepo(secret)
	branch := strings.TrimSpace(h.Run(secret, nil, "git", "branch", "--show-current"))
	h.Run(h.Home, nil, "git", "clone", "-q", "--bare", secret, plain)
	commit := func(name string) {
		h.Write(filepath.Join(secret, name), name+"\n")
		h.Run(secret, nil, "git", "add", name)
		h.Run(secret, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", name)
	}
	rewrite := []string{"-c", "url.file://" + srv + "/.insteadOf=https://registry.example.com/"}
	proj := filepath.Join(h.Home, "work", "app")
	h.Run(h.Home, nil, "git", append(rewrite, "clone", "-q", "https://registry.example.com/R32pathZk3wQp9LmT2v/up.git", proj)...)
	commit("NEW")
	h.Run(secret, nil, "git", "push", "-q", plain, branch)
	h.Run(proj, nil, "git", append(rewrite, "pull", "-q", "--ff-only", "https://registry.example.com/acme/plain.git", branch)...)
	commit("NEWER")
	h.Run(proj, nil, "git", append(rewrite, "pull", "-q", "--ff-only", "https://registry.example.com/R32pathZk3wQp9LmT2v/up.git", branch)...)
	h.Run(proj, nil, "git", append(rewrite, "fetch", "-q", "https://registry.example.com/R32pathZk3wQp9LmT2v/up.git", branch)...)
	git := filepath.Join(proj, ".git")
	host := h.Run(proj, nil, "sh", "-c", "cat .git/logs/HEAD .git/logs/refs/heads/* .git/FETCH_HEAD")
	if strings.Count(host, "R32path") < 3 {
		t.Fatalf("git did not record the URL's path as the test expects, it proves nothing:\n%s", host)
	}
	before := harness.Snapshots([]string{filepath.Join(git, "logs"), filepath.Join(git, "FETCH_HEAD")})
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/logs/HEAD .git/logs/refs/heads/* .git/FETCH_HEAD .git/config; git log -g --format=%gs HEAD; git remote -v; true")
	t.Log(out)
	if strings.Contains(out, "R32path") {
		t.Errorf("a token in a URL's path in a reflog, FETCH_HEAD or a remote's URL is readable inside")
	}
	if !strings.Contains(out, "pull -q --ff-only https://registry.example.com/acme/plain.git") {
		t.Errorf("inside, want the pull whose URL's path reads as words as git wrote it")
	}
	harness.CompareSnapshots(t, before)
}

// TestReplayReview32InGitInfoAndWorktreeTops: of a git directory's top
// only git's own entries crossed, but below it info/ and each linked
// worktree's folder in worktrees/ (and that folder's own top) were not
// judged: a credential store a user keeps there (credential.helper
// 'store --file .git/info/credentials', a note beside a worktree's
// gitdir) was readable. The attack, from inside: read them. Proof: the
// tokens are nowhere inside; info's exclude and the linked worktree's own
// files are still shown; the host's files are byte-identical after.
func TestReplayReview32InGitInfoAndWorktreeTops(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "worktree", "add", "-q", "-b", "feature", filepath.Join(h.Home, "work", "feature"))
	git := filepath.Join(proj, ".git")
	h.Write(filepath.Join(git, "info", "exclude"), "# R32-harmless-exclude\n*.log\n")
	h.Write(filepath.Join(git, "info", "credentials"), "https://alice:R32infoTok@git.example.com\n")
	h.Write(filepath.Join(git, "info", "deploy", "token"), "R32infoDirTok\n")
	h.Write(filepath.Join(git, "worktrees", "feature", "credentials"), "https://alice:R32wtTok@git.example.com\n")
	h.Write(filepath.Join(git, "worktrees", "notes.txt"), "R32wtTopTok\n")
	before := harness.Snapshots([]string{filepath.Join(git, "info"), filepath.Join(git, "worktrees")})
	out := h.Inside(proj, nil, "exec 2>&1; grep -r . .git/info .git/worktrees; true")
	t.Log(out)
	if strings.Contains(out, "Tok") {
		t.Errorf("a file that is not git's own in info/ or worktrees/ is readable inside")
	}
	for _, want := range []string{"R32-harmless-exclude", "worktrees/feature/gitdir:", "worktrees/feature/HEAD:"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q shown", want)
		}
	}
	harness.CompareSnapshots(t, before)
}

// TestReplayReview32InGitConfigSubsectionURLPath: of your git
// configuration a variable's value was judged for a token in a URL's
// path, not its name: a registry's token in the URL a url.<base>.insteadOf
// or an http.<url>.* names (url."https://host/TOKEN/".insteadOf) crossed.
// The attack, from inside: read the copy. Proof: the token is nowhere
// inside, nor in --dry-run, which names what it left out; an insteadOf
// whose URL reads as words is still shown.
func TestReplayReview32InGitConfigSubsectionURLPath(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n[url \"https://git.example.com/R32keyZk3wQp9LmT2v/acme/\"]\n\tinsteadOf = https://git.example.com/acme/\n"+
		"[http \"https://git.example.com/R32httpZk3wQp9LmT2v/\"]\n\tsslVerify = true\n[url \"https://mirror.example.com/acme/\"]\n\tinsteadOf = https://R32-harmless.example.com/\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.gitconfig; git config --global -l; true")
	t.Log(out)
	if strings.Contains(out, "Zk3wQp9LmT2v") {
		t.Errorf("a token in a URL's path named in your git configuration is readable inside")
	}
	if !strings.Contains(out, "R32-harmless") {
		t.Errorf("inside, want the insteadOf whose URL reads as words")
	}
	dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell")
	if strings.Contains(dry, "Zk3wQp9LmT2v") || !strings.Contains(dry, "url.") {
		t.Errorf("--dry-run names the token, or not the variables left out:\n%s", dry)
	}
}

// TestReplayReview32InBunGlobalDir: a PATH entry ~/.bun/bin brought its
// global install's directory whole (~/.bun/install/global), where bun add
// -g runs and reads a project's settings: a bunfig.toml or .npmrc with a
// registry's token, an .env, kept there, crossed. The attack, from
// inside: read them. Proof: none is readable inside; a global package's
// program still runs.
func TestReplayReview32InBunGlobalDir(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	global := filepath.Join(h.Home, ".bun", "install", "global")
	h.Write(filepath.Join(global, "bunfig.toml"), "[install.registry]\nurl = \"https://npm.example.com/\"\ntoken = \"R32bunfigTok\"\n")
	h.Write(filepath.Join(global, ".npmrc"), "//npm.example.com/:_authToken=R32bunNpmrcTok\n")
	h.Write(filepath.Join(global, ".env"), "NPM_TOKEN=R32bunEnvTok\n")
	h.Write(filepath.Join(global, "package.json"), `{"dependencies":{"hello":"1.0.0"}}`+"\n")
	h.Write(filepath.Join(global, "node_modules", "hello", "cli.sh"), "#!/bin/sh\necho R32-harmless-global-program\n")
	os.Chmod(filepath.Join(global, "node_modules", "hello", "cli.sh"), 0o755)
	bin := filepath.Join(h.Home, ".bun", "bin")
	os.MkdirAll(bin, 0o755)
	os.Symlink("../install/global/node_modules/hello/cli.sh", filepath.Join(bin, "hello"))
	h.Chown()
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/.bun/install/global/bunfig.toml ~/.bun/install/global/.npmrc ~/.bun/install/global/.env; hello; true")
	t.Log(out)
	if strings.Contains(out, "Tok") {
		t.Errorf("a token kept in bun's global install directory is readable inside")
	}
	if !strings.Contains(out, "R32-harmless-global-program") {
		t.Errorf("inside, want the global package's program to run")
	}
}

// TestReplayReview32InClaudeMemoryToken: of ~/.claude's Markdown, what
// CLAUDE.md imports, its rules and loop.md were judged for a credential,
// not CLAUDE.md itself, where /memory and a # note save what you tell
// Claude to remember: a bearer token written there crossed. The attack,
// from inside: read it. Proof: the token is not readable inside and
// --dry-run names the file; a memory with none is still shown.
func TestReplayReview32InClaudeMemoryToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	memory := filepath.Join(h.Home, ".claude", "CLAUDE.md")
	h.Write(memory, "# Memory\n- staging status: curl -H 'Authorization: Bearer R32memoryTokZk3wQp9LmT2vAbc' https://staging.example.com/status\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md; true")
	t.Log(out)
	if strings.Contains(out, "R32memoryTok") {
		t.Errorf("a token in your CLAUDE.md is readable inside")
	}
	if dry := h.Run(proj, nil, "claudebox", "--dry-run", "--shell"); !strings.Contains(dry, "~/.claude/CLAUDE.md (") || strings.Contains(dry, "R32memoryTok") {
		t.Errorf("--dry-run does not name ~/.claude/CLAUDE.md as left out, or names its token:\n%s", dry)
	}
	h.Write(memory, "# Memory\n- R32-harmless-memory: run the tests with make check\n")
	if out := h.Inside(proj, nil, "cat ~/.claude/CLAUDE.md"); !strings.Contains(out, "R32-harmless-memory") {
		t.Errorf("inside, want your CLAUDE.md with no credential:\n%s", out)
	}
}

// TestReplayReview32InAgentInstructionsToken: of Codex's and Gemini CLI's
// configuration directories, your instructions (AGENTS.md, GEMINI.md) and
// the context files Gemini's settings name crossed as written, and so
// did the files shown beside them (AGENTS.override.md when AGENTS.md is
// read): a token in a curl you noted there was readable, and Codex sent
// it on in its prompt. The attack, from inside: read them. Proof: no
// token is inside, the rollout holds none; GEMINI.md with none is shown.
func TestReplayReview32InAgentInstructionsToken(t *testing.T) {
	harness.RequireAgent(t, "codex", "@openai/codex")
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	const note = "staging: curl -H 'Authorization: Bearer R32agentTokZk3wQp9LmT2v"
	h.Write(filepath.Join(h.Home, ".codex", "auth.json"), `{"OPENAI_API_KEY":"sk-real-codex-key-0123456789"}`+"\n")
	h.Write(filepath.Join(h.Home, ".codex", "AGENTS.md"), note+"1' https://staging.example.com\n")
	h.Write(filepath.Join(h.Home, ".gemini", "settings.json"), `{"context":{"fileName":["GEMINI.md","NOTES.md"]}}`+"\n")
	h.Write(filepath.Join(h.Home, ".gemini", "GEMINI.md"), "R32-harmless-instructions\n")
	h.Write(filepath.Join(h.Home, ".gemini", "NOTES.md"), note+"2' https://staging.example.com\n")
	for _, run := range []struct {
		agent, header, dir string
		env                []string
		args               []string
		want               string
	}{
		{"codex", "Authorization", ".codex", []string{"OPENAI_BASE_URL="}, []string{"exec", "--skip-git-repo-check", "say pong"}, "PONG-CODEX"},
		{"gemini", "X-Goog-Api-Key", ".gemini", []string{"GOOGLE_GEMINI_BASE_URL=", "GEMINI_API_KEY=AIzaR32FakeKeyForTheTest"}, []string{"--skip-trust", "-p", "say pong"}, "PONG-GEMINI"},
	} {
		mark := harness.TestMark(t)
		f := harness.StartAgentAPI(t, run.header, harness.LookInside(filepath.Join(h.Home, run.dir), mark))
		env := append([]string{harness.NoResolve}, run.env...)
		env[1] += f.URL
		if run.agent == "codex" {
			env[1] += "/v1"
		}
		out := h.Run(proj, env, "claudebox", append([]string{"--env", mark, "--agent", run.agent}, run.args...)...)
		if !strings.Contains(out, run.want) {
			t.Fatalf("%s did not answer: %s", run.agent, out)
		}
		shown := false
		for _, v := range f.Inside() {
			for path, content := range v.Files {
				if strings.Contains(content, "R32agentTok") {
					t.Errorf("%s: a token in your instructions is readable inside, in %s", run.agent, path)
				}
				shown = shown || strings.Contains(content, "R32-harmless-instructions")
			}
		}
		if run.agent == "gemini" && !shown {
			t.Errorf("inside, want GEMINI.md with no credential")
		}
	}
	if rollouts := h.Run(proj, nil, "sh", "-c", "cat ~/.claudebox/projects/*/agents/codex/sessions/*/*/*/*"); strings.Contains(rollouts, "R32agentTok") || rollouts == "" {
		t.Errorf("Codex's rollout holds the token, or there is none")
	}
}

// TestReplayReview32InMarketplaceURLToken: of plugins/'s lists, the copy
// took a URL's user and password out, not a token in its query or path:
// a private marketplace added by the raw file's URL
// (?private_token=…) or a clone's URL under a token, as
// known_marketplaces.json records them, crossed. The attack, from
// inside: read the list. Proof: neither token is inside; the
// marketplaces are still listed.
func TestReplayReview32InMarketplaceURLToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(h.Home, ".claude", "plugins", "known_marketplaces.json"), `{"corp":{"source":{"source":"url","url":"https://git.example.com/api/v4/projects/1/repository/files/marketplace.json/raw?ref=main&private_token=R32queryTokAbcdefghij"},"installLocation":"/x"},`+
		`"R32-harmless-marketplace":{"source":{"source":"git","url":"https://git.example.com/R32pathTokZk3wQp9LmT2v/plugins.git"},"installLocation":"/y"}}`)
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/plugins/known_marketplaces.json; true")
	t.Log(out)
	if strings.Contains(out, "R32queryTok") || strings.Contains(out, "R32pathTok") {
		t.Errorf("a token in a marketplace's URL's query or path is readable inside")
	}
	if !strings.Contains(out, "R32-harmless-marketplace") || !strings.Contains(out, "https://git.example.com/api/v4/projects/1/repository/files/marketplace.json/raw") {
		t.Errorf("inside, want the marketplaces listed, their URLs without the tokens")
	}
}
