package main

import (
	"slices"
	"testing"

	"github.com/claudebox/claudebox/agent"
)

// TestAgentChoicesFromTable: --agent accepts exactly the agent table's
// rows, so a row added there is a choice without a second list to edit.
func TestAgentChoicesFromTable(t *testing.T) {
	defer func(all []agent.Agent) { agent.All = all }(agent.All)
	agent.All = append(slices.Clone(agent.All), agent.Agent{Name: "newcomer"})
	var c cli
	parser, err := newParser(&c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse([]string{"--agent", "newcomer"}); err != nil {
		t.Errorf("--agent newcomer, a row of the table: %v", err)
	}
	if _, err := parser.Parse([]string{"--agent", "nobody"}); err == nil {
		t.Error("--agent nobody, no row of the table, was accepted")
	}
}
