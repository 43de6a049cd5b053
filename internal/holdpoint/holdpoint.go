// Package holdpoint stops a claudebox process at a named point of its work
// when the host's environment asks for it, so that the fault tests can
// kill it there: the supervisor at a phase of its session, --gc and --move
// between their steps, --undo once it applied its record; or let the
// host write: between a stand-in's judgement and its removal.
package holdpoint

import (
	"os"
	"os/signal"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/printable"
)

// Variable names the point to stop at; it counts only beside
// CLAUDEBOX_TRACE=1. Both are the host's own environment, which no
// sandbox sets.
const Variable = "CLAUDEBOX_TRACE_HOLD"

// At stops the process at the point called name, if Variable names it and
// tracing is on: it says so on stderr and waits for a SIGUSR1, with which
// a test lets it go on (after killing another process).
func At(name string) {
	if os.Getenv("CLAUDEBOX_TRACE") != "1" || os.Getenv(Variable) != name {
		return
	}
	resume := make(chan os.Signal, 1)
	signal.Notify(resume, unix.SIGUSR1)
	defer signal.Stop(resume)
	printable.Say(os.Stderr, "claudebox: trace: holding after %s", name)
	<-resume
}
