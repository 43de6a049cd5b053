package hardlink

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// pnpmTree lays out packages packages of files files each as pnpm does,
// each file a second name of one in store when linked.
func pnpmTree(b *testing.B, proj, store string, packages, files int, linked bool) {
	b.Helper()
	for i := range packages {
		pkg := filepath.Join(proj, fmt.Sprintf("node_modules/.pnpm/p%d@1.0.0/node_modules/p%d", i, i))
		if err := os.MkdirAll(filepath.Join(pkg, "lib"), 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range files {
			name := "package.json"
			if j > 0 {
				name = fmt.Sprintf("lib/f%d.js", j)
			}
			content := []byte(fmt.Sprintf("%01024d", j))
			if !linked {
				if err := os.WriteFile(filepath.Join(pkg, name), content, 0o644); err != nil {
					b.Fatal(err)
				}
				continue
			}
			src := filepath.Join(store, fmt.Sprintf("%d-%d", i, j))
			if err := os.WriteFile(src, content, 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Link(src, filepath.Join(pkg, name)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkFind is what every launch pays: a 60,000-file tree in 3,000
// directories with no node_modules, virtualenv or repository (and, to
// compare, a walk reading every file's status there); a pnpm
// node_modules of 1,000 packages of 60 files none linked (a launch after
// the copies); a git directory of 5,000 loose objects.
func BenchmarkFind(b *testing.B) {
	tree := b.TempDir()
	for i := range 3000 {
		dir := filepath.Join(tree, fmt.Sprintf("d%d/e%d", i/100, i))
		os.MkdirAll(dir, 0o755)
		for j := range 20 {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.js", j)), nil, 0o644)
		}
	}
	b.Run("tree-60000", func(b *testing.B) {
		for b.Loop() {
			Find(tree, nil, nil)
		}
	})
	// The other way: every file's status read, at every launch.
	b.Run("tree-60000-every-file", func(b *testing.B) {
		for b.Loop() {
			d, _ := openDir(unix.AT_FDCWD, tree)
			(&finder{}).walk(d, "", inPackages, 0)
			unix.Close(d)
		}
	})
	b.Run("pnpm-1000-packages", func(b *testing.B) {
		proj := b.TempDir()
		pnpmTree(b, proj, "", 1000, 60, false)
		for b.Loop() {
			Find(proj, nil, nil)
		}
	})
	b.Run("git-5000-loose-objects", func(b *testing.B) {
		proj := b.TempDir()
		for i := range 5000 {
			dir := filepath.Join(proj, fmt.Sprintf(".git/objects/%02x", i%256))
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%038d", i)), nil, 0o444)
		}
		for b.Loop() {
			Find(proj, nil, nil)
		}
	})
}

// BenchmarkBreak is the first launch after an install: 100 pnpm packages
// of 60 files of 1 KiB, every one linked, found and copied.
func BenchmarkBreak(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		store := filepath.Join(dir, "store")
		os.MkdirAll(store, 0o755)
		pnpmTree(b, filepath.Join(dir, "p"), store, 100, 60, true)
		b.StartTimer()
		if n, _, err := Break(Find(filepath.Join(dir, "p"), nil, nil)); err != nil || n != 6000 {
			b.Fatal(n, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*6000), "ns/file")
}
