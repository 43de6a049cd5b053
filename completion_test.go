package main

import (
	"bytes"
	"os/exec"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The completion scripts offer exactly the flags --help lists, and the bash
// one parses.
func TestCompletionMatchesHelp(t *testing.T) {
	var c cli
	parser, err := newParser(&c)
	if err != nil {
		t.Fatal(err)
	}
	var help bytes.Buffer
	parser.Stdout = &help
	parser.Exit = func(int) {}
	parser.Parse([]string{"--help"})
	want := uniqueFlags(help.String())
	if len(want) < 10 || !slices.Contains(want, "--dry-run") || slices.Contains(want, "--reap") {
		t.Fatalf("--help lists %q", want)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		var script bytes.Buffer
		if err := writeCompletion(&script, parser.Model.Node, shell); err != nil {
			t.Fatal(err)
		}
		got := uniqueFlags(script.String())
		if shell == "fish" {
			got = uniqueFlags(regexp.MustCompile(`-l ([a-z-]+)`).ReplaceAllString(script.String(), "--$1"))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s completion offers %q, --help lists %q", shell, got, want)
		}
		if shell == "bash" {
			cmd := exec.Command("bash", "-n")
			cmd.Stdin = &script
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("bash -n: %v\n%s", err, out)
			}
		}
	}
}

func uniqueFlags(s string) []string {
	seen := map[string]bool{}
	for _, f := range regexp.MustCompile(`--[a-z][a-z-]*[a-z]`).FindAllString(s, -1) {
		seen[f] = true
	}
	var flags []string
	for f := range seen {
		flags = append(flags, f)
	}
	sort.Strings(flags)
	return flags
}
