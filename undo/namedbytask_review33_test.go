package undo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestNamedByTaskBuiltPath: a task file that runs a path in a directory
// built from a variable or a pattern (sh build/$(NAME), sh
// gen/${TARGET}, just's out/{{name}}, make's obj/%), or one only named
// (rm -rf dist/), names every file below that directory; the end of a
// longer one (uild/ in rebuild/$(X)) names none, nor does a file that is
// no task file (a README).
func TestNamedByTaskBuiltPath(t *testing.T) {
	checkout := t.TempDir()
	for path, text := range map[string]string{
		"Makefile":          "NAME := gen\ngen:\n\tsh build/$(NAME)\n\trm -rf dist/ rebuild/$(X)\nobj/%: src/%\n\tcp $< $@\n",
		"web/package.json":  `{"scripts": {"gen": "sh gen/${TARGET}"}}`,
		"tools/justfile":    "run name:\n\tsh out/{{name}}\n",
		"tools/deep/README": "sh deep/$(X)\n",
	} {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := tree{}
	for path, want := range map[string]bool{
		"build/gen": true, "build/sub/x": true, "obj/a": true, "web/gen/x": true, "tools/out/y": true,
		"rebuild/x": true, "dist/x": true, "uild/x": false, "tools/deep/x": false, "x": false, "web/x": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}

// TestNamedByTaskBuiltDir: a task file that runs a path after a
// variable ($(OUT)/gen, ${OUT}/run, {{out}}/x, $(OUT)/sub/y) names every
// file whose path ends so, wherever the variable leads; a longer name
// ($(OUT)/general) or a plain one (src/gen2) names none.
func TestNamedByTaskBuiltDir(t *testing.T) {
	checkout := t.TempDir()
	text := "gen:\n\tsh $(OUT)/gen\n\tsh ${OUT}/run\n\tsh {{out}}/x\n\tsh $(OUT)/general $(OUT)/sub/y src/gen2\n"
	if err := os.WriteFile(filepath.Join(checkout, "Makefile"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	now := tree{}
	for path, want := range map[string]bool{
		"out/gen": true, "build/run": true, "a/b/x": true, "a/sub/y": true, "gen": true,
		"build/gene": false, "build/gen2": false, "build/y": false, "build/sub/z": false,
	} {
		if got := now.namedByTask(checkout, path); got != want {
			t.Errorf("%s: named %v, want %v", path, got, want)
		}
	}
}

// TestNamedByTaskIndexedOnce: each task file is read and indexed once
// for all the files below it: a Makefile of 1 MiB holding build/ 150,000
// times took 4.5 ms an ask when each file searched its text, and the
// exit of a session that left 100,000 ignored files in build/ minutes.
func TestNamedByTaskIndexedOnce(t *testing.T) {
	checkout := t.TempDir()
	if err := os.WriteFile(filepath.Join(checkout, "Makefile"), []byte("all:\n\trm -rf build/ out/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := tree{tasks: &taskTexts{read: map[string]*taskIndex{}, imports: map[string]map[string]bool{}, left: maxTasksText}}
	for _, p := range []string{"build/a", "build/b", "build/c", "out/a"} {
		if !now.namedByTask(checkout, p) {
			t.Errorf("%s is not named", p)
		}
	}
	// Each of the top's task files, runner files and memories, and those of build/ and
	// out/ once for the first file below each.
	if want := 3 * (len(taskNames) + len(runnerFiles) + len(agentMemory)); len(now.tasks.read) > want {
		t.Errorf("indexed %d files, want %d at most", len(now.tasks.read), want)
	}
}

// TestNamedByTaskPastWhatIsRead: past what an exit reads of task files
// (a session's thousands of Makefiles of 1 MiB, each below which it wrote
// a file, would hold the exit for minutes), a task file left unread names
// every file below it; a folder with none names nothing still.
func TestNamedByTaskPastWhatIsRead(t *testing.T) {
	checkout := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(checkout, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(checkout, d, "Makefile"), bytes.Repeat([]byte("x "), 1<<19), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	now := tree{tasks: &taskTexts{read: map[string]*taskIndex{}, imports: map[string]map[string]bool{}, left: 1 << 20}}
	// In this order: a's Makefile is read, and spends what may be.
	for _, c := range []struct {
		path string
		want bool
	}{{"a/gen", false}, {"b/gen", true}, {"c/gen", false}} {
		if got := now.namedByTask(checkout, c.path); got != c.want {
			t.Errorf("%s: named %v, want %v", c.path, got, c.want)
		}
	}
}

// BenchmarkNamedByTask is what the judgement costs an ignored file below
// a task file of 1 MiB, once the file is indexed (the exit's files share
// one index), and what indexing it costs.
func BenchmarkNamedByTask(b *testing.B) {
	checkout := b.TempDir()
	text := bytes.Repeat([]byte("\tsh build/$(NAME) src/main.c --out=dist/app\n"), 1<<20/46)
	if err := os.WriteFile(filepath.Join(checkout, "Makefile"), text, 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("file", func(b *testing.B) {
		now := tree{tasks: &taskTexts{read: map[string]*taskIndex{}, imports: map[string]map[string]bool{}, left: maxTasksText}}
		now.namedByTask(checkout, "build/x")
		b.ResetTimer()
		for i := range b.N {
			now.namedByTask(checkout, "build/sub/"+strconv.Itoa(i))
		}
	})
	// What a hostile task file or memory costs the exit: one path of
	// 1 MiB (each of its directories a word would be quadratic), imports
	// whose spaces a backslash escapes (each @ read to the end, likewise).
	// Words each looked up as a file it names (follow): maxLooks of them.
	var unique bytes.Buffer
	for i := 0; unique.Len() < 1<<20; i++ {
		fmt.Fprintf(&unique, "\tsh gen/%d\n", i)
	}
	for name, text := range map[string][]byte{
		"index":   text,
		"unique":  unique.Bytes(),
		"deep":    bytes.Repeat([]byte("a/"), 1<<19),
		"escaped": bytes.Repeat([]byte("@a\\ "), 1<<18),
	} {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				indexTask(text, checkout, ".", map[string]map[string]bool{})
			}
		})
	}
}
