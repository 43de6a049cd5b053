package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
)

// The approval record is honoured only as written by WriteApproval for
// that instance with the state directory's key: anything the sandbox could
// do to it (edit, copy from another instance, replace by a link) counts as
// no approval.
func TestApprovalRecord(t *testing.T) {
	grants := []Grant{{Kind: Variable, Name: "REGION", Digest: "0123456789abcdef"}, {Kind: Mount, Digest: "fedcba9876543210"}, {Kind: SSHAgent}, {Kind: Network}}
	var items []Item
	for _, g := range grants {
		items = append(items, Item{Grant: g})
	}
	for _, c := range []struct {
		name   string
		tamper func(t *testing.T, state, dir, other string) string // returns the dir to read
		want   []Grant
	}{
		{"as written", func(t *testing.T, state, dir, other string) string { return dir }, grants},
		{"a line added", func(t *testing.T, state, dir, other string) string {
			edit(t, filepath.Join(dir, ApprovalFile), func(s string) string { return "EXTRA\n" + s })
			return dir
		}, nil},
		{"a line changed", func(t *testing.T, state, dir, other string) string {
			edit(t, filepath.Join(dir, ApprovalFile), func(s string) string { return strings.Replace(s, "with-ssh", "with-ssx", 1) })
			return dir
		}, nil},
		{"no mac", func(t *testing.T, state, dir, other string) string {
			edit(t, filepath.Join(dir, ApprovalFile), func(s string) string { b, _, _ := strings.Cut(s, "mac "); return b })
			return dir
		}, nil},
		{"copied to another instance", func(t *testing.T, state, dir, other string) string {
			b, _ := os.ReadFile(filepath.Join(dir, ApprovalFile))
			os.WriteFile(filepath.Join(other, ApprovalFile), b, 0o600)
			return other
		}, nil},
		{"another key", func(t *testing.T, state, dir, other string) string {
			os.WriteFile(filepath.Join(state, approvalKey), []byte(strings.Repeat("k", 32)), 0o600)
			return dir
		}, nil},
		{"no key", func(t *testing.T, state, dir, other string) string {
			os.Remove(filepath.Join(state, approvalKey))
			return dir
		}, nil},
		{"a symlink to a valid record", func(t *testing.T, state, dir, other string) string {
			os.Rename(filepath.Join(dir, ApprovalFile), filepath.Join(dir, "elsewhere"))
			os.Symlink("elsewhere", filepath.Join(dir, ApprovalFile))
			return dir
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := t.TempDir()
			dir, other := instance.Dir(state, "/code/a"), instance.Dir(state, "/code/b")
			for _, d := range []string{dir, other} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteApproval(state, dir, items); err != nil {
				t.Fatal(err)
			}
			if got := ReadApproval(state, c.tamper(t, state, dir, other)); !slices.Equal(got, c.want) {
				t.Errorf("ReadApproval = %q, want %q", got, c.want)
			}
		})
	}
}

// The key is made once and kept: a second record is signed with the same.
func TestApprovalKeyKept(t *testing.T) {
	state := t.TempDir()
	dir := instance.Dir(state, "/code/a")
	os.MkdirAll(dir, 0o700)
	WriteApproval(state, dir, []Item{{Grant: Grant{Name: "A"}}})
	key, err := os.ReadFile(filepath.Join(state, approvalKey))
	if err != nil || len(key) != 32 {
		t.Fatalf("key = %d bytes, %v", len(key), err)
	}
	WriteApproval(state, dir, []Item{{Grant: Grant{Name: "B"}}})
	again, _ := os.ReadFile(filepath.Join(state, approvalKey))
	if string(again) != string(key) {
		t.Error("the key changed")
	}
	if fi, _ := os.Stat(filepath.Join(state, approvalKey)); fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v", fi.Mode().Perm())
	}
}

func edit(t *testing.T, path string, f func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(f(string(b))), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Every grant reads back as itself: the record's lines are String's, and
// ParseGrant is their only reader.
func TestGrantRoundTrip(t *testing.T) {
	for _, c := range []struct {
		g    Grant
		line string
	}{
		{Grant{Kind: Variable, Name: "AWS_PROFILE"}, "AWS_PROFILE"},
		{Grant{Kind: Variable, Name: "REGION", Digest: "0123456789abcdef"}, "REGION=0123456789abcdef"},
		{Grant{Kind: Mount, Digest: "fedcba9876543210"}, "mount:fedcba9876543210"},
		{Grant{Kind: SSHAgent}, "with-ssh"},
		{Grant{Kind: Network}, "network"},
	} {
		if got := c.g.String(); got != c.line {
			t.Errorf("%+v.String() = %q, want %q", c.g, got, c.line)
		}
		if got, err := ParseGrant(c.line); err != nil || got != c.g {
			t.Errorf("ParseGrant(%q) = %+v, %v, want %+v", c.line, got, err, c.g)
		}
	}
}

// A line String never writes is not a grant: a record holding one counts
// as no approval (ReadApproval), and the error quotes it escaped.
func TestParseGrantRejects(t *testing.T) {
	for _, line := range []string{
		"",
		"=0123456789abcdef",
		"1NAME",
		"NA ME",
		"NAME\x1b[2K",
		"NAME=",
		"NAME=0123456789abcde",   // 15 digits
		"NAME=0123456789abcdef0", // 17
		"NAME=0123456789ABCDEF",  // upper case: String never writes it
		"NAME=0123456789abcdeg",
		"mount:",
		"mount:0123456789abcde",
		"mount:0123456789ABCDEF",
		"mount:0123456789abcdef\n",
		"with-ssh=0123456789abcdef",
		"WITH-SSH",
		"network ",
		"env:NAME",
	} {
		g, err := ParseGrant(line)
		if err == nil {
			t.Errorf("ParseGrant(%q) = %+v, want an error", line, g)
			continue
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x1b\n") || !strings.HasPrefix(msg, "not an approval: ") {
			t.Errorf("ParseGrant(%q): error %q", line, msg)
		}
	}
}
