package hostobeys

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/e2e/harness"

	"github.com/claudebox/claudebox/paths"
)

// TestReplayAuditIgnoredExecutables: what git ignores and the host runs,
// there before the session: an executable (bin/dev), a script run with sh
// (dev.local.sh), and a virtualenv's bin/ (its activate script, sourced,
// and its python, a link). The session rewrites each, or points it at its
// own script: git status is clean, and the exit audit looked at none of
// them. Host-side proof: after the exit, running each runs nothing
// planted, and the exit names them.
func TestReplayAuditIgnoredExecutables(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), "bin/\n*.local.sh\n.venv/\n")
	h.Write(filepath.Join(proj, "bin", "dev"), "#!/bin/sh\necho ok-dev\n")
	harness.Must(t, os.Chmod(filepath.Join(proj, "bin", "dev"), 0o755))
	h.Write(filepath.Join(proj, "dev.local.sh"), "#!/bin/sh\necho ok-local\n")
	h.Write(filepath.Join(proj, ".venv", "pyvenv.cfg"), "home = /usr/bin\n")
	h.Write(filepath.Join(proj, ".venv", "bin", "activate"), "VIRTUAL_ENV=x\n")
	harness.Must(t, os.Symlink("/bin/true", filepath.Join(proj, ".venv", "bin", "python")))
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "git", "add", ".gitignore")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "ignore")
	marker := h.Marker()
	stderr := h.InsideStderr(proj, `
		set -e
		printf '#!/bin/sh\ntouch `+marker+`\n' > bin/dev
		printf '#!/bin/sh\ntouch `+marker+`\n' > dev.local.sh
		echo 'touch `+marker+`' >> .venv/bin/activate
		rm .venv/bin/python
		printf '#!/bin/sh\ntouch `+marker+`\n' > .venv/bin/python
		chmod +x .venv/bin/python
		test -z "$(git status --porcelain)"
	`)
	for _, run := range []string{"bin/dev", "sh dev.local.sh", ". .venv/bin/activate", ".venv/bin/python"} {
		h.Command(proj, nil, "sh", "-c", run).Run()
		if paths.Exists(marker) {
			t.Errorf("the host's %s ran what the session planted:\n%s", run, stderr)
			os.Remove(marker)
		}
	}
	for _, name := range []string{"bin/dev", "dev.local.sh", ".venv/bin/activate", ".venv/bin/python"} {
		if !strings.Contains(stderr, filepath.Join(proj, name)) {
			t.Errorf("the exit does not name %s:\n%s", name, stderr)
		}
	}
}

// TestReplayAuditPipInstall: not an attack but the workflow the audit
// must leave working: pip install -r requirements.txt inside a virtualenv
// the host made (offline: a local wheel with a console script) adds the
// command the project runs. What it installed is moved aside, as a
// package installed into node_modules is. Host-side proof: after the one
// command the exit names, the host runs it. (The session waits for its
// start's snapshot, as a session's first minute does.)
func TestReplayAuditPipInstall(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Fatal("python3 is not installed (.ci/run installs it, with python3-venv)")
	}
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.Write(filepath.Join(proj, ".gitignore"), ".venv/\n")
	wheel := filepath.Join(proj, "localpkg-1.0-py3-none-any.whl")
	if err := os.WriteFile(wheel, localWheel(t), 0o644); err != nil {
		t.Fatal(err)
	}
	h.Write(filepath.Join(proj, "requirements.txt"), "./localpkg-1.0-py3-none-any.whl\n")
	h.Chown()
	h.GitRepo(proj)
	h.Run(proj, nil, "python3", "-m", "venv", ".venv")
	h.Run(proj, nil, "git", "add", ".")
	h.Run(proj, nil, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "wheel")
	session := h.Command(proj, nil, "claudebox", "--shell", "-c", `
		set -e
		i=0
		until [ -e .git/snapshot-taken ]; do
			i=$((i + 1)); [ $i -lt 6000 ] || exit 9
			sleep 0.01
		done
		.venv/bin/pip install -q --no-index --disable-pip-version-check -r requirements.txt
		.venv/bin/localrun`)
	var stdout, stderr bytes.Buffer
	session.Stdout, session.Stderr = &stdout, &stderr
	if err := session.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if m, _ := filepath.Glob(filepath.Join(h.Home, ".claudebox", "undo", "*", "*.snapshot")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the start's snapshot was not written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	harness.Must(t, os.WriteFile(filepath.Join(proj, ".git", "snapshot-taken"), nil, 0o644))
	if err := session.Wait(); err != nil || !strings.Contains(stdout.String(), "ok-run") {
		t.Fatalf("pip install inside: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	_, command, ok := strings.Cut(stderr.String(), "(read git diff first): ")
	if !ok || !strings.Contains(command, "pip install -r requirements.txt") {
		t.Fatalf("the exit does not name the command that installs again what it moved aside:\n%s", stderr.String())
	}
	command, _, _ = strings.Cut(command, "\n")
	h.Run(proj, []string{"PIP_NO_INDEX=1", "PIP_DISABLE_PIP_VERSION_CHECK=1"}, "sh", "-c", command)
	if out := h.Run(proj, nil, ".venv/bin/localrun"); !strings.Contains(out, "ok-run") {
		t.Errorf("the host's .venv/bin/localrun: %s\n%s", out, stderr.String())
	}
}

// localWheel is a wheel of package localpkg, whose console script
// localrun prints ok-run.
func localWheel(t *testing.T) []byte {
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for name, content := range map[string]string{
		"localpkg/__init__.py":                    "def main():\n    print('ok-run')\n",
		"localpkg-1.0.dist-info/METADATA":         "Metadata-Version: 2.1\nName: localpkg\nVersion: 1.0\n",
		"localpkg-1.0.dist-info/WHEEL":            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
		"localpkg-1.0.dist-info/entry_points.txt": "[console_scripts]\nlocalrun = localpkg:main\n",
		"localpkg-1.0.dist-info/RECORD":           "localpkg/__init__.py,,\nlocalpkg-1.0.dist-info/METADATA,,\nlocalpkg-1.0.dist-info/WHEEL,,\nlocalpkg-1.0.dist-info/entry_points.txt,,\nlocalpkg-1.0.dist-info/RECORD,,\n",
	} {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
