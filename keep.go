package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/internal/atomicfile"
	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/pty"
	"github.com/claudebox/claudebox/session"
)

// keepPermissionsCmd is --keep-permissions: the permission rules this
// project's sessions added to their private copies of Claude Code's
// settings ("don't ask again"), which the sessions' ends set aside, shown
// and, once the user confirms (or with -y), added to the host's settings
// files they were saved in. Only the permission lists are carried, never
// hooks or anything else; the sandbox could have written the copies, so
// a rule that allows a whole tool or everything is refused (see
// claudesettings.Refusal), one that grants more than it names (any code,
// a secret, what the host runs: claudesettings.Risk) is kept only by its
// own yes, never by -y, and every rule is shown escaped.
type keepPermissionsCmd struct {
	Yes bool
}

func (k keepPermissionsCmd) Run(home session.Home) error {
	_, project, err := session.Here()
	if err != nil {
		return err
	}
	dir, err := projectInstance(home.State, project.Root)
	if err != nil {
		return err
	}
	rules, err := claudesettings.Pending(home.State, dir)
	if err != nil {
		return err
	}
	if len(rules) == 0 {
		printable.Say(os.Stderr, "claudebox: no permission rules of %s's sessions wait to be kept", project.Root)
		return nil
	}
	if instance.InUse(dir) {
		return hint.Errorf("end the session, then run claudebox --keep-permissions again", "a session of %s is running", project.Root)
	}
	// keep: rules kept once the user says yes to them together (or -y);
	// confirm: rules that grant more than they name, each kept only by
	// its own yes, never by -y.
	var keep, confirm []claudesettings.Rule
	printable.Say(os.Stderr, "claudebox: permission rules this project's sessions saved inside (Claude Code, or what ran in the sandbox):")
	for _, r := range rules {
		refusal := claudesettings.Refusal(r)
		if refusal == "" && !claudesettings.IsSettings(r.File) {
			refusal = "not a Claude Code settings file"
		}
		if refusal != "" {
			printable.Say(os.Stderr, "  refused: %-5s %s (%s), for %s", r.List, r.Rule, refusal, mount.Quote(r.File))
			continue
		}
		if risk := claudesettings.Risk(r); risk != "" {
			printable.Say(os.Stderr, "  ask each: %-5s %s, for %s", r.List, r.Rule, mount.Quote(r.File))
			printable.Say(os.Stderr, "    it %s", risk)
			confirm = append(confirm, r)
			continue
		}
		printable.Say(os.Stderr, "  %-5s %s, for %s", r.List, r.Rule, mount.Quote(r.File))
		keep = append(keep, r)
	}
	if len(keep) == 0 && len(confirm) == 0 {
		printable.Say(os.Stderr, "claudebox: none of them can be kept; add what you want on the host (claude's /permissions)")
		return claudesettings.ForgetPending(home.State, dir)
	}
	// waiting are the rules left for a later --keep-permissions.
	var waiting []claudesettings.Rule
	if k.Yes {
		if len(confirm) > 0 {
			grant := "rules that grant more than they name (ask each); they wait"
			if len(confirm) == 1 {
				grant = "rule that grants more than it names (ask each); it waits"
			}
			printable.Say(os.Stderr, "claudebox: not kept with -y: %d %s", len(confirm), grant)
			printable.Say(os.Stderr, "hint: to keep one, confirm it by itself: claudebox --keep-permissions (on a terminal, without -y)")
		}
		waiting = confirm
	} else {
		if !pty.IsTerminal(os.Stdin) {
			return hint.Errorf("read them, then run claudebox --keep-permissions -y (rules marked ask each wait for a terminal)", "cannot ask: stdin is not a terminal")
		}
		answers := bufio.NewReader(os.Stdin)
		if len(keep) > 0 && !yes(answers, keepQuestion(keep, len(confirm) > 0)) {
			return hint.Errorf("run claudebox --keep-permissions again to add them", "nothing was added")
		}
		for _, r := range confirm {
			if yes(answers, fmt.Sprintf("Keep %s %s? It %s. [y/N] ", r.List, r.Rule, claudesettings.Risk(r))) {
				keep = append(keep, r)
			}
		}
	}
	var files []string
	for _, r := range keep {
		if !slices.Contains(files, r.File) {
			files = append(files, r.File)
		}
	}
	for _, file := range files {
		var these []claudesettings.Rule
		for _, r := range keep {
			if r.File == file {
				these = append(these, r)
			}
		}
		if err := addRules(file, these); err != nil {
			return hint.Errorf("add them yourself, then run claudebox --keep-permissions again to clear them", "cannot add the rules to %s: %v", file, err)
		}
		printable.Say(os.Stderr, "claudebox: added %s to %s", printable.Counted(len(these), "permission rule"), mount.Quote(file))
	}
	return claudesettings.LeavePending(home.State, dir, waiting)
}

// keepQuestion asks whether to add the rules of keep, those not marked
// ask each where some are (each of which is asked after it), to their
// settings files.
func keepQuestion(keep []claudesettings.Rule, askEach bool) string {
	what := "these " + printable.Counted(len(keep), "rule")
	if len(keep) == 1 {
		what = "this rule"
	}
	if askEach {
		what = "the " + printable.Counted(len(keep), "rule") + " not marked ask each"
		if len(keep) == 1 {
			what = "the rule not marked ask each"
		}
	}
	where := "the settings file"
	if slices.ContainsFunc(keep, func(r claudesettings.Rule) bool { return r.File != keep[0].File }) {
		where = "the settings files"
	}
	return "Add " + what + " to " + where + "? [y/N] "
}

// yes asks question on stderr and says whether the next line of answers
// is y or yes.
func yes(answers *bufio.Reader, question string) bool {
	fmt.Fprint(os.Stderr, printable.Escape(question))
	answer, _ := answers.ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(answer))
	return a == "y" || a == "yes"
}

// maxSettings bounds the settings file read: Claude Code's are small.
const maxSettings = 1 << 20

// addRules adds rules to the settings file at path, or creates it (and a
// missing .claude above it), keeping everything else it holds and its
// mode; it refuses a symlink (a file the user keeps elsewhere, which
// replacing the link would cut off) and anything but a regular file.
func addRules(path string, rules []claudesettings.Rule) error {
	parent := filepath.Dir(path)
	if fi, err := os.Lstat(parent); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(parent, 0o755); err != nil {
			return err
		}
	} else if err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", parent)
	}
	var data []byte
	perm := os.FileMode(0o644)
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, unix.ELOOP):
		return errors.New("it is a symbolic link")
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			return errors.New("it is not a regular file")
		}
		perm = fi.Mode().Perm()
		if data, err = io.ReadAll(io.LimitReader(f, maxSettings+1)); err != nil {
			return err
		}
		if len(data) > maxSettings {
			return fmt.Errorf("it is larger than %d bytes", maxSettings)
		}
	}
	merged, err := claudesettings.MergePermissions(data, rules)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, merged, perm)
}
