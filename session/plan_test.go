package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/agent"
	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/probe"
)

// TestPlanReadsNothing keeps a launch's preparation settings, then the
// probe, then the plan: the plan step (plan.go) reads nothing of the host
// and acts on nothing. Its imports hold no package that reaches the
// system, its calls into other packages are pure ones, named here, and its
// calls within session are its own or the pure helpers named here; a new
// call must be added to a list, with a look at what it does.
func TestPlanReadsNothing(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "plan.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if slices.Contains([]string{"os", "os/exec", "io/fs", "io/ioutil", "syscall", "net", "golang.org/x/sys/unix", "github.com/claudebox/claudebox/untrusted"}, path) {
			t.Errorf("plan.go imports %s", path)
		}
	}
	// Calls into other packages: pure ones only (probe's types are read,
	// its functions never called).
	pure := []string{"filepath.Join", "filepath.Dir", "hint.Errorf", "mount.Build", "sandboxmd.Render", "instance.CachesDir", "sshagent.KnownHostKeys", "strings.Join"}
	// session's helpers outside plan.go that read nothing: agentOf picks
	// an agent, resolveError and noLogin are errors, forwardRules and
	// portsNote read the settings, newRunStem names the run files by the
	// process's own pid, dirCopiesAt names a directory by the probe's,
	// inlineJSONKept rewrites claude's arguments.
	helpers := []string{"agentOf", "resolveError", "noLogin", "forwardRules", "portsNote", "newRunStem", "dirCopiesAt", "inlineJSONKept"}
	// Methods of the values the plan is made of, each reading only its
	// value.
	methods := []string{"Args", "SetFrom", "Variable", "IsClaude", "AddressVariable", "Resolved", "AddSandboxMD", "leaveOut", "Exact"}
	builtins := []string{"append", "len", "string"}
	own := map[string]bool{}
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
			own[fn.Name.Name] = true
		}
	}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		imported[filepath.Base(path)] = true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		switch fun := call.Fun.(type) {
		case *ast.Ident:
			if !own[fun.Name] && !slices.Contains(helpers, fun.Name) && !slices.Contains(builtins, fun.Name) {
				t.Errorf("plan.go calls %s, which is neither its own nor a helper known to read nothing", fun.Name)
			}
		case *ast.SelectorExpr:
			if x, ok := fun.X.(*ast.Ident); ok && imported[x.Name] {
				if name := x.Name + "." + fun.Sel.Name; !slices.Contains(pure, name) {
					t.Errorf("plan.go calls %s, not known to read nothing", name)
				}
			} else if !slices.Contains(methods, fun.Sel.Name) {
				t.Errorf("plan.go calls the method %s, not known to read nothing", fun.Sel.Name)
			}
		default:
			t.Errorf("plan.go makes a call the test cannot name: %T", fun)
		}
		return true
	})
}

// TestPlanFromFactsCreatesNothing: the plan step makes a launch of the
// probe's facts alone, none of which exists, and creates nothing.
func TestPlanFromFactsCreatesNothing(t *testing.T) {
	home := t.TempDir()
	o := Options{Home: Home{Dir: home, State: filepath.Join(home, ".claudebox")}, Shell: true, Args: []string{"-c", "true"}}
	set := settings{cwd: filepath.Join(home, "p"), conf: config.Launch{Network: config.NetworkNone}}
	set.project.Root, set.project.Checkout = set.cwd, set.cwd
	facts := probe.Launch{Bwrap: "/nowhere/bwrap", Command: "/nowhere/bash", Agent: agent.Claude}
	s, err := plan(o, set, facts)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.plan.Command; !slices.Equal(got, []string{"/nowhere/bash", "-c", "true"}) {
		t.Errorf("command %q", got)
	}
	if entries, _ := os.ReadDir(home); len(entries) > 0 {
		t.Errorf("the plan created %s in the home", entries[0].Name())
	}
	if _, err := plan(o, set, probe.Launch{Agent: agent.Claude}); err == nil || err.Error() != "bwrap not found on PATH" {
		t.Errorf("without bwrap: %v", err)
	}
}

// TestOneWayToRunBwrap keeps one way to run bwrap with its guard watcher
// (bwrap.go), which the launch, --check's trial and an eval run share:
// no other file of session makes bwrap's command or its descriptors, or
// attaches a watcher; the launch alone launches its watcher early, for
// its runtime to start while the host is probed.
func TestOneWayToRunBwrap(t *testing.T) {
	only := map[string][]string{
		"bwrapCmd": {"bwrap.go"}, "attachPlan": {"bwrap.go"}, "descriptors": {"bwrap.go"}, "Attach": {"bwrap.go"},
		"guardwatch.Launch": {"bwrap.go", "supervise.go"},
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var called string
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				called = fun.Name
			case *ast.SelectorExpr:
				called = fun.Sel.Name
				if x, ok := fun.X.(*ast.Ident); ok && x.Name == "guardwatch" {
					called = "guardwatch." + called
				}
			}
			if allowed, ok := only[called]; ok && !slices.Contains(allowed, name) {
				t.Errorf("%s calls %s: bwrap runs one way, through startBwrap", name, called)
			}
			return true
		})
	}
}
