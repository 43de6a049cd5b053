package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The flake is verified here without the internet: it parses, its
// vendorHash is recomputed from go.sum, and its outputs are evaluated
// against a stand-in for nixpkgs. Nix's own build sandbox (the flake's
// check) runs the tests with -short and has no nix, so these skip there.

func requireNix(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("flake test skipped in -short mode")
	}
	nix, err := exec.LookPath("nix")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("nix is not installed: apt-get install nix-bin")
		}
		t.Skip("SKIPPING: nix is not installed (apt-get install nix-bin)")
	}
	return nix
}

func nixRun(t *testing.T, args ...string) string {
	t.Helper()
	nix := requireNix(t)
	cmd := exec.Command(nix, append([]string{"--extra-experimental-features", "nix-command flakes"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("nix %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

func TestFlakeParses(t *testing.T) {
	requireNix(t)
	for _, f := range []string{"flake.nix", "testdata/nixpkgs-stub/flake.nix"} {
		if out, err := exec.Command("nix-instantiate", "--parse", f).CombinedOutput(); err != nil {
			t.Errorf("nix-instantiate --parse %s: %v\n%s", f, err, out)
		}
	}
}

// TestFlakeVendorHash proves vendorHash rather than trusting it: the NAR
// hash of `go mod vendor` must be the one flake.nix names.
func TestFlakeVendorHash(t *testing.T) {
	requireNix(t)
	vendor := filepath.Join(t.TempDir(), "vendor")
	if out, err := exec.Command("go", "mod", "vendor", "-o", vendor).CombinedOutput(); err != nil {
		t.Fatalf("go mod vendor: %v\n%s", err, out)
	}
	got := nixRun(t, "hash", "path", vendor)
	flake, err := os.ReadFile("flake.nix")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`vendorHash = "([^"]+)"`).FindSubmatch(flake)
	if m == nil {
		t.Fatal("flake.nix names no vendorHash")
	}
	if string(m[1]) != got {
		t.Fatalf("flake.nix has vendorHash %q, but go.sum now needs %q: put the new hash in flake.nix", m[1], got)
	}
}

// TestFlakeOutputs evaluates every output of the flake, for both systems,
// with nixpkgs replaced by testdata/nixpkgs-stub. Nothing is downloaded.
func TestFlakeOutputs(t *testing.T) {
	requireNix(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	stub := filepath.Join(wd, "testdata", "nixpkgs-stub")
	eval := func(output, apply string, v any) {
		t.Helper()
		// --impure only lets the overlay's check import the stub by path.
		out := nixRun(t, "eval", "--json", "--impure", "--no-write-lock-file", "--override-input", "nixpkgs", "path:"+stub,
			"path:"+wd+"#"+output, "--apply", apply)
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("%s: %v\n%s", output, err, out)
		}
	}
	type pkg struct {
		Pname, Version, PostInstall, Out, Same string
		Cgo                                    int
	}
	var pkgs map[string]pkg
	eval("packages", `ps: builtins.mapAttrs (s: p: { inherit (p.default) pname version postInstall; cgo = p.default.env.CGO_ENABLED or 1; out = p.default.outPath; same = p.claudebox.outPath; }) ps`, &pkgs)
	var apps, checks, formatters map[string]string
	eval("apps", `as: builtins.mapAttrs (s: a: a.default.type + " " + a.default.program) as`, &apps)
	eval("checks", `cs: builtins.mapAttrs (s: c: c.default.outPath) cs`, &checks)
	eval("formatter", `fs: builtins.mapAttrs (s: f: toString f) fs`, &formatters)
	var shells map[string][]string
	eval("devShells", `ds: builtins.mapAttrs (s: d: map toString d.default.packages) ds`, &shells)
	var overlay string
	eval("overlays", `os: (os.default ((import `+filepath.Join(stub, "flake.nix")+`).outputs { self = null; }).legacyPackages.x86_64-linux {}).claudebox.pname`, &overlay)

	for _, s := range []string{"x86_64-linux", "aarch64-linux"} {
		p, ok := pkgs[s]
		if !ok || p.Pname != "claudebox" || p.Version != "dev" || p.Same != p.Out || p.Cgo != 0 {
			t.Errorf("%s: packages %+v", s, p)
		}
		for _, want := range []string{"-bubblewrap/bin", "-git/bin", "wrapProgram $out/bin/claudebox", "--completion bash", "--completion zsh", "--completion fish"} {
			if !strings.Contains(p.PostInstall, want) {
				t.Errorf("%s: postInstall lacks %q:\n%s", s, want, p.PostInstall)
			}
		}
		if apps[s] != "app "+p.Out+"/bin/claudebox" {
			t.Errorf("%s: apps.default = %q", s, apps[s])
		}
		if checks[s] != p.Out {
			t.Errorf("%s: checks.default = %q, want the package", s, checks[s])
		}
		for _, tool := range []string{"go", "gopls", "bubblewrap", "git", "tmux"} {
			if !slices.ContainsFunc(shells[s], func(p string) bool { return strings.HasSuffix(p, "-"+tool) }) {
				t.Errorf("%s: devShells.default lacks %s: %q", s, tool, shells[s])
			}
		}
		if !strings.HasSuffix(formatters[s], "-nixfmt") {
			t.Errorf("%s: formatter = %q", s, formatters[s])
		}
	}
	if len(pkgs) != 2 {
		t.Errorf("systems: %d, want x86_64-linux and aarch64-linux", len(pkgs))
	}
	if overlay != "claudebox" {
		t.Errorf("overlays.default gives claudebox = %q", overlay)
	}
}
