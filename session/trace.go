package session

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/claudebox/claudebox/internal/holdpoint"
	"github.com/claudebox/claudebox/printable"
)

// TraceVariable, set to 1 in claudebox's own environment on the host,
// makes a launch say at exit how long each of its phases took, so a slow
// launch can be reported with numbers.
const TraceVariable = "CLAUDEBOX_TRACE"

// phases times a launch, phase after phase; nil when not asked for.
type phases struct {
	last  time.Time
	names []string
	took  []time.Duration
}

func newPhases() *phases {
	if os.Getenv(TraceVariable) != "1" {
		return nil
	}
	return &phases{last: time.Now()}
}

// done ends the phase called name.
func (p *phases) done(name string) {
	if p == nil {
		return
	}
	now := time.Now()
	p.names, p.took = append(p.names, name), append(p.took, now.Sub(p.last))
	p.last = now
	p.hold(name)
}

// hold stops the supervisor at the point called name (a phase, or a
// point inside one) if the host's environment asks for it
// (holdpoint.Variable), until a SIGUSR1: the fault tests kill a process
// there, and let the supervisor go on when the victim was another.
func (p *phases) hold(name string) {
	if p != nil {
		holdpoint.At(name)
	}
}

// report writes the phases on one line.
func (p *phases) report(w io.Writer) {
	if p == nil {
		return
	}
	var parts []string
	for i, name := range p.names {
		parts = append(parts, fmt.Sprintf("%s %.1fms", name, float64(p.took[i].Microseconds())/1000))
	}
	printable.Say(w, "claudebox: trace: %s", strings.Join(parts, ", "))
}
