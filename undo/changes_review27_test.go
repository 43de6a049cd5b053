package undo

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestChangesRecordKeepsNameBytes: a record of changes keeps the bytes of
// a name that is not UTF-8 (its path, an unknown file's), which JSON's
// strings turn into U+FFFD, and where it was moved aside; a name that is
// UTF-8 is written as before.
func TestChangesRecordKeepsNameBytes(t *testing.T) {
	c := Changes{Checkout: "/p", Paths: []PathChange{{Path: "bad\xfe.txt", Change: "created", MovedTo: "/aside/bad\xfe.txt"}, {Path: "ok.txt", Change: "changed"}}, Unknown: []string{"u\xff", "plain"}, Incomplete: []string{}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "path_bytes") != 1 || strings.Count(string(b), "moved_to_bytes") != 1 {
		t.Errorf("path_bytes given for other names than the one not UTF-8: %s", b)
	}
	var got Changes
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Paths, c.Paths) || !slices.Equal(got.Unknown, c.Unknown) {
		t.Errorf("read back %+v %q, want %+v %q", got.Paths, got.Unknown, c.Paths, c.Unknown)
	}
	plain, _ := json.Marshal(Changes{Paths: []PathChange{{Path: "ok.txt"}}, Unknown: []string{"plain"}})
	if strings.Contains(string(plain), "_bytes") {
		t.Errorf("a record of UTF-8 names holds bytes: %s", plain)
	}
}
