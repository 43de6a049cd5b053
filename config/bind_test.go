package config

import (
	"testing"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
)

// Each bind problem gets its remedy as the hint, and a bind from a file
// names the file.
func TestBindHint(t *testing.T) {
	for _, c := range []struct {
		problem  mount.BindProblem
		writable bool
		want     string
	}{
		{mount.BindSyntax, false, "--ro-bind ~/.cargo/registry, or --ro-bind ./data:/data"},
		{mount.BindSyntax, true, "--bind ~/.cargo/registry, or --bind ./data:/data"},
		{mount.BindSourceMissing, true, "create it first, or fix the path"},
		{mount.BindSourceUnresolved, true, "fix the path"},
		{mount.BindPlantedLink, true, "make it a directory again, or bind what it points to by its real path"},
		{mount.BindState, false, "bind the directory you need instead"},
		{mount.BindHostRuntime, false, "for the SSH agent, use --with-ssh"},
		{mount.BindSharedTemp, false, "bind the directory you need inside it"},
		{mount.BindSocket, false, "for the SSH agent, use --with-ssh; otherwise bind a directory without sockets"},
		{mount.BindWholeHome, true, "bind the directory you need, e.g. --bind ~/.cargo/registry, or use --ro-bind"},
		{mount.BindHomeTools, true, "bind the subdirectory you need, or use --ro-bind"},
		{mount.BindDestInProject, false, "choose a destination outside it: --bind SRC:/opt/NAME"},
		{mount.BindDestManaged, false, "choose another destination: --bind SRC:/opt/NAME"},
		{mount.BindDestHidesHome, false, "choose a destination under ~, /opt or /mnt"},
		{mount.BindDestReadOnly, false, "choose a destination under ~, /opt or /mnt"},
	} {
		be := &mount.BindError{Spec: "--bind /x", Writable: c.writable, Problem: c.problem, Reason: "what is wrong"}
		err := bindHint(be, ".claudebox.toml")
		if got := hint.Of(err); got != c.want {
			t.Errorf("problem %d: hint %q, want %q", c.problem, got, c.want)
		}
		if got := err.Error(); got != ".claudebox.toml: --bind /x: what is wrong" {
			t.Errorf("problem %d: %q", c.problem, got)
		}
	}
	if got := bindHint(&mount.BindError{Spec: "--bind /x", Problem: mount.BindState, Reason: "r"}, "").Error(); got != "--bind /x: r" {
		t.Errorf("from the command line: %q", got)
	}
}
