package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/config"
	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/printable"
	"github.com/claudebox/claudebox/session"
)

// noSession is the error of --net-log and --live where no session of the
// project runs (on the filtered network: one that --live can widen).
func noSession(filtered bool) error {
	const start = "start claudebox in this project, then run this from another terminal in it"
	if filtered {
		return hint.Errorf(start+" (--save alone keeps the hosts for the next session)", "no session of this project is running on the filtered network")
	}
	return hint.Errorf(start, "no session of this project is running")
}

// netLogCmd follows the network decisions of the project's running
// sessions until they end.
type netLogCmd struct{ JSON bool }

// followEvery is how often a log at its end is read again.
const followEvery = 200 * time.Millisecond

// maxLogLine bounds a line read back from a decision log.
const maxLogLine = 64 << 10

func (n netLogCmd) Run(home session.Home) error {
	_, project, err := session.Here()
	if err != nil {
		return err
	}
	live := session.LiveSessions(home.State, project.Root)
	if len(live) == 0 {
		return noSession(false)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range live {
		prefix := ""
		if len(live) > 1 {
			prefix = "[" + s.PID() + "] "
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			follow(s, func(line []byte) {
				mu.Lock()
				defer mu.Unlock()
				if n.JSON {
					// The supervisor escaped its controls; a line it did not
					// write whole is escaped here.
					os.Stdout.Write(append(printable.JSON(line), '\n'))
					return
				}
				printable.Say(os.Stdout, "%s%s", prefix, readable(line))
			})
		}()
	}
	wg.Wait()
	return nil
}

// follow hands each line of the session's log to out, from its start
// until the session has ended.
func follow(s session.LiveSession, out func([]byte)) {
	f, err := os.OpenFile(s.Log(), os.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, maxLogLine)
	var partial []byte
	for {
		// Whether it runs is asked before the read: what it wrote before it
		// ended is read before following stops.
		running := s.Running()
		for {
			chunk, err := r.ReadSlice('\n')
			partial = append(partial, chunk...)
			if err == nil {
				out(partial[:len(partial)-1])
				partial = partial[:0]
				continue
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				if len(partial) > maxLogLine {
					partial = partial[:0]
				}
				continue
			}
			break
		}
		if !running {
			return
		}
		time.Sleep(followEvery)
	}
}

// readable writes a decision as a line for people: its time, what was
// decided, where to, and why.
func readable(line []byte) string {
	var d struct {
		Time, Decision, Method, Target, Path, Address, Header, Why string
	}
	if json.Unmarshal(line, &d) != nil {
		return string(line)
	}
	at := d.Time
	if t, err := time.Parse(time.RFC3339Nano, d.Time); err == nil {
		at = t.Local().Format("15:04:05")
	}
	words := []string{at}
	switch d.Decision {
	case "allow":
		words = append(words, "allowed")
	case "refuse":
		words = append(words, "refused")
	case "drop-header":
		words = append(words, "dropped the header "+d.Header+" of")
	}
	for _, w := range []string{d.Method, d.Target, d.Path} {
		if w != "" {
			words = append(words, w)
		}
	}
	if d.Address != "" && d.Address != d.Target {
		words = append(words, "at "+d.Address)
	}
	s := strings.Join(words, " ")
	if d.Why != "" {
		s += ": " + d.Why
	}
	return s
}

// allowLiveCmd adds hosts to the allow list of the project's running
// sessions at once (Live), to the user's config.toml (Save), or both.
type allowLiveCmd struct {
	Hosts      []string
	Live, Save bool
}

func (a allowLiveCmd) Run(home session.Home) error {
	_, project, err := session.Here()
	if err != nil {
		return err
	}
	if err := config.ValidAllowHosts(a.Hosts); err != nil {
		return err
	}
	var live []session.LiveSession
	if a.Live {
		// A session on the host's network or none has nothing to widen.
		live = slices.DeleteFunc(session.LiveSessions(home.State, project.Root), func(s session.LiveSession) bool { return !paths.Exists(s.Control()) })
		if len(live) == 0 {
			return noSession(true)
		}
	}
	if a.Save {
		added, err := config.SaveAllowHosts(home.Dir, a.Hosts)
		switch {
		case err != nil:
			return err
		case len(added) == 0:
			printable.Say(os.Stderr, "claudebox: already in %s", config.UserConfigPath(home.Dir))
		default:
			printable.Say(os.Stderr, "claudebox: kept in %s: %s", config.UserConfigPath(home.Dir), strings.Join(added, ", "))
		}
	}
	var failed error
	for _, s := range live {
		for _, h := range a.Hosts {
			rule, err := s.AllowLive(h)
			if err != nil {
				failed = hint.Errorf("check the entry against deny-hosts in "+config.UserConfigPath(home.Dir), "session %s did not allow %s: %v", s.PID(), h, err)
				report(os.Stderr, failed)
				continue
			}
			printable.Say(os.Stderr, "claudebox: session %s now allows %s", s.PID(), rule)
		}
	}
	if failed != nil {
		return errQuiet
	}
	return nil
}
