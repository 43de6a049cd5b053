package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanObeyedNames: a .env (the host's gemini loads it) written or
// changed at any depth is found, in node_modules with the package that
// holds it (a .gemini/.env there also); one unchanged since the start, and a directory of that name, are
// not, nor what only a tool started at the project's top obeys, in
// node_modules; a snapshot taken without the name is not trusted for it.
func TestScanObeyedNames(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".env", "lib/.env", "web/.env", "conf/.env", "node_modules/kept/.env", "node_modules/pkg/index.js", "node_modules/@s/p/index.js"} {
		write(t, filepath.Join(root, p))
	}
	since := mark(t, t.TempDir())
	obeyed := []string{".env"}
	start := Take(root, since, obeyed, nil)
	unaware := Take(root, since, nil, nil)
	for _, p := range []string{"sub/deep/.env", "web/src/x.go", "node_modules/pkg/.env", "node_modules/@s/p/.gemini/.env", "node_modules/pkg/.envrc", "node_modules/pkg/.claude/settings.json"} {
		write(t, filepath.Join(root, p))
	}
	// Rewritten in place: conf's entries stay the start's.
	for _, p := range []string{"web/.env", "conf/.env"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte("BASH_ENV=x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "venv/.env/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, "conf/.env"), filepath.Join(root, "sub/deep/.env"), filepath.Join(root, "web/.env")}
	// In node_modules, the packages that hold them are set aside whole.
	wantDeps := []string{filepath.Join(root, "node_modules/@s/p"), filepath.Join(root, "node_modules/pkg")}
	for name, s := range map[string]*Snapshot{"snapshot": start, "snapshot without the name": unaware, "no snapshot": nil} {
		r := Scan(root, since, nil, s, obeyed)
		if !slices.Equal(r.Found, want) {
			t.Errorf("%s: found %q, want %q", name, r.Found, want)
		}
		if len(r.Deps) != 1 || !slices.Equal(r.Deps[0].Units, wantDeps) {
			t.Errorf("%s: dependencies %+v, want %q", name, r.Deps, wantDeps)
		}
	}
	if r := Scan(root, since, nil, start, nil); len(r.Found) != 0 {
		t.Errorf("without gemini on the host: found %q", r.Found)
	}
}

// BenchmarkScanNodeModules is the audit at the end of a session, and the
// snapshot at its start, on a project of 20,000 files in 1,000
// directories beside a node_modules of 100,000 files in 10,000, after a
// session that wrote a file in one directory: with gemini on the host (a
// .env is obeyed at any depth, node_modules too) and without.
func BenchmarkScanNodeModules(b *testing.B) {
	root := tree(b, 1000, 20)
	for d := range 10000 {
		dir := filepath.Join(root, "node_modules", fmt.Sprintf("pkg%d", d/10), "lib", fmt.Sprintf("mod%d", d%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 10 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	since := mark(b, b.TempDir())
	for _, c := range []struct {
		name   string
		obeyed []string
	}{{"gemini", []string{".env"}}, {"no-gemini", nil}} {
		start := Take(root, since, c.obeyed, nil)
		write(b, filepath.Join(root, "pkg1", "mod1", "new.go"))
		b.Run("take/"+c.name, func(b *testing.B) {
			for b.Loop() {
				Take(root, since, c.obeyed, nil)
			}
		})
		b.Run("scan/"+c.name, func(b *testing.B) {
			for b.Loop() {
				if r := Scan(root, since, nil, start, c.obeyed); r.NotExamined != nil || r.Found != nil {
					b.Fatal(r)
				}
			}
		})
	}
}

// TestScanDeps: in node_modules, a package whose runner the session
// rewrote in place, one it installed, one it replaced whole, a scope's
// package, a link it added to .bin and one it repointed are set aside
// whole, counted; the packages, links and files it did not touch stay,
// and so does the package manager's own record (.package-lock.json).
func TestScanDeps(t *testing.T) {
	root := t.TempDir()
	nm := filepath.Join(root, "node_modules")
	for _, p := range []string{"kept/index.js", "runner/bin/run.js", "runner/lib/a.js", "@s/old/index.js", "@s/kept/index.js", "replaced/index.js", ".package-lock.json"} {
		write(t, filepath.Join(nm, p))
	}
	must(t, os.MkdirAll(filepath.Join(nm, ".bin"), 0o755))
	must(t, os.Symlink("../runner/bin/run.js", filepath.Join(nm, ".bin", "run")))
	must(t, os.Symlink("../kept/index.js", filepath.Join(nm, ".bin", "kept")))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	must(t, os.WriteFile(filepath.Join(nm, "runner/bin/run.js"), []byte("evil"), 0o644))
	write(t, filepath.Join(nm, "new/index.js"))
	must(t, os.RemoveAll(filepath.Join(nm, "replaced")))
	write(t, filepath.Join(nm, "replaced/index.js"))
	write(t, filepath.Join(nm, "@s/old/extra.js"))
	must(t, os.Symlink("../new/index.js", filepath.Join(nm, ".bin", "new")))
	must(t, os.Remove(filepath.Join(nm, ".bin", "kept")))
	must(t, os.Symlink("../new/index.js", filepath.Join(nm, ".bin", "kept")))
	write(t, filepath.Join(nm, ".package-lock.json"))
	r := Scan(root, since, nil, start, nil)
	var units []string
	for _, u := range []string{".bin/kept", ".bin/new", "@s/old", "new", "replaced", "runner"} {
		units = append(units, filepath.Join(nm, u))
	}
	if len(r.Deps) != 1 || r.Deps[0].Dir != nm || !slices.Equal(r.Deps[0].Units, units) {
		t.Fatalf("dependencies %+v, want %q", r.Deps, units)
	}
	// run.js; new, its index.js; replaced, its index.js; @s/old, extra.js; the two links.
	if r.Deps[0].Files != 9 {
		t.Errorf("%d files counted, want 9", r.Deps[0].Files)
	}
	if r.Found != nil {
		t.Errorf("found %q", r.Found)
	}
}

// TestScanDotenvVariants: a .env's variants (.env.local, .env.production),
// which direnv's dotenv_if_exists, bun, Vite and Next.js load as the
// .env, are judged as it is: one that sets only an application's own
// settings stays, one that sets any other key is a finding; .envrc is no
// variant.
func TestScanDotenvVariants(t *testing.T) {
	root := t.TempDir()
	since := mark(t, t.TempDir())
	obeyed := []string{".env"}
	start := Take(root, since, obeyed, nil)
	for p, content := range map[string]string{
		".env.local":            "PORT=3000\nBASH_ENV=/tmp/x.sh\n",
		"web/.env.production":   "NODE_OPTIONS=--require ./x.js\n",
		".env.development":      "PORT=3000\nVITE_API_URL=http://localhost:3000\n",
		"web/.env.example":      "DATABASE_URL=postgres://localhost/app\n",
		"web/.environment.json": "{}\n",
	} {
		must(t, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
		must(t, os.WriteFile(filepath.Join(root, p), []byte(content), 0o644))
	}
	r := Scan(root, since, nil, start, obeyed)
	want := []string{filepath.Join(root, ".env.local"), filepath.Join(root, "web/.env.production")}
	slices.Sort(r.Found)
	if !slices.Equal(r.Found, want) {
		t.Errorf("found %q, want %q", r.Found, want)
	}
}
