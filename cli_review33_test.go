package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/agent"
)

// TestAgentFlagFromTable: --agent takes each of the agent table's names
// and no other, says them all when refusing one, and its help names them
// all, though the parser is given no variable to interpolate them from.
func TestAgentFlagFromTable(t *testing.T) {
	for _, name := range agent.Names() {
		var c cli
		p, err := newParser(&c)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Parse([]string{"--agent", name}); err != nil || c.Agent != name {
			t.Errorf("--agent %s: %v, agent %q", name, err, c.Agent)
		}
	}
	var c cli
	p, err := newParser(&c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Parse([]string{"--agent", "bogus"})
	if err == nil {
		t.Fatal("--agent bogus was taken")
	}
	for _, name := range agent.Names() {
		if !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Errorf("the refusal %q does not name %s", err, name)
		}
	}
	for _, f := range p.Model.Flags {
		if f.Name == "agent" && f.Help != "Run "+agentsAnd()+"; arguments go to it." {
			t.Errorf("--agent's help: %q", f.Help)
		}
	}
}
