package undo

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestHostRunDotnetAndJVMBuilds: what MSBuild imports unasked (a .props
// or .targets, a project's .csproj.user, a Directory.Build.rsp), a
// managed assembly dotnet runs (by its extension, or its PE header under
// any name), and what sbt and Clojure's tools load (.sbt, .clj) are what
// the host runs where git ignores them; a build's log and a data file
// beside them are not.
func TestHostRunDotnetAndJVMBuilds(t *testing.T) {
	checkout := t.TempDir()
	now := tree{recent: map[string]fileStatus{}}
	files := map[string]string{
		"obj/app.csproj.nuget.g.targets": "<Project/>", "obj/app.csproj.nuget.g.props": "<Project/>",
		"app.csproj.user": "<Project/>", "Directory.Build.rsp": "-logger:x", "bin/Debug/app.dll": "data",
		"bin/Debug/tool": "MZ\x90\x00", "local.sbt": "name := \"x\"", "dev/user.clj": "(ns user)",
		"obj/build.log": "ok", "bin/Debug/app.runtimeconfig.json": "{}",
	}
	for rel, text := range files {
		if err := os.MkdirAll(filepath.Join(checkout, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(checkout, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		now.recent[rel] = fileStatus{mode: unix.S_IFREG | 0o644}
	}
	for rel := range files {
		want := rel != "obj/build.log" && rel != "bin/Debug/app.runtimeconfig.json"
		if got := now.hostRun(checkout, rel); got != want {
			t.Errorf("hostRun(%q) = %v, want %v", rel, got, want)
		}
	}
}
