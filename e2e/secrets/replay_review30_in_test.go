package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview30InURLPathToken: a package registry's token written in
// its URL's path, not its login (Cloudsmith's entitlement tokens:
// https://dl.cloudsmith.io/TOKEN/org/repo/go/, as GOPROXY, pip's
// index-url, uv's index), crossed: the one definition of a credential in a
// URL knew a password and a long user only, so GOPROXY in the host's
// environment and the copies of go env -w's file, pip's and uv's settings
// kept it. The attack, from inside: read the environment and the copies.
// Proof: no such token is readable inside (a copy that may hold one is
// not shown, as one with a password in a URL); a registry's URL whose
// path reads as words (api/go/go-virtual) still crosses.
func TestReplayReview30InURLPathToken(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	tokens := []string{"Zk3wQp9LmT2vXrR30", "8f14e45fceea167aR30", "Yb7nR30Kd2Pq9Wx4"}
	h.Write(filepath.Join(h.Home, ".config", "go", "env"), "GOPROXY=https://dl.cloudsmith.io/"+tokens[1]+"/acme/go/go/,direct\nGOPRIVATE=corp.example.com\n")
	h.Write(filepath.Join(h.Home, ".config", "pip", "pip.conf"), "[global]\nindex-url = https://dl.cloudsmith.io/"+tokens[2]+"/acme/py/python/simple/\nextra-index-url = https://pypi.corp.example.com/repository/python3-v2/simple\ntimeout = 30\n")
	h.Write(filepath.Join(h.Home, ".config", "uv", "uv.toml"), "[[index]]\nurl = \"https://dl.cloudsmith.io/"+tokens[2]+"/acme/py/python/simple/\"\n")
	env := []string{
		"GOPROXY=https://dl.cloudsmith.io/" + tokens[0] + "/acme/go/go/,direct",
		"GONOSUMDB=corp.example.com",
	}
	out := h.Inside(proj, env, "exec 2>&1; env | grep -i '^go'; cat ~/.config/go/env ~/.config/pip/pip.conf ~/.config/uv/uv.toml; true")
	t.Log(out)
	for _, tok := range tokens {
		if strings.Contains(out, tok) {
			t.Errorf("a registry's token in its URL's path, %s, is readable inside", tok)
		}
	}
	if !strings.Contains(out, "GONOSUMDB=corp.example.com") {
		t.Errorf("inside, want GONOSUMDB, known harmless")
	}
	// A URL whose path reads as words crosses.
	out = h.Inside(proj, []string{"GOPROXY=https://goproxy.corp.example.com/api/go/go-virtual,direct"}, "echo GOPROXY=$GOPROXY")
	if !strings.Contains(out, "GOPROXY=https://goproxy.corp.example.com/api/go/go-virtual,direct") {
		t.Errorf("inside, want a registry's URL whose path reads as words:\n%s", out)
	}
}

// TestReplayReview30InReflogToken: git pull https://user:TOKEN@host/repo
// records its command as typed in the project's reflogs (logs/HEAD and
// the branch's log: "pull https://user:TOKEN@…: Fast-forward"), which the
// sandbox saw with the rest of the git directory: a token of the user's
// for the host, not the project's. The attack, from inside: read the
// reflogs and grep the git directory. Proof: the token is nowhere inside;
// the reflog's lines are (the command without it), the launch names the
// copy, git inside still commits (it appends to a private copy), and the
// host's reflog is byte-identical after the session.
func TestReplayReview30InReflogToken(t *testing.T) {
	h := harness.NewHost(t)
	up := filepath.Join(h.Home, "src", "up")
	h.GitRepo(up)
	proj := filepath.Join(h.Home, "work", "app")
	h.Run(h.Home, nil, "git", "clone", "-q", up, proj)
	h.Write(filepath.Join(up, "NEW"), "new\n")
	h.Run(up, nil, "git", "add", "NEW")
	h.Run(up, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "new")
	branch := strings.TrimSpace(h.Run(up, nil, "git", "branch", "--show-current"))
	const token = "R30reflogTok9xQ2"
	h.Run(proj, nil, "git", "pull", "-q", "file://bob:"+token+"@"+up, branch)
	headLog := filepath.Join(proj, ".git", "logs", "HEAD")
	before := harness.Snapshot(headLog)
	if !strings.Contains(before, token) {
		t.Fatalf("the host's git did not record the pull's URL as typed; the attack needs it:\n%s", before)
	}
	if notice := h.InsideStderr(proj, "true"); !strings.Contains(notice, ".git/logs/HEAD") || strings.Contains(notice, token) {
		t.Errorf("the launch should name the reflog's copy, never the token:\n%s", notice)
	}
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/logs/HEAD .git/logs/refs/heads/* .git/FETCH_HEAD; grep -rl "+token+" .git; git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && echo COMMITTED; git reflog -3; true")
	t.Log(out)
	if strings.Contains(out, token) {
		t.Errorf("the token the user typed in git pull's URL is readable inside, in the reflog")
	}
	for _, want := range []string{"pull -q file://", "COMMITTED", "commit: inside"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q", want)
		}
	}
	if after := harness.Snapshot(headLog); after != before {
		t.Errorf("the host's reflog changed:\nbefore %s\nafter %s", before, after)
	}
}

// TestReplayReview30InSkillConfigShortKeyName: a skill's data file is
// shown unless a credential is written in it, and a literal counted as
// one only under a name holding password, secret, token, api_key,
// access_key, private_key or credential: a Jira skill's config.json keeps
// its API token as "key", a database skill's as "pass" or "pwd", and
// each crossed. The attack, from inside: read the skill's files. Proof:
// none of them is readable; the skill's instructions and a data file with
// no credential still are.
func TestReplayReview30InSkillConfigShortKeyName(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "jira")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: jira\ndescription: read Jira issues\n---\nRead config.json, then call the API.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"url": "https://corp.atlassian.net", "email": "alice@example.com", "key": "ATATT3xR30jiraTokenQ"}`+"\n")
	h.Write(filepath.Join(skill, "db.yaml"), "host: db.corp\nuser: app\npwd: R30dbPwd\n")
	h.Write(filepath.Join(skill, "vault.toml"), "[vault]\naddr = \"https://vault.corp\"\npassphrase = \"R30 correct horse\"\n")
	h.Write(filepath.Join(skill, "fields.json"), `{"fields": ["summary", "status"], "keyboard": "us"}`+"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cd ~/.claude/skills/jira && cat SKILL.md config.json db.yaml vault.toml fields.json; true")
	t.Log(out)
	if strings.Contains(out, "R30") {
		t.Errorf("a credential under a short name (key, pwd, passphrase) in a skill's data file is readable inside")
	}
	for _, want := range []string{"Read config.json, then call the API.", `"fields": ["summary", "status"]`} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want the skill's %q, known harmless", want)
		}
	}
}

// TestReplayReview30InGitHookCredential: the repository's hooks are
// shown read-only inside as written, and a hook of the user's may have a
// credential written in it: a post-commit that posts to a Slack webhook,
// a pre-push that exports a GitHub token. The attack, from inside: read
// .git/hooks. Proof: neither credential is readable (each such hook is
// shown empty), a hook with none still is, and the host's hooks are
// byte-identical after the session.
func TestReplayReview30InGitHookCredential(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	hooks := filepath.Join(proj, ".git", "hooks")
	h.Write(filepath.Join(hooks, "post-commit"), "#!/bin/sh\ncurl -s -d '{\"text\":\"committed\"}' https://hooks.slack.com/services/T0R30HOOK/B0R30HOOK/R30hookWebhookSecret\n")
	h.Write(filepath.Join(hooks, "pre-push"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_R30hookTokenabcdefghijklmnopqrstuv\nexec ./scripts/check\n")
	h.Write(filepath.Join(hooks, "commit-msg"), "#!/bin/sh\ngrep -q . \"$1\" # R30-harmless\n")
	for _, name := range []string{"post-commit", "pre-push", "commit-msg"} {
		os.Chmod(filepath.Join(hooks, name), 0o755)
	}
	before := harness.Snapshot(hooks)
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/hooks/post-commit .git/hooks/pre-push .git/hooks/commit-msg; git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && echo COMMITTED; true")
	t.Log(out)
	if strings.Contains(out, "R30hook") {
		t.Errorf("a credential written in a git hook of the user's is readable inside")
	}
	for _, want := range []string{"R30-harmless", "COMMITTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q", want)
		}
	}
	if after := harness.Snapshot(hooks); after != before {
		t.Errorf("the host's hooks changed:\nbefore %s\nafter %s", before, after)
	}
}

// TestReplayReview30InGitDirNotGitsOwn: the git directory is shown whole,
// and what the user or another program keeps there crossed with it: a
// credential helper's store (git config credential.helper 'store --file
// .git/credentials'), a Git client's settings and folder. The attack,
// from inside: read them. Proof: none is readable (each is shown empty),
// git inside still works, and the host's files are byte-identical after
// the session.
func TestReplayReview30InGitDirNotGitsOwn(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "work", "app")
	h.GitRepo(proj)
	git := filepath.Join(proj, ".git")
	h.Write(filepath.Join(git, "credentials"), "https://alice:R30storeTokenQ9@git.example.com\n")
	h.Write(filepath.Join(git, "sourcetreeconfig.json"), `{"remoteToken":"R30clientSettings"}`+"\n")
	h.Write(filepath.Join(git, "gk", "workspace.json"), `{"R30clientFolder":1}`+"\n")
	paths := []string{filepath.Join(git, "credentials"), filepath.Join(git, "sourcetreeconfig.json"), filepath.Join(git, "gk")}
	before := harness.Snapshots(paths)
	out := h.Inside(proj, nil, "exec 2>&1; cat .git/credentials .git/sourcetreeconfig.json .git/gk/*; grep -rl R30 .git; git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m inside && echo COMMITTED; git log --oneline | wc -l; true")
	t.Log(out)
	if strings.Contains(out, "R30") {
		t.Errorf("what the user keeps in the git directory, not git's own, is readable inside")
	}
	if !strings.Contains(out, "COMMITTED") {
		t.Errorf("git inside should still commit")
	}
	harness.CompareSnapshots(t, before)
}
