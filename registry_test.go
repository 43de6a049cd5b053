package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/internal/testfs"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/projectfiles"
	"github.com/claudebox/claudebox/session"
)

// TestRegistryOneList: the registry of what the host's agents, editors and
// tools obey in a project is the one list the guards, the exit audit, the
// sandbox's git wrapper and --check read. A project holding every entry
// plans a guard for each one the launch protects, the git wrapper looks
// at each, --check names each, and the exit audit finds each the session
// makes; an entry added to the registry is all four at once.
func TestRegistryOneList(t *testing.T) {
	root := t.TempDir()
	home, bin := filepath.Join(root, "home"), filepath.Join(root, "bin")
	project := filepath.Join(home, "proj")
	for _, name := range []string{"bwrap", "claude"} {
		testfs.Write(t, filepath.Join(bin, name), "#!/bin/sh\nexit 0\n")
		os.Chmod(filepath.Join(bin, name), 0o755)
	}
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	// entryName is a name the entry covers.
	entryName := func(e projectfiles.Entry) string {
		switch {
		case e.Prefix:
			return e.Name + "x.yml"
		case e.Suffix:
			return "x" + e.Name
		}
		return e.Name
	}
	for _, e := range projectfiles.Entries {
		path := filepath.Join(project, entryName(e))
		if e.Name == ".claude" {
			path = filepath.Join(path, "settings.json")
		}
		testfs.Write(t, path, "")
	}
	t.Setenv("HOME", home)
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-registry")
	t.Chdir(project)
	s, err := session.Prepare(session.Options{Home: session.Home{Dir: home, State: filepath.Join(home, ".claudebox")}, Args: []string{"-p", "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	plan := s.Plan()
	var wrapper string
	for _, m := range plan.Mounts {
		if m.Dest == "/run/claudebox/bin/git" {
			wrapper = m.Content
		}
	}
	check := checkProjectFiles(plan).Detail
	guarded := func(path string) bool {
		return slices.ContainsFunc(plan.Guards, func(g mount.Guard) bool { return g.Path == path })
	}
	for _, e := range projectfiles.Entries {
		name := entryName(e)
		path := filepath.Join(project, name)
		if e.Protection == projectfiles.AtExit {
			if guarded(path) {
				t.Errorf("%s, which only the exit audit judges, is guarded", name)
			}
			continue
		}
		if !guarded(path) {
			t.Errorf("the guards do not read the registry's %s", name)
		}
		if !strings.Contains(wrapper, mount.Quote(name)) {
			t.Errorf("the git wrapper does not look at the registry's %s", name)
		}
		if !strings.Contains(check, name+" ("+e.Tools+")") {
			t.Errorf("--check does not name the registry's %s: %s", name, check)
		}
	}
	// The session's own: each made anew in a directory of the project.
	since := time.Now()
	time.Sleep(10 * time.Millisecond)
	start := audit.Take(project, since, nil, nil)
	for _, e := range projectfiles.Entries {
		testfs.Write(t, filepath.Join(project, "made", entryName(e)), "")
	}
	found := audit.Scan(project, since, nil, start, nil).Found
	for _, e := range projectfiles.Entries {
		if p := filepath.Join(project, "made", entryName(e)); !slices.Contains(found, p) {
			t.Errorf("the exit audit does not read the registry's %s", entryName(e))
		}
	}
}
