package session

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/probe"
)

// TestSayMovedGroups: what was moved aside from a directory of the
// project's top is named one by one up to listedPerDir, and past it as
// the directory with a count, beside a script that puts every one back;
// what the host obeys by its name is named in every case.
func TestSayMovedGroups(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	var found []string
	write := func(rel string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(rel), 0o644); err != nil {
			t.Fatal(err)
		}
		found = append(found, p)
	}
	for i := range 40 {
		write(fmt.Sprintf("dist/chunk%02d/index.js", i))
	}
	write("dist/.env")
	write(".envrc")
	write("scripts/dev.sh")
	s := &Session{stateDir: state, plan: mount.Plan{ObeyedNames: probe.ObeyedAnywhere}}
	dest := filepath.Join(state, "moved-aside", "p", "20261129T000000.000Z")
	moved, forget, err := moveAside(root, dest, found)
	forget()
	if err != nil || len(moved) != len(found) {
		t.Fatalf("moved %d of %d: %v", len(moved), len(found), err)
	}
	var out strings.Builder
	s.sayMoved(&out, root, dest, moved, nil, nil)
	said := out.String()
	for _, want := range []string{
		"  " + filepath.Join(root, "dist") + "/: 40 files\n",
		"  " + filepath.Join(root, "dist/.env") + "\n",
		"  " + filepath.Join(root, ".envrc") + "\n",
		"  " + filepath.Join(root, "scripts/dev.sh") + "\n",
		"    to put every one back: sh " + dest + ".put-back.sh\n",
	} {
		if !strings.Contains(said, want) {
			t.Errorf("does not say %q:\n%s", want, said)
		}
	}
	if n := strings.Count(said, "\n"); n > 15 {
		t.Errorf("%d lines:\n%s", n, said)
	}
	if b, err := exec.Command("sh", dest+".put-back.sh").CombinedOutput(); err != nil {
		t.Fatalf("the script: %v\n%s", err, b)
	}
	for _, p := range found {
		if b, err := os.ReadFile(p); err != nil || !strings.HasSuffix(p, string(b)) {
			t.Errorf("%s not put back: %q %v", p, b, err)
		}
	}
}

// TestSayMovedScriptPOSIX: the put-back script, run with sh as it says
// (dash has no $'...'), puts back a file whose name holds a newline or a
// control character, and is written in time linear in what it names.
func TestSayMovedScriptPOSIX(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	var found []string
	for i := range 800 {
		name := fmt.Sprintf("dist/chunk%04d.js", i)
		if i < 2 {
			name = fmt.Sprintf("dist/odd\n%d\x01'.js", i)
		}
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
		found = append(found, p)
	}
	s := &Session{stateDir: state, plan: mount.Plan{ObeyedNames: probe.ObeyedAnywhere}}
	dest := filepath.Join(state, "moved-aside", "p", "20261129T000000.000Z")
	moved, forget, err := moveAside(root, dest, found)
	forget()
	if err != nil || len(moved) != len(found) {
		t.Fatalf("moved %d of %d: %v", len(moved), len(found), err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.sayMoved(io.Discard, root, dest, moved, nil, nil)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("naming %d moved files allocated %d MiB", len(moved), n>>20)
	}
	if b, err := exec.Command("sh", dest+".put-back.sh").CombinedOutput(); err != nil {
		t.Fatalf("the script: %v\n%s", err, b)
	}
	for _, p := range found[:3] {
		if b, err := os.ReadFile(p); err != nil || !strings.HasSuffix(p, string(b)) {
			t.Errorf("%q not put back: %q %v", p, b, err)
		}
	}
}
