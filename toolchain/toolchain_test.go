package toolchain

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/paths"
)

// Probe shows each PATH entry under $HOME with what its programs
// run (a version manager's layout, where links and #! lines lead, widened
// to the toolchain's root, of a node or python prefix there only what its
// programs run with: not its etc/npmrc or pip.conf), never a secret or
// what the sandbox can write, and names the entries that cannot work.
func TestProbeToolchains(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	testfs.Tree(t, home,
		".cargo/bin/cargo", ".rustup/toolchains/", ".rustup/settings.toml", ".cargo/credentials.toml",
		".asdf/shims/node", ".asdf/installs/nodejs/20/bin/node", ".asdf/plugins/nodejs/bin/install", ".asdf/token", ".asdf/downloads/x",
		".nvm/versions/node/v20/bin/node",
		".nvm/versions/node/v20/lib/node_modules/npm/package.json",
		".nvm/versions/node/v20/lib/node_modules/npm/bin/npm-cli.js",
		".nvm/versions/node/v20/bin/npm -> ../lib/node_modules/npm/bin/npm-cli.js",
		".nvm/versions/node/v20/etc/npmrc", ".nvm/versions/node/v20/README.md",
		".pyenv/versions/3.12/bin/python3.12", ".pyenv/versions/3.12/lib/python3.12/os.py",
		".pyenv/versions/3.12/lib64 -> lib", ".pyenv/versions/3.12/pip.conf",
		".local/bin/git -> /usr/bin/git",
		".local/bin/aws -> ../../.aws/cli/aws", ".aws/cli/aws",
		"tools/bin/", ".ssh/bin/", "scripts/tool",
		"proj/bin/",
	)
	testfs.Write(t, filepath.Join(home, ".local/bin/tool"), "#!"+filepath.Join(home, ".pyenv/versions/3.12/bin/python3.12")+" -u\nprint()\n")
	testfs.Write(t, filepath.Join(home, ".local/bin/envtool"), "#!/usr/bin/env python3\n")
	testfs.Write(t, filepath.Join(home, ".local/bin/empty"), "#!\n")
	// A PATH entry's own files are programs: what is not executable, or a
	// script with a token written in it, is not shown.
	testfs.Write(t, filepath.Join(home, "scripts/notes.txt"), "db password\n")
	testfs.Write(t, filepath.Join(home, "scripts/deploy"), "#!/bin/sh\nexport GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz\n")
	for _, p := range []string{".cargo/bin/cargo", ".asdf/shims/node", ".local/bin/tool", ".local/bin/envtool", ".local/bin/empty", "scripts/tool", "scripts/deploy"} {
		os.Chmod(filepath.Join(home, p), 0o755)
	}
	if err := os.Symlink("tools/bin", filepath.Join(home, "linkbin")); err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{
		"/usr/bin", "bin", home,
		filepath.Join(home, ".cargo/bin"), filepath.Join(home, ".cargo/bin/"),
		filepath.Join(home, ".asdf/shims"),
		filepath.Join(home, ".nvm/versions/node/v20/bin"),
		filepath.Join(home, ".local/bin"),
		filepath.Join(home, "missing"),
		filepath.Join(home, ".ssh/bin"),
		filepath.Join(home, "proj/bin"),
		filepath.Join(home, "linkbin"),
		filepath.Join(home, "scripts"),
		filepath.Join(home, ".claudebox/bin"),
	}, ":")
	os.MkdirAll(filepath.Join(home, ".claudebox/bin"), 0o755)
	project := instance.Project{Root: proj, Checkout: proj}
	ts, problems, hidden, _, _ := Probe(home, path, project, nil, bind.StateDirs(home, nil), bind.Secrets(home))

	var got []string
	for _, tc := range ts {
		for _, r := range tc.Roots {
			got = append(got, strings.ReplaceAll(tc.Entry+": "+r.Path+" ("+r.Why+")", home, "~"))
		}
	}
	want := []string{
		"~/.cargo/bin: ~/.cargo/bin (on your PATH, read-only)",
		"~/.cargo/bin: ~/.rustup/toolchains (what ~/.cargo/bin runs: rustup's toolchains, read-only)",
		"~/.asdf/shims: ~/.asdf/installs (what ~/.asdf/shims runs: asdf's installs, read-only)",
		"~/.asdf/shims: ~/.asdf/plugins (what ~/.asdf/shims runs: asdf's installs, read-only)",
		"~/.asdf/shims: ~/.asdf/shims (on your PATH, read-only)",
		"~/.nvm/versions/node/v20/bin: ~/.nvm/versions/node/v20 (the toolchain of ~/.nvm/versions/node/v20/bin, on your PATH, read-only)",
		"~/.local/bin: ~/.local/bin (on your PATH, read-only)",
		"~/.local/bin: ~/.pyenv/versions/3.12 (what ~/.local/bin's programs lead to, read-only)",
		"~/linkbin: ~/tools/bin (on your PATH, read-only)",
		"~/scripts: ~/scripts (on your PATH, read-only)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("toolchains\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var gotHidden []string
	for _, p := range hidden {
		gotHidden = append(gotHidden, strings.ReplaceAll(p, home, "~"))
	}
	if want := []string{"~/.asdf/installs/nodejs/20/etc", "~/.nvm/versions/node/v20/etc", "~/.pyenv/versions/3.12/etc", "~/.pyenv/versions/3.12/pip.conf", "~/scripts/deploy", "~/scripts/notes.txt"}; !reflect.DeepEqual(gotHidden, want) {
		t.Errorf("hidden %q, want %q", gotHidden, want)
	}
	var gotProblems []string
	for _, p := range problems {
		gotProblems = append(gotProblems, strings.ReplaceAll(p.Entry+": "+p.Reason, home, "~"))
	}
	wantProblems := []string{
		"~/.local/bin: ~/.aws/cli/aws, which a program there needs, is not shown: it lies in ~/.aws, which the sandbox hides",
		"~/missing: it does not exist",
		"~/.ssh/bin: it lies in ~/.ssh, which the sandbox hides",
		"~/.claudebox/bin: it holds Claude Code's or claudebox's state",
	}
	if !reflect.DeepEqual(gotProblems, wantProblems) {
		t.Errorf("problems\n%s\nwant\n%s", strings.Join(gotProblems, "\n"), strings.Join(wantProblems, "\n"))
	}
}

// toolRoot widens a program to its version directory or npm package, but
// not to a directory directly under $HOME, which holds much else.
func TestToolRoot(t *testing.T) {
	home := t.TempDir()
	testfs.Tree(t, home, "n/lib/node_modules/@scope/pkg/package.json", "n/lib/node_modules/@scope/pkg/dist/cli.js", "n/lib/node_modules/plain/lib/x.js")
	for _, c := range []struct{ path, want string }{
		{"~/.nvm/versions/node/v20/bin/node", "~/.nvm/versions/node/v20"},
		{"~/.local/bin/tool", "~/.local/bin"},
		{"~/n/lib/node_modules/@scope/pkg/dist/cli.js", "~/n/lib/node_modules/@scope/pkg"},
		{"~/n/lib/node_modules/plain/lib/x.js", "~/n/lib/node_modules/plain/lib/x.js"},
		{"~/opt/tool", "~/opt/tool"},
	} {
		if got := toolRoot(home, paths.ExpandHome(c.path, home)); got != paths.ExpandHome(c.want, home) {
			t.Errorf("toolRoot(%s) = %s, want %s", c.path, got, c.want)
		}
	}
}

// Of mise's configuration, a file is copied rebuilt from the keys known
// harmless (the versions, aliases, settings), comments dropped: not its
// [env], tasks, a setting named as a credential, a tool's options, a
// plugin's URL with a user in it; a file that is not TOML not at all.
func TestMiseConfig(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{
			"# note\n[tools]\nnode = \"20\" # token\npython = [\"3.12\", \"3.11\"]\ngo = { version = \"1.22\", install_env = { TOKEN = \"x\" } }\n[settings]\nexperimental = true\njobs = 4\ngithub_token = \"ghp_x\"\nenv_file = \".env prod\"\n[env]\nDEPLOY = \"x\"\n[tasks.deploy]\nrun = \"./deploy\"\n",
			"[settings]\nexperimental = true\njobs = 4\n\n[tools]\ngo = '1.22'\nnode = '20'\npython = ['3.12', '3.11']\n",
		},
		{"[plugins]\nok = \"https://github.com/a/b.git\"\ncorp = \"https://oauth2:x@gitlab.example/p.git\"\n[alias.node]\nlts = \"20\"\n\"# secret\" = \"1\"\n", "[alias]\n[alias.node]\nlts = '20'\n\n[plugins]\nok = 'https://github.com/a/b.git'\n"},
		{"[env]\nDEPLOY = \"x\"\n", ""},
	} {
		got, ok := miseConfig([]byte(c.in))
		if !ok || got != c.want {
			t.Errorf("miseConfig(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
	if _, ok := miseConfig([]byte("[tools\n")); ok {
		t.Error("a file that is not TOML is copied")
	}
}

// Of ~/.tool-versions only `tool version…` lines are copied, comments
// dropped.
func TestToolVersions(t *testing.T) {
	in := "# GITHUB_TOKEN=x\nnodejs 20.1.0 # note\npython 3.12.1 3.11.7\nruby\nweird ver$ion\n  golang   ref:main\n"
	if got, want := toolVersions([]byte(in)), "nodejs 20.1.0\npython 3.12.1 3.11.7\ngolang ref:main\n"; got != want {
		t.Errorf("toolVersions = %q, want %q", got, want)
	}
}

// Of rustup's settings only the toolchains it names are copied, in
// rustup's own form, comments and unknown keys dropped.
func TestRustupSettings(t *testing.T) {
	in := "# token x\nversion = \"12\"\ndefault_toolchain = \"stable\" # note\nprofile = \"minimal\"\nother = \"secret\"\n[overrides]\n\"/w/b\" = \"nightly\"\n\"/w/a\" = \"1.80\"\n\"/w/c d\" = \"stable\"\n"
	want := "version = \"12\"\ndefault_toolchain = \"stable\"\nprofile = \"minimal\"\n\n[overrides]\n\"/w/a\" = \"1.80\"\n\"/w/b\" = \"nightly\"\n"
	if got, ok := rustupSettings([]byte(in)); !ok || got != want {
		t.Errorf("rustupSettings = %q, %v; want %q", got, ok, want)
	}
	if _, ok := rustupSettings([]byte("version = \n")); ok {
		t.Error("a file that is not TOML is copied")
	}
}

// A program on PATH that leads to a FIFO (a session can leave one where
// a link into a project points) is not waited on.
func TestShebangFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "tool")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() { done <- shebang(fifo) }()
	select {
	case got := <-done:
		if got != "" {
			t.Errorf("shebang of a FIFO = %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("shebang waited on a FIFO")
	}
}

// TestNotLayout: of a root a bin/ on PATH widened to, its directories
// (not a dot's), its programs and the files its programs read are its
// layout; the rest (an .env, a configuration, notes, a script with a
// token written in it) is not shown.
func TestNotLayout(t *testing.T) {
	root := t.TempDir()
	for name, content := range map[string]string{
		"bin/deploy": "#!/bin/sh\n", "lib/common.sh": "x\n", "conf/security/java.security": "x\n", "VERSION": "1\n", "go.env": "GOPROXY=x\n",
		"LICENSE.txt": "MIT\n", "install.sh": "#!/bin/sh\n", "push.sh": "#!/bin/sh\nexport GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n",
		".env": "TOKEN=x\n", ".config/app.json": "{}\n", "config.json": "{}\n", "NOTES.md": "x\n", ".git/config": "x\n",
		"config/prod.yaml": "x\n", "etc/npmrc": "x\n", "share/man/x.1": "x\n", "src/go.mod": "x\n",
	} {
		testfs.Write(t, filepath.Join(root, name), content)
	}
	os.Chmod(filepath.Join(root, "install.sh"), 0o755)
	os.Chmod(filepath.Join(root, "push.sh"), 0o755)
	os.Symlink("lib", filepath.Join(root, "lib64"))
	var got []string
	for _, p := range notLayout(root) {
		got = append(got, filepath.Base(p))
	}
	if want := []string{".config", ".env", "NOTES.md", "config", "config.json", "etc", "push.sh"}; !reflect.DeepEqual(got, want) {
		t.Errorf("notLayout = %q, want %q", got, want)
	}
}

// TestNotLayoutRuns: the roots of real toolchains a bin/ on PATH widens
// to (SDKMAN's ~/.sdkman/candidates/java/8.0.402-tem, a Maven, an
// Erlang/OTP built by kerl) keep what their launchers run with: JDK 8's
// java finds its JVM in jre/, mvn its class loader in boot/, erl its
// emulator in erts-VERSION/ and its boot script in releases/.
func TestNotLayoutRuns(t *testing.T) {
	for name, files := range map[string][]string{
		"jdk8":   {"bin/java", "jre/lib/amd64/jvm.cfg", "lib/tools.jar", "release"},
		"maven":  {"bin/mvn", "boot/plexus-classworlds-2.7.0.jar", "conf/settings.xml", "lib/maven-core.jar"},
		"erlang": {"bin/erl", "erts-14.2.1/bin/erlexec", "releases/26/start.boot", "lib/stdlib-5.2/ebin/lists.beam"},
	} {
		root := t.TempDir()
		for _, f := range files {
			testfs.Write(t, filepath.Join(root, f), "x\n")
		}
		if got := notLayout(root); len(got) != 0 {
			t.Errorf("%s: notLayout = %q, want nothing: its launcher runs with all of it", name, got)
		}
	}
}

// TestLayoutCredentials: of a root of one's own a bin/ widened to, a
// file of its layout's directories with a credential written in it, or
// named as credentials are kept, is not shown, nor Python's bytecode of
// such a source or of none; a binary file and one holding none are; a vendor's toolchain (a JDK's release) is not read.
func TestLayoutCredentials(t *testing.T) {
	home := t.TempDir()
	ops := filepath.Join(home, "code", "ops")
	testfs.Write(t, filepath.Join(ops, "lib", "env.sh"), "export DEPLOY_TOKEN=Zk3wQp9LmT2vXr7BQpwZk\n")
	testfs.Write(t, filepath.Join(ops, "lib", "util.sh"), "say() { echo \"$@\"; }\n")
	testfs.Write(t, filepath.Join(ops, "lib", "tool.so"), "\x7fELF\x00password = hunter2\n")
	testfs.Write(t, filepath.Join(ops, "conf", "deep", "prod.ini"), "[db]\npassword = hunter2\n")
	testfs.Write(t, filepath.Join(ops, "share", "deploy.pem"), "")
	testfs.Write(t, filepath.Join(ops, "lib", "settings.py"), "DB_PASSWORD = \"hunter2\"\n")
	testfs.Write(t, filepath.Join(ops, "lib", "__pycache__", "settings.cpython-311.pyc"), "\xa7\r\r\n\x00hunter2")
	testfs.Write(t, filepath.Join(ops, "lib", "__pycache__", "gone.cpython-311.pyc"), "\xa7\r\r\n\x00hunter2")
	testfs.Write(t, filepath.Join(ops, "lib", "util.py"), "NAME = 'x'\n")
	testfs.Write(t, filepath.Join(ops, "lib", "__pycache__", "util.cpython-311.pyc"), "\xa7\r\r\n\x00x")
	got := layoutCredentials(ops)
	want := []string{
		filepath.Join(ops, "conf", "deep", "prod.ini"), filepath.Join(ops, "lib", "__pycache__", "gone.cpython-311.pyc"),
		filepath.Join(ops, "lib", "__pycache__", "settings.cpython-311.pyc"), filepath.Join(ops, "lib", "env.sh"),
		filepath.Join(ops, "lib", "settings.py"), filepath.Join(ops, "share", "deploy.pem"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("layoutCredentials = %q, want %q", got, want)
	}
	jdk := filepath.Join(home, ".jdks", "temurin-21")
	testfs.Write(t, filepath.Join(jdk, "release"), "JAVA_VERSION=\"21.0.2\"\n")
	rust := filepath.Join(home, ".rustup", "toolchains", "stable")
	testfs.Tree(t, rust, "lib/rustlib/src/")
	if VendorToolchain(ops) || !VendorToolchain(jdk) || !VendorToolchain(rust) {
		t.Errorf("vendorToolchain: want a JDK's and Rust's roots only")
	}
	// An opam switch (opam env puts its bin/ on PATH), GHC as ghcup
	// installs it, Flutter: their lib/ or bin/ past maxLayoutFiles were
	// hidden whole, and the toolchain did not run inside.
	opam := filepath.Join(home, ".opam", "default")
	testfs.Tree(t, opam, "lib/ocaml/", "bin/")
	ghc := filepath.Join(home, ".ghcup", "ghc", "9.4.7")
	testfs.Tree(t, ghc, "lib/ghc-9.4.7/lib/package.conf.d/", "bin/")
	flutter := filepath.Join(home, "development", "flutter")
	testfs.Tree(t, flutter, "bin/cache/dart-sdk/lib/", "packages/")
	for _, root := range []string{opam, ghc, flutter} {
		if !VendorToolchain(root) {
			t.Errorf("VendorToolchain(%s) = false, want a vendor's toolchain", root)
		}
	}
}

// TestNotProgramsScriptWithoutShebang: an executable of text with no #!
// line, which a shell runs as a script, is judged as a script is: with a
// credential written in it, it is no program shown; without, it is; a
// binary one is shown unread.
func TestNotProgramsScriptWithoutShebang(t *testing.T) {
	bin := t.TempDir()
	for name, content := range map[string]string{
		"deploy": "export DEPLOY_TOKEN=Zk3wQp9LmT2vXr7BQpwZk\n",
		"greet":  "echo hello\n",
		"tool":   "\x7fELF\x02\x01\x01\x00export DEPLOY_TOKEN=Zk3wQp9LmT2vXr7BQpwZk\n",
	} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := NotPrograms(bin), []string{filepath.Join(bin, "deploy")}; !reflect.DeepEqual(got, want) {
		t.Errorf("NotPrograms = %q, want %q", got, want)
	}
}

// TestActivationSecrets: of a prefix's bin/ (a virtualenv's), a script
// with a credential written in it, executable or not (bin/activate with
// an export appended, virtualenvwrapper's postactivate), is left out; a
// clean activate, a console script and python are not.
func TestActivationSecrets(t *testing.T) {
	venv := filepath.Join(t.TempDir(), "app")
	testfs.Write(t, filepath.Join(venv, "pyvenv.cfg"), "home = /usr/bin\n")
	testfs.Write(t, filepath.Join(venv, "bin", "activate"), "deactivate () { :; }\nexport VIRTUAL_ENV=/x\nexport SECRET_KEY='Zk3wQp9L'\n")
	testfs.Write(t, filepath.Join(venv, "bin", "activate.fish"), "set -gx VIRTUAL_ENV /x\n")
	testfs.Write(t, filepath.Join(venv, "bin", "postactivate"), "#!/bin/bash\nexport AWS_SECRET_ACCESS_KEY=Zk3wQp9LmT2vXr7B\n")
	testfs.Write(t, filepath.Join(venv, "bin", "hello"), "#!/x/bin/python\nprint('hi')\n")
	testfs.Write(t, filepath.Join(venv, "lib", "python3.11", "site-packages", "x.py"), "")
	got := notRun(venv)
	want := []string{filepath.Join(venv, "etc"), filepath.Join(venv, "bin", "activate"), filepath.Join(venv, "bin", "postactivate")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("notRun = %q, want %q", got, want)
	}
}
