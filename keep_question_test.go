package main

import (
	"testing"

	"github.com/claudebox/claudebox/claudesettings"
)

// TestKeepQuestion: --keep-permissions asked "Add these 1 rules to those
// settings files?" of one rule in one file, and "these" of a list where
// some rules were marked ask each, which it asks about after.
func TestKeepQuestion(t *testing.T) {
	local := claudesettings.Rule{File: "/p/.claude/settings.local.json", List: "allow", Rule: "Bash(git status *)"}
	user := claudesettings.Rule{File: "/h/.claude/settings.json", List: "allow", Rule: "Bash(ls *)"}
	for _, c := range []struct {
		keep    []claudesettings.Rule
		askEach bool
		want    string
	}{
		{[]claudesettings.Rule{local}, false, "Add this rule to the settings file? [y/N] "},
		{[]claudesettings.Rule{local}, true, "Add the rule not marked ask each to the settings file? [y/N] "},
		{[]claudesettings.Rule{local, local}, false, "Add these 2 rules to the settings file? [y/N] "},
		{[]claudesettings.Rule{local, user}, true, "Add the 2 rules not marked ask each to the settings files? [y/N] "},
	} {
		if got := keepQuestion(c.keep, c.askEach); got != c.want {
			t.Errorf("keepQuestion(%d rules, ask each %v) = %q, want %q", len(c.keep), c.askEach, got, c.want)
		}
	}
}
