package undo

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestListGateLate: a list of ignored files taken after the sandbox's
// start stopped waiting for it is none (the record says so). One taken in
// time lets the sandbox start. Either way each ignored file the host runs
// that the session wrote, made or changed, is a finding.
func TestListGateLate(t *testing.T) {
	for _, late := range []bool{false, true} {
		p := repo(t, 1, 1)
		state := t.TempDir()
		os.WriteFile(filepath.Join(p.Checkout, ".gitignore"), []byte("ign/\n"), 0o644)
		os.Mkdir(filepath.Join(p.Checkout, "ign"), 0o755)
		since := after(t, state, p.Checkout)
		gate := NewListGate()
		if late {
			gate.Wait(0)
		}
		if _, err := Take(WithListGate(context.Background(), gate), state, p, time.Now(), since, nil, false); err != nil {
			t.Fatal(err)
		}
		gate.Wait(time.Minute) // open: returns at once
		began := after(t, state, p.Checkout)
		tool := filepath.Join(p.Checkout, "ign", "tool")
		if err := os.WriteFile(tool, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		c, err := RecordChanges(state, p, began, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(c.HostRun, tool) {
			t.Errorf("list taken late %v: the made ign/tool is no finding (%q)", late, c.HostRun)
		}
		none := slices.ContainsFunc(c.Incomplete, func(s string) bool { return strings.HasPrefix(s, "the start listed no ignored files") })
		if none != late {
			t.Errorf("list taken late %v: the record says it is none: %v (%q)", late, none, c.Incomplete)
		}
	}
}
