package audit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestBazelrcNamed(t *testing.T) {
	root := t.TempDir()
	// One it imports, there at the start, imports another.
	must(t, os.MkdirAll(filepath.Join(root, "tools"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "tools/base.rc"), []byte("try-import %workspace%/tools/local.rc\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, ".bazelrc"), []byte("import %workspace%/tools/base.rc\ntry-import %workspace%/.bazelrc.user\n  import %workspace%/tools/ci.rc # shared\n# try-import commented.rc\nimport /etc/bazel.rc\n"), 0o644))
	since := mark(t, t.TempDir())
	start := Take(root, since, nil, nil)
	for _, p := range []string{".bazelrc.user", "tools/ci.rc", "tools/local.rc", "commented.rc", "other.rc"} {
		write(t, filepath.Join(root, p))
	}
	r := Scan(root, since, nil, start, nil)
	var got []string
	for _, f := range r.Found {
		rel, _ := filepath.Rel(root, f)
		got = append(got, rel)
	}
	slices.Sort(got)
	if want := []string{".bazelrc.user", "tools/ci.rc", "tools/local.rc"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

func TestBazelrcImports(t *testing.T) {
	got := bazelrcImports("try-import %workspace%/local.bazelrc\nimport \"%workspace%/a b.rc\"\nbuild --config=x\nimport /abs.rc\nimport\n")
	if want := []string{"local.bazelrc", "a b.rc"}; !slices.Equal(got, want) {
		t.Errorf("bazelrcImports: %q, want %q", got, want)
	}
}
