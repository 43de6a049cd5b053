package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
	"github.com/claudebox/claudebox/transcript"
	"github.com/claudebox/claudebox/untrusted"
)

// exportCmd writes the current project's conversations as Markdown
// (--export, --export-all) or lists them (--list-sessions).
type exportCmd struct {
	Session string // an id or a unique prefix of one; empty: the latest
	Output  string // a file; empty: stdout
	AllDir  string // with All: the directory to write every session into
	All     bool
	List    bool
	JSON    bool
	Options transcript.Options
}

func (e exportCmd) Run(home session.Home) error {
	_, project, err := session.Here()
	if err != nil {
		return err
	}
	dir, err := projectInstance(home.State, project.Root)
	if err != nil {
		return err
	}
	// An id is matched by name, before any transcript is read: only the
	// transcripts written last are read, and an older session is still
	// exported by its id.
	sessions, unread, err := transcript.Sessions(dir, func(id string) bool { return strings.HasPrefix(id, e.Session) })
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if unread > 0 {
		printable.Say(os.Stderr, "claudebox: %d sessions not listed: only the %d written last are read (claudebox --export ID exports an older one)", unread, transcript.MaxListed)
	}
	if e.List {
		// A session left before any prompt keeps no conversation: an
		// empty table read as a listing that failed.
		if len(sessions) == 0 && !e.JSON {
			return noConversations(project.Root)
		}
		return listSessions(sessions, e.JSON)
	}
	for _, s := range sessions {
		if s.Note != "" && (e.All || e.Session != "" && strings.HasPrefix(s.ID, e.Session)) {
			printable.Say(os.Stderr, "claudebox: skipped session %s: %s", s.ID, s.Note)
		}
	}
	readable := sessions[:0:0]
	for _, s := range sessions {
		if s.Note == "" {
			readable = append(readable, s)
		}
	}
	if len(readable) == 0 && e.Session == "" {
		return noConversations(project.Root)
	}
	e.Options.Root, e.Options.Home = project.Root, home.Dir
	e.Options.Generator = "claudebox " + versionString()
	if e.All {
		if err := os.MkdirAll(e.AllDir, 0o755); err != nil {
			return err
		}
		for _, s := range readable {
			if err := transcript.ExportFile(filepath.Join(e.AllDir, s.ID+".md"), dir, s.Path, e.Options); err != nil {
				return err
			}
		}
		printable.Say(os.Stderr, "claudebox: wrote %d sessions to %s", len(readable), e.AllDir)
		return nil
	}
	s, err := pickSession(readable, e.Session)
	if err != nil {
		return err
	}
	if e.Output != "" {
		return transcript.ExportFile(e.Output, dir, s.Path, e.Options)
	}
	return transcript.Export(os.Stdout, dir, s.Path, e.Options)
}

// projectInstance is the instance directory of root, if it is root's: an
// instance that records another root holds another project's history.
func projectInstance(state, root string) (string, error) {
	dir := instance.Dir(state, root)
	got, err := untrusted.ReadFile(dir, instance.RootFile, instance.RootFileLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", hint.Errorf("a session of claudebox here creates one", "%s has no sessions yet", root)
	case err != nil:
		return "", err
	case !bytes.Equal(got, []byte(root+"\n")):
		return "", fmt.Errorf("%w: %s records \"%s\"", instance.ErrOtherRoot, filepath.Join(dir, instance.RootFile), printable.Excerpt(string(bytes.TrimRight(got, "\n"))))
	}
	return dir, nil
}

// noConversations says that root has no conversation to list or export.
func noConversations(root string) error {
	return hint.Errorf("Claude Code keeps a session's conversation once you send it a prompt", "%s has no conversations yet", printable.Escape(root))
}

// pickSession finds the session id names (an id or a unique prefix), or the
// latest when id is empty.
func pickSession(sessions []transcript.Session, id string) (transcript.Session, error) {
	if id == "" {
		s, _ := transcript.Latest(sessions)
		return s, nil
	}
	var found []transcript.Session
	for _, s := range sessions {
		if strings.HasPrefix(s.ID, id) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return transcript.Session{}, hint.Errorf("claudebox --list-sessions names this project's sessions", "no session %s", id)
	}
	return transcript.Session{}, hint.Errorf("give more of the id", "%d sessions start with %s", len(found), id)
}

// listSessions prints the sessions, oldest first.
func listSessions(sessions []transcript.Session, asJSON bool) error {
	if asJSON {
		if sessions == nil {
			sessions = []transcript.Session{}
		}
		return writeJSON(os.Stdout, sessions)
	}
	rows := [][]string{{"ID", "STARTED", "TURNS", "TITLE"}}
	for _, s := range sessions {
		started := "-"
		if !s.Start.IsZero() {
			started = s.Start.Local().Format("2006-01-02 15:04")
		}
		title := s.Title
		if s.Agent != "" {
			title = s.Agent + ": " + title
		}
		if s.Note != "" {
			title = "(unreadable: " + s.Note + ")"
		}
		rows = append(rows, []string{s.ID, started, fmt.Sprint(s.Turns), printable.Escape(clipRunes(title, 72))})
	}
	for _, r := range rows {
		fmt.Printf("%-36s  %-16s  %5s  %s\n", r[0], r[1], r[2], r[3])
	}
	return nil
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
