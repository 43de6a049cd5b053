package audit

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestScanNewCratePathOutside: a new crate's manifest naming a path
// dependency by an absolute path, or by a relative one out of the walk's
// root, is found, as is one whose path is no string; one naming a crate
// inside the project, through .. too, is not.
func TestScanNewCratePathOutside(t *testing.T) {
	root := t.TempDir()
	put := func(rel, s string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n")
	put("crates/app/Cargo.toml", "[package]\nname = \"app\"\n")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		c := exec.Command("git", append([]string{"-C", root}, args...)...)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "GIT_CONFIG_NOSYSTEM=1"}
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	runs := map[string]string{
		"crates/abs/Cargo.toml":    "[package]\nname = \"a\"\n[dependencies]\nx = { path = \"/home/u/.claudebox/projects/0123456789abcdef/x\" }\n",
		"crates/up/Cargo.toml":     "[package]\nname = \"u\"\n[build-dependencies.x]\npath = \"../../../x\"\n",
		"crates/ws/Cargo.toml":     "[package]\nname = \"w\"\n[workspace.dependencies]\nx = { path = \"../../..\" }\n",
		"crates/target/Cargo.toml": "[package]\nname = \"t\"\n[target.'cfg(unix)'.dependencies]\nx = { path = \"/x\" }\n",
		"crates/typed/Cargo.toml":  "[package]\nname = \"n\"\n[dependencies]\nx = { path = 1 }\n",
	}
	var want []string
	for rel, s := range runs {
		put(rel, s)
		want = append(want, filepath.Join(root, rel))
	}
	put("crates/inside/Cargo.toml", "[package]\nname = \"i\"\n[dependencies]\napp = { path = \"../app\" }\ntop = { path = \"../..\" }\nv = { path = \"../../vendor/../vendor/v\" }\n")
	slices.Sort(want)
	if r := Scan(root, since, nil, start, nil); !slices.Equal(r.Found, want) {
		t.Errorf("found:\n%q\nwant:\n%q", r.Found, want)
	}
}
