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
