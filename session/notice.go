package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/environment"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/untrusted"
)

// noticesFile records, in the state directory, the bash-era files whose
// notice the user has seen.
const noticesFile = "notices"

// noticeLegacy says, once per file, what a bash-era env file read at this
// launch is in the new configuration. It names variables, never values.
func (s *Session) noticeLegacy() error {
	if len(s.legacy) == 0 {
		return nil
	}
	path := filepath.Join(s.stateDir, noticesFile)
	seen, _ := os.ReadFile(path)
	lines := strings.Split(string(seen), "\n")
	var fresh []string
	for _, f := range s.legacy {
		if slices.Contains(lines, f.Path) {
			continue
		}
		var names []string
		for _, e := range f.Entries {
			if e.Set {
				names = append(names, fmt.Sprintf("%q", e.Name+"=…"))
			} else {
				names = append(names, fmt.Sprintf("%q", e.Name))
			}
		}
		env := "env = [" + strings.Join(names, ", ") + "]"
		if filepath.Base(f.Path) == environment.ProjectFile {
			printable.Say(os.Stderr, "claudebox: read %s, the bash claudebox's env file; its equivalent is %s in %s", f.Path, env, mount.ProjectConfigFile)
			printable.Say(os.Stderr, "hint: kept outside the repository, a [project.%q] table in %s needs no approval", s.plan.Project.Root, config.UserConfigPath(s.home))
		} else {
			printable.Say(os.Stderr, "claudebox: read %s, the bash claudebox's env file; its equivalent is %s in %s", f.Path, env, config.UserConfigPath(s.home))
			printable.Say(os.Stderr, "hint: there it needs no approval, and %s can then go", f.Path)
		}
		fresh = append(fresh, f.Path)
	}
	if len(fresh) == 0 {
		return nil
	}
	if err := os.MkdirAll(s.stateDir, 0o700); err != nil {
		return err
	}
	record := strings.TrimSuffix(string(seen), "\n")
	if record != "" {
		record += "\n"
	}
	return untrusted.WriteFile(s.stateDir, noticesFile, []byte(record+strings.Join(fresh, "\n")+"\n"), 0o600)
}

// noticeLimit is the most of a project's notice record claudebox reads.
const noticeLimit = 1 << 20

// noticeLeftOut names, once per project, the MCP servers the host's
// ~/.claude.json offers that the launch left out, with the option that
// brings them: names only, never their definitions. The record is kept in
// the state directory, out of the sandbox's reach.
func (s *Session) noticeLeftOut() error {
	dir, name := instance.RecordPath(s.stateDir, instance.NoticeRecords, s.plan.Project.Root)
	seen, _ := untrusted.ReadFile(dir, name, noticeLimit)
	lines := strings.Fields(string(seen))
	var servers, fresh []string
	for _, n := range s.leftOutMCP {
		if !slices.Contains(lines, "mcp:"+n) {
			servers = append(servers, n)
			fresh = append(fresh, "mcp:"+n)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	printable.Say(os.Stderr, "claudebox: MCP servers left out of the sandbox: %s", strings.Join(servers, ", "))
	printable.Say(os.Stderr, "hint: bring one with --with-mcp %s, or mcp = [%q] in %s", servers[0], servers[0], config.UserConfigPath(s.home))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return untrusted.WriteFile(dir, name, []byte(strings.Join(append(lines, fresh...), "\n")+"\n"), 0o600)
}

// warnUnprotected says, at each launch, what the host obeys that no guard
// can protect: a relative PATH entry, or a dotfile or PATH entry that is the
// project itself.
func (s *Session) warnUnprotected() {
	for _, u := range s.plan.Unprotected {
		printable.Say(os.Stderr, "claudebox: not protected: %s: %s", u.From, u.Reason)
	}
	if len(s.plan.Unprotected) > 0 {
		printable.Say(os.Stderr, "hint: what the sandbox writes there runs on the host; take it out of PATH (or your dotfiles' links) before you start claudebox, and review what the session wrote")
	}
}
