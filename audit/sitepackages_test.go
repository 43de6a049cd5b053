package audit

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestScanSitePackages: in a virtualenv's site-packages, a package whose
// module the session rewrote in place goes aside with the distribution's
// record naming it (so that pip installs it again), and so do a .pth file
// and a package it added; a record that cannot be read goes too (which
// package it is cannot be known); the packages and records it did not
// touch stay. Each location is judged as the install command it names.
func TestScanSitePackages(t *testing.T) {
	root := t.TempDir()
	venv := filepath.Join(root, ".venv")
	site := filepath.Join(venv, "lib", "python3.11", "site-packages")
	write(t, filepath.Join(venv, "pyvenv.cfg"))
	for _, p := range []string{"greet/__init__.py", "kept/__init__.py", "solo.py"} {
		write(t, filepath.Join(site, p))
	}
	record := func(dist string, names ...string) {
		var b []byte
		for _, n := range names {
			b = append(b, n+",sha256=x,1\n"...)
		}
		must(t, os.MkdirAll(filepath.Join(site, dist), 0o755))
		must(t, os.WriteFile(filepath.Join(site, dist, "RECORD"), b, 0o644))
	}
	record("greet-1.0.dist-info", "greet/__init__.py", "greet-1.0.dist-info/RECORD")
	record("kept-2.0.dist-info", "kept/__init__.py", "kept-2.0.dist-info/RECORD")
	must(t, os.MkdirAll(filepath.Join(site, "odd-1.0.dist-info"), 0o755))
	must(t, syscall.Mkfifo(filepath.Join(site, "odd-1.0.dist-info", "RECORD"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	must(t, os.WriteFile(filepath.Join(site, "greet/__init__.py"), []byte("evil"), 0o644))
	write(t, filepath.Join(site, "zz.pth"))
	write(t, filepath.Join(site, "new/__init__.py"))
	r := Scan(root, since, nil, start, nil)
	var units []string
	for _, u := range []string{"greet", "greet-1.0.dist-info", "new", "odd-1.0.dist-info", "zz.pth"} {
		units = append(units, filepath.Join(site, u))
	}
	if len(r.Deps) != 1 || r.Deps[0].Dir != site || !slices.Equal(r.Deps[0].Units, units) {
		t.Fatalf("dependencies %+v, want %q", r.Deps, units)
	}
	if where, command := InstallCommand(site); where != root || command != ".venv/bin/pip install <the packages named above>" {
		t.Errorf("install command %q in %s", command, where)
	}
	// Not a virtualenv's: named by its own directory, not three above.
	loose := filepath.Join(root, "vendor", "site-packages")
	if where, command := InstallCommand(loose); where != filepath.Dir(loose) || command != "pip install <the packages named above>" {
		t.Errorf("install command %q in %s for a site-packages of no virtualenv", command, where)
	}
	write(t, filepath.Join(root, "uv.lock"))
	if _, command := InstallCommand(site); command != "uv sync --frozen" {
		t.Errorf("install command beside uv.lock: %q", command)
	}
}
