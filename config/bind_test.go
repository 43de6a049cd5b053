package config

import (
	"testing"

	"github.com/claudebox/claudebox/bind"
	"github.com/claudebox/claudebox/hint"
)

// Each bind problem gets its remedy as the hint, and a bind from a file
// names the file.
func TestBindHint(t *testing.T) {
	for _, c := range []struct {
		problem  bind.Problem
		writable bool
		want     string
	}{
		{bind.Syntax, false, "--ro-bind ~/.cargo/registry, or --ro-bind ./data:/data"},
		{bind.Syntax, true, "--bind ~/.cargo/registry, or --bind ./data:/data"},
		{bind.SourceMissing, true, "create it first, or fix the path"},
		{bind.SourceUnresolved, true, "fix the path"},
		{bind.PlantedLink, true, "make it a directory again, or bind what it points to by its real path"},
		{bind.State, false, "bind the directory you need instead"},
		{bind.HostRuntime, false, "for the SSH agent, use --with-ssh"},
		{bind.SharedTemp, false, "bind the directory you need inside it"},
		{bind.Socket, false, "for the SSH agent, use --with-ssh; otherwise bind a directory without sockets"},
		{bind.WholeHome, true, "bind the directory you need, e.g. --bind ~/.cargo/registry, or use --ro-bind"},
		{bind.HomeTools, true, "bind the subdirectory you need, or use --ro-bind"},
		{bind.DestInProject, false, "choose a destination outside it: --bind SRC:/opt/NAME"},
		{bind.DestManaged, false, "choose another destination: --bind SRC:/opt/NAME"},
		{bind.DestHidesHome, false, "choose a destination under ~, /opt or /mnt"},
		{bind.DestReadOnly, false, "choose a destination under ~, /opt or /mnt"},
	} {
		be := &bind.Error{Spec: "--bind /x", Writable: c.writable, Problem: c.problem, Reason: "what is wrong"}
		err := bindHint(be, ".claudebox.toml")
		if got := hint.Of(err); got != c.want {
			t.Errorf("problem %d: hint %q, want %q", c.problem, got, c.want)
		}
		if got := err.Error(); got != ".claudebox.toml: --bind /x: what is wrong" {
			t.Errorf("problem %d: %q", c.problem, got)
		}
	}
	if got := bindHint(&bind.Error{Spec: "--bind /x", Problem: bind.State, Reason: "r"}, "").Error(); got != "--bind /x: r" {
		t.Errorf("from the command line: %q", got)
	}
}
