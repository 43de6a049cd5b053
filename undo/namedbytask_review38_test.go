package undo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// uniqueWords is about size bytes of words no two alike, each naming no
// file: what costs the most to index.
func uniqueWords(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size-16; i++ {
		fmt.Fprintf(&b, "w%07d ", i)
	}
	return b.String()
}

// linkMany writes text at base/name and links it at each of names: a
// session's thousand files of 1 MiB cost it 1 MiB of disk.
func linkMany(t *testing.T, base, name, text string, names []string) {
	t.Helper()
	writeTree(t, base, map[string]string{name: text})
	for _, n := range names {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(base, n)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(base, name), filepath.Join(base, n)); err != nil {
			t.Fatal(err)
		}
	}
}

// What a task file is read for beyond its own text, the files it reads
// names from and those it names, is bounded in all (maxNamedText), past
// which it names every file below it: a session's makefile naming 256
// files of 1 MiB (links to one), each in its own folder, held the exit
// for minutes and gigabytes (follow read all of them, and took each
// word twice), one reading 64 such files by cat read 64 MiB.
func TestNamedFilesReadBounded(t *testing.T) {
	checkout := t.TempDir()
	var names []string
	var runs, cats strings.Builder
	for i := range 16 {
		names = append(names, fmt.Sprintf("d%02d/f", i), fmt.Sprintf("r%02d", i))
		fmt.Fprintf(&runs, "\tsh d%02d/f\n", i)
		fmt.Fprintf(&cats, "N%d := $(shell cat r%02d)\n", i, i)
	}
	linkMany(t, checkout, "words", uniqueWords(1<<20), names)
	for _, text := range []string{"gen:\n" + runs.String(), cats.String()} {
		x := indexTask([]byte(text), checkout, ".", map[string]map[string]bool{})
		if !x.all || x.size > maxNamedText+maxTaskText {
			t.Errorf("%.20q: read %d bytes, names all %v; want at most %d, all", text, x.size, x.all, maxNamedText+maxTaskText)
		}
	}
}

// A repository below the top whose configuration is past what is read
// of one (maxConfigsText) names every file the session made in it: one
// including 16 files of 1 MiB (links to one) was read whole, 10,000 of
// them would have held the exit for most of an hour.
func TestNestedRepositoryConfigBounded(t *testing.T) {
	base := t.TempDir()
	noUserGitConfig(t, filepath.Join(base, "home"))
	checkout := filepath.Join(base, "repo")
	var includes strings.Builder
	var names []string
	includes.WriteString("[include]\n")
	for i := range 16 {
		fmt.Fprintf(&includes, "\tpath = ../c/%02d\n", i)
		names = append(names, fmt.Sprintf("lib/c/%02d", i))
	}
	writeTree(t, checkout, map[string]string{".git/config": "", "lib/.git/config": includes.String()})
	linkMany(t, checkout, "lib/big", "[a]\n"+strings.Repeat("\tb = sh tools/lint --fix\n", (1<<20-8)/25), names)
	git := filepath.Join(checkout, ".git")
	now := tree{tasks: &taskTexts{read: map[string]*taskIndex{}, imports: map[string]map[string]bool{}, left: maxTasksText}, repo: repositoryOf(instance.Project{Root: checkout, Checkout: checkout, GitDir: git, CommonDir: git}), repos: map[string]bool{"lib": true}}
	if got := now.namedByTask(checkout, "lib/build/x"); !got {
		t.Errorf("lib/build/x: named %v, want true", got)
	}
	if r := now.repoAt(checkout, "lib"); len(r.commands) > maxConfigsText {
		t.Errorf("read %d bytes of commands, want at most %d", len(r.commands), maxConfigsText)
	}
}

// What the repositories below the top are read for, their configuration
// and the files its commands name, counts in what an exit reads
// (maxTasksText), past which one names every file in it: a session's
// hundred repositories, each of a configuration of 1 MiB, or one whose
// alias runs files of 4 MiB in all, were each read (and indexed).
func TestNestedRepositoriesReadBounded(t *testing.T) {
	const left = 8 << 20
	for _, c := range []struct{ name, config string }{
		{"configs", "[a]\n" + strings.Repeat("\tb = sh tools/lint --fix\n", (1<<20-8)/25)},
		{"commands", "[alias]\n\tx = !sh f0 f1 f2 f3 f4\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			noUserGitConfig(t, filepath.Join(base, "home"))
			checkout := filepath.Join(base, "repo")
			writeTree(t, checkout, map[string]string{".git/config": ""})
			repos := map[string]bool{}
			var configs, named []string
			for i := range 24 {
				repos[fmt.Sprintf("r%02d", i)] = true
				configs = append(configs, fmt.Sprintf("r%02d/.git/config", i))
				for j := range 5 {
					named = append(named, fmt.Sprintf("r%02d/f%d", i, j))
				}
			}
			linkMany(t, checkout, "config", c.config, configs)
			linkMany(t, checkout, "named", strings.Repeat("sh tools/lint\n", (1<<20)/14), named)
			git := filepath.Join(checkout, ".git")
			now := tree{tasks: &taskTexts{read: map[string]*taskIndex{}, imports: map[string]map[string]bool{}, left: left}, repo: repositoryOf(instance.Project{Root: checkout, Checkout: checkout, GitDir: git, CommonDir: git}), repos: repos}
			read, unread := 0, 0
			for dir := range repos {
				now.runByGit(checkout, dir+"/x")
				r := now.repoAt(checkout, dir)
				read += len(r.commands)
				if x := now.tasks.runs[dir]; x != nil {
					read += x.size
				}
				if r.unread || now.tasks.runs[dir] != nil && now.tasks.runs[dir].all {
					unread++
					if !now.runByGit(checkout, dir+"/x") {
						t.Errorf("%s/x: a repository left unread names no file", dir)
					}
				}
			}
			if read > left+maxConfigsText+maxNamedText+maxTaskText || unread == 0 {
				t.Errorf("read %d bytes, %d repositories unread; want at most %d, some unread", read, unread, left+maxConfigsText+maxNamedText+maxTaskText)
			}
		})
	}
}
