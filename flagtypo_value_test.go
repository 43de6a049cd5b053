package main

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

// TestMissingValueFlagWithoutHelp: a flag with no help text, given no
// value, is named with its usage alone (--ssh-key's, the one hidden flag
// today, crashed the launch on its help's first letter).
func TestMissingValueFlagWithoutHelp(t *testing.T) {
	var c struct {
		Quiet string `name:"quiet"`
	}
	parser, err := kong.New(&c)
	if err != nil {
		t.Fatal(err)
	}
	err = missingValue(parser.Model.Node, []string{"--quiet"})
	if err == nil || !strings.Contains(err.Error(), "--quiet is given no VALUE") {
		t.Errorf("missingValue: %v", err)
	}
}
