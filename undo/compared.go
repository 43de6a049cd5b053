package undo

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/claudebox/claudebox/audit"
	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/instance"
)

// gitCompared are the files of a checkout whose change the host's git
// status shows whatever it is, so the exit's walk need not read their
// statuses (what it did to them is not for the exit to judge): the
// entries of an index nothing wrote during the session (audit.GitCompares),
// where the user's git compares each file's status change time (the
// default: core.trustctime on, core.checkStat not minimal, no
// core.ignoreStat, no core.fsmonitor, which may miss a change). Any change
// to such a file (its bytes, its mode, its times) is a change of that
// time, which nothing can set back, so git reads it again. nil: none.
type gitCompared = *audit.Compared

// comparedOf are the files of p's checkout the host's git compares
// (gitCompared), nil where they are not known.
func comparedOf(p instance.Project, since time.Time) gitCompared {
	if p.GitDir == "" || !statusCompared(p.GitDir) {
		return nil
	}
	c, ok := audit.GitCompares(p.GitDir, since)
	if !ok {
		return nil
	}
	return &c
}

// configLimit bounds the git that reads the user's configuration.
const configLimit = 5 * time.Second

// statusCompared says whether the user's git, in the repository of gitDir,
// takes a file whose status change time differs from its index entry's
// for one to read again: none of the settings that make it trust less
// (or ask a monitor instead) is set otherwise than by default.
func statusCompared(gitDir string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), configLimit)
	defer cancel()
	c := exec.CommandContext(ctx, "git", "--git-dir="+gitDir, "config", "--get-regexp", `^core\.(trustctime|checkstat|ignorestat|fsmonitor)$`)
	c.Dir = "/"
	c.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	out, err := c.Output()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 1 {
		return true // none is set
	}
	if err != nil {
		return false
	}
	// The last of each is git's.
	last := map[string]string{}
	for line := range strings.Lines(string(out)) {
		key, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		last[key] = value
	}
	for key, value := range last {
		switch {
		case key == "core.trustctime" && gitconfig.IsTrue(value):
		case key == "core.checkstat" && strings.EqualFold(value, "default"):
		case (key == "core.ignorestat" || key == "core.fsmonitor") && isFalse(value):
		default:
			return false
		}
	}
	return true
}

// isFalse says whether a git boolean's value is false.
func isFalse(value string) bool {
	return slices.Contains([]string{"false", "no", "off", "0"}, strings.ToLower(value))
}
