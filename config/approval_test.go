package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/instance"
	"golang.org/x/sys/unix"
)

// The record lives in claudebox's state, keyed by the project's root: what
// is in the instance (which the sandbox writes) approves nothing, a record
// is another project's only by its root, and one that is not a regular
// file of well-formed grants counts as none.
func TestApprovalRecord(t *testing.T) {
	grants := []Grant{{kind: kindVariable, name: "REGION", digest: "0123456789abcdef"}, {kind: kindMount, digest: "fedcba9876543210"}, {kind: kindSSHAgent}, {kind: kindNetwork, name: NetworkFiltered}}
	var items []Item
	for _, g := range grants {
		items = append(items, Item{grant: g})
	}
	const root, other = "/code/a", "/code/b"
	record := func(state, root string) string {
		dir, name := instance.RecordPath(state, instance.ApprovalRecords, root)
		return filepath.Join(dir, name)
	}
	for _, c := range []struct {
		name   string
		tamper func(t *testing.T, state string)
		read   string
		want   []Grant
	}{
		{"as written", func(t *testing.T, state string) {}, root, grants},
		{"another project's", func(t *testing.T, state string) {}, other, nil},
		{"a malformed line", func(t *testing.T, state string) {
			edit(t, record(state, root), func(s string) string { return s + "with-ssx\n" })
		}, root, nil},
		{"a FIFO", func(t *testing.T, state string) {
			os.Remove(record(state, root))
			if err := unix.Mkfifo(record(state, root), 0o600); err != nil {
				t.Fatal(err)
			}
		}, root, nil},
		{"a symlink to a record", func(t *testing.T, state string) {
			os.Rename(record(state, root), record(state, root)+".elsewhere")
			os.Symlink(record(state, root)+".elsewhere", record(state, root))
		}, root, nil},
		{"a record planted in the instance", func(t *testing.T, state string) {
			os.Rename(record(state, root), filepath.Join(instance.Dir(state, root), "approved"))
		}, root, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			state := t.TempDir()
			if err := os.MkdirAll(instance.Dir(state, root), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := WriteApproval(state, root, items); err != nil {
				t.Fatal(err)
			}
			c.tamper(t, state)
			if got := ReadApproval(state, c.read); !slices.Equal(got, c.want) {
				t.Errorf("ReadApproval = %v, want %v", got, c.want)
			}
		})
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
// parseGrant is their only reader.
func TestGrantRoundTrip(t *testing.T) {
	for _, c := range []struct {
		g    Grant
		line string
	}{
		{Grant{kind: kindVariable, name: "AWS_PROFILE"}, "AWS_PROFILE"},
		{Grant{kind: kindVariable, name: "REGION", digest: "0123456789abcdef"}, "REGION=0123456789abcdef"},
		{Grant{kind: kindMount, digest: "fedcba9876543210"}, "mount:fedcba9876543210"},
		{Grant{kind: kindSSHAgent}, "with-ssh"},
		{Grant{kind: kindNetwork, name: NetworkFiltered}, "network"},
		{Grant{kind: kindMCP, name: "my-srv_2", digest: "0123456789abcdef"}, "mcp:my-srv_2=0123456789abcdef"},
	} {
		if got := c.g.String(); got != c.line {
			t.Errorf("%+v.String() = %q, want %q", c.g, got, c.line)
		}
		if got, err := parseGrant(c.line); err != nil || got != c.g {
			t.Errorf("parseGrant(%q) = %+v, %v, want %+v", c.line, got, err, c.g)
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
		"mcp:srv",
		"mcp:srv=",
		"mcp:=0123456789abcdef",
		"mcp:s.rv=0123456789abcdef",
	} {
		g, err := parseGrant(line)
		if err == nil {
			t.Errorf("parseGrant(%q) = %+v, want an error", line, g)
			continue
		}
		if msg := err.Error(); strings.ContainsAny(msg, "\x1b\n") || !strings.HasPrefix(msg, "not an approval: ") {
			t.Errorf("parseGrant(%q): error %q", line, msg)
		}
	}
}
