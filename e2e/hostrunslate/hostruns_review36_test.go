package hostrunslate

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview36HookOfRepositoryConfig: the exit asked a git hook
// of the project's repository whether it names an ignored file only in
// .git/hooks, .githooks, .husky and the core.hooksPath .git/config itself
// names. A hooks path set in a file .git/config includes (a tracked
// .gitconfig a repository's setup has each clone include), and the hooks
// of a linked worktree's repository (its common git directory's hooks/,
// outside the checkout, run from the worktree's top), were not asked: a
// pre-commit hook there running sh tools/check, tools/ ignored, ran the
// session's tools/check at the host's git commit, git status showing
// nothing. Host-side proof: the host's git commit runs nothing planted.
func TestReplayReview36HookOfRepositoryConfig(t *testing.T) {
	commit := []string{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "x"}
	for _, name := range []string{"included hooks path", "linked worktree"} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			repo := filepath.Join(h.Home, "code", "hooked")
			h.GitRepo(repo)
			h.Write(filepath.Join(repo, ".gitignore"), "/tools/\n")
			hook := filepath.Join(repo, ".git", "hooks", "pre-commit")
			if name == "included hooks path" {
				h.Write(filepath.Join(repo, ".gitconfig"), "[core]\n\thooksPath = scripts/git\n")
				hook = filepath.Join(repo, "scripts", "git", "pre-commit")
				h.Run(repo, nil, "git", "config", "include.path", "../.gitconfig")
			}
			h.Write(hook, "#!/bin/sh\nsh tools/check\n")
			harness.Must(t, os.Chmod(hook, 0o755))
			h.Run(repo, nil, "git", "add", ".")
			h.Run(repo, nil, "git", append(commit[:4:4], "commit", "--no-verify", "-qm", "setup")...)
			proj := repo
			if name == "linked worktree" {
				proj = filepath.Join(h.Home, "code", "hooked-feature")
				h.Run(repo, nil, "git", "worktree", "add", "-q", "-b", "feature", proj)
			}
			out := harness.PlantUnseen(t, h, proj, "ignored script a hook runs", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/check`)
			if !strings.Contains(h.Run(proj, nil, "git", "check-ignore", "tools/check"), "tools/check") {
				t.Fatalf("tools/check is not ignored: the test proves nothing")
			}
			h.RunsNothingPlanted(out, proj, nil, "git", commit...)
		})
	}
}

// TestReplayReview36ScriptNamedByReadFile: a task file that runs a
// script by a name it reads from a file of the project at run time
// (make's NAME := $(shell cat .name), an npm script's sh $(cat .name),
// .name tracked and holding tools/gen) spells the name nowhere: the exit
// asked the task file's own words, and the tools/gen the session made
// where git ignores it (no #! line, extension or execute bit) stayed, git
// status showing nothing. Host-side proof: the host's make gen and npm
// run gen run nothing planted.
func TestReplayReview36ScriptNamedByReadFile(t *testing.T) {
	for name, c := range map[string]struct {
		tool, file, text string
		run              []string
	}{
		"make": {tool: "make", file: "Makefile", text: "NAME := $(shell cat .name)\ngen:\n\tsh $(NAME)\n", run: []string{"make", "gen"}},
		"npm":  {tool: "npm", file: "package.json", text: `{"name":"x","version":"1.0.0","scripts":{"gen":"sh $(cat < .name)"}}` + "\n", run: []string{"npm", "run", "gen"}},
	} {
		t.Run(name, func(t *testing.T) {
			harness.RequireTool(t, c.tool, "apt-get install "+c.tool)
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "named")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/tools/\n")
			h.Write(filepath.Join(proj, ".name"), "tools/gen\n")
			h.Write(filepath.Join(proj, c.file), c.text)
			harness.CommitAll(h, proj, "tasks")
			out := harness.PlantUnseen(t, h, proj, "script named by a file's content", `sleep 2; mkdir -p tools && echo 'touch `+h.Marker()+`' > tools/gen`)
			h.RunsNothingPlanted(out, proj, nil, c.run[0], c.run[1:]...)
		})
	}
}

// TestReplayReview36GitDriverImportsFromTop: nbstripout --install (the
// repository's, or --global the user's) has git clean and diff every
// notebook through "python3 -m nbstripout", which git runs at the work
// tree's top: python3 -m puts that directory first on its path, so a
// nbstripout.py there is what it runs. The exit left a module the session
// made at the top, untracked, to git status to name: the host's git
// status (a notebook's time changed) and git diff, the commands that
// would have named it, ran it first. Host-side proof: the host's git
// status and git diff run nothing planted.
func TestReplayReview36GitDriverImportsFromTop(t *testing.T) {
	harness.RequireTool(t, "python3", "apt-get install python3")
	const passThrough = "import sys\nsys.stdout.write(sys.stdin.read())\n"
	for _, where := range []string{"repository", "global", "submodule"} {
		t.Run(where, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "notebooks")
			h.GitRepo(proj)
			// nbstripout, installed for the user.
			site := strings.TrimSpace(h.Run(proj, nil, "python3", "-c", "import site; print(site.getusersitepackages())"))
			h.Write(filepath.Join(site, "nbstripout.py"), passThrough)
			// A submodule's git status, which the top's runs, runs its
			// filters from the submodule's top: the session, at the
			// project's, writes there.
			top := proj
			if where == "submodule" {
				up := filepath.Join(h.Home, "code", "notes-up")
				h.GitRepo(up)
				h.Write(filepath.Join(up, "analysis.ipynb"), "{}\n")
				harness.CommitAll(h, up, "notebook")
				h.Run(proj, nil, "git", "-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "notes")
				top = filepath.Join(proj, "notes")
			} else {
				h.Write(filepath.Join(proj, "analysis.ipynb"), "{}\n")
			}
			harness.CommitAll(h, proj, "notebook")
			config := "[filter \"nbstripout\"]\n\tclean = \\\"python3\\\" -m nbstripout\n\tsmudge = cat\n[diff \"ipynb\"]\n\ttextconv = \\\"python3\\\" -m nbstripout -t\n"
			attributes := "*.ipynb filter=nbstripout diff=ipynb\n"
			if where == "repository" {
				f, err := os.OpenFile(filepath.Join(proj, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
				harness.Must(t, err)
				_, err = f.WriteString(config)
				harness.Must(t, err)
				f.Close()
				h.Write(filepath.Join(proj, ".git", "info", "attributes"), attributes)
			} else {
				h.Write(filepath.Join(h.Home, ".gitconfig"), config)
				h.Write(filepath.Join(h.Home, ".config", "git", "attributes"), attributes)
			}
			h.Run(proj, nil, "git", "status")
			cd := ""
			if top != proj {
				cd = "cd notes && "
			}
			out := h.Plant(proj, "a module at the top", `sleep 2; `+cd+`printf 'open("`+h.Marker()+`", "w")\n`+strings.ReplaceAll(passThrough, "\n", `\n`)+`' > nbstripout.py && touch analysis.ipynb`)
			h.RunsNothingPlanted(out, proj, nil, "git", "status")
			h.Write(filepath.Join(top, "analysis.ipynb"), "{\"cells\": []}\n")
			h.RunsNothingPlanted(out, top, nil, "git", "diff")
		})
	}
}

// TestReplayReview36GitConfigRunsIgnoredScript: a command the
// repository's git configuration names runs from the work tree's top,
// as a hook does: an alias (!sh tools/lint), a clean filter (sh
// tools/clean, which git status runs on a notebook whose time changed).
// The exit asked hooks and task files whether they name an ignored file,
// not git's configuration: the tools/ script the session made there (no
// #!, extension or execute bit) stayed, and the host's git lint and git
// status ran it. Host-side proof: they run nothing planted.
func TestReplayReview36GitConfigRunsIgnoredScript(t *testing.T) {
	for name, c := range map[string]struct {
		config []string
		script string
		run    []string
	}{
		"alias":  {config: []string{"alias.lint", "!sh tools/lint"}, script: "tools/lint", run: []string{"lint"}},
		"filter": {config: []string{"filter.strip.clean", "sh tools/clean"}, script: "tools/clean", run: []string{"status"}},
	} {
		t.Run(name, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "configured")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, ".gitignore"), "/tools/\n")
			h.Write(filepath.Join(proj, "analysis.ipynb"), "{}\n")
			harness.CommitAll(h, proj, "setup")
			h.Run(proj, nil, "git", append([]string{"config"}, c.config...)...)
			h.Write(filepath.Join(proj, ".git", "info", "attributes"), "*.ipynb filter=strip\n")
			out := harness.PlantUnseen(t, h, proj, "ignored script git's configuration runs", `sleep 2; mkdir -p tools && printf 'touch `+h.Marker()+`\ncat\n' > `+c.script+` && touch analysis.ipynb`)
			h.RunsNothingPlanted(out, proj, nil, "git", c.run...)
		})
	}
}

// npmTarball is a package's tarball as a registry serves it, whose
// preinstall script runs script.
func npmTarball(t *testing.T, name, version, script string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for file, text := range map[string]string{
		"package/package.json": `{"name":"` + name + `","version":"` + version + `","scripts":{"preinstall":"` + script + `"}}`,
		"package/index.js":     "module.exports = 1\n",
	} {
		harness.Must(t, tw.WriteHeader(&tar.Header{Name: file, Mode: 0o644, Size: int64(len(text))}))
		_, err := tw.Write([]byte(text))
		harness.Must(t, err)
	}
	harness.Must(t, tw.Close())
	harness.Must(t, gz.Close())
	return buf.Bytes()
}

// TestReplayReview36IgnoredLockfile: a library's repository often has git
// ignore its lockfile (package-lock.json). The exit judged what the
// session installed in node_modules, and names npm ci to install it again
// "from the lockfile", but not the lockfile itself: one the session wrote,
// whose package resolves to a tarball of its choosing (with that
// tarball's integrity), stayed, git status showing nothing, and the
// host's npm ci installed that package and ran its install script.
// Host-side proof: the host's npm ci runs nothing planted (the tarball is
// served on the host's loopback, as any server the session names would
// serve it).
func TestReplayReview36IgnoredLockfile(t *testing.T) {
	harness.RequireTool(t, "npm", "apt-get install npm")
	h := harness.NewHost(t)
	tarball := npmTarball(t, "left-pad", "1.3.0", "touch "+h.Marker())
	sum := sha512.Sum512(tarball)
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(tarball) }))
	t.Cleanup(server.Close)
	proj := filepath.Join(h.Home, "code", "library")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "node_modules/\npackage-lock.json\n")
	h.Write(filepath.Join(proj, "package.json"), `{"name":"library","version":"1.0.0","dependencies":{"left-pad":"^1.3.0"}}`+"\n")
	harness.CommitAll(h, proj, "library")
	lock := `{"name":"library","version":"1.0.0","lockfileVersion":3,"requires":true,"packages":{` +
		`"":{"name":"library","version":"1.0.0","dependencies":{"left-pad":"^1.3.0"}},` +
		`"node_modules/left-pad":{"version":"1.3.0","resolved":"` + server.URL + `/left-pad-1.3.0.tgz","integrity":"sha512-` + base64.StdEncoding.EncodeToString(sum[:]) + `","hasInstallScript":true}}}`
	out := harness.PlantUnseen(t, h, proj, "lockfile", "sleep 2; echo '"+lock+"' > package-lock.json")
	npm := []string{"npm_config_audit=false", "npm_config_fund=false", "npm_config_update_notifier=false"}
	h.RunsNothingPlanted(out, proj, npm, "npm", "ci")
}

// TestReplayReview36GitConfigRunsTrackedScript: a filter of the
// repository's git configuration, or of the user's, runs a script the
// repository tracks (sh tools/strip.sh, as a project's setup has each
// clone configure its notebook filter), which git status runs on a
// notebook whose time changed. The script was the sandbox's to edit, as
// any tracked file: the session's edit showed in git status, which ran it
// first. Host-side proof: the host's git status runs nothing planted, and
// the sandbox could not write the script.
func TestReplayReview36GitConfigRunsTrackedScript(t *testing.T) {
	for _, where := range []string{"repository", "global"} {
		t.Run(where, func(t *testing.T) {
			h := harness.NewHost(t)
			proj := filepath.Join(h.Home, "code", "filtered")
			h.GitRepo(proj)
			h.Write(filepath.Join(proj, "tools", "strip.sh"), "cat\n")
			h.Write(filepath.Join(proj, "analysis.ipynb"), "{}\n")
			harness.CommitAll(h, proj, "setup")
			if where == "repository" {
				h.Run(proj, nil, "git", "config", "filter.strip.clean", "sh tools/strip.sh")
				h.Write(filepath.Join(proj, ".git", "info", "attributes"), "*.ipynb filter=strip\n")
			} else {
				h.Write(filepath.Join(h.Home, ".gitconfig"), "[filter \"strip\"]\n\tclean = sh tools/strip.sh\n")
				h.Write(filepath.Join(h.Home, ".config", "git", "attributes"), "*.ipynb filter=strip\n")
			}
			out := h.InsideStderr(proj, `sleep 2; printf 'touch `+h.Marker()+`\ncat\n' > tools/strip.sh || echo REFUSED >&2; touch analysis.ipynb`)
			h.RunsNothingPlanted(out, proj, nil, "git", "status")
			if !strings.Contains(out, "REFUSED") {
				t.Errorf("the sandbox wrote tools/strip.sh, which git's filter runs:\n%s", out)
			}
		})
	}
}
