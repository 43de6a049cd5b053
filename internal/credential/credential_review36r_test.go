package credential

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"fmt"
	"testing"
)

// TestInBinaryCoreDump: a core dump, ELF's or Mach-O's, holds the memory
// of the process that crashed, its environment's tokens among it: not
// shown, in an archive either; a program and a library still are.
func TestInBinaryCoreDump(t *testing.T) {
	env := "\x00CRM_TOKEN=ghp_R36coreQ2pLm4x9WZk3wQp9LmT2vXr7BQ\x00"
	elf := func(data byte, typ string) []byte {
		return []byte("\x7fELF\x02" + string(data) + "\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00" + typ + env)
	}
	inZip := func(b []byte) []byte {
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		f, _ := w.Create("crash/core")
		f.Write(b)
		w.Close()
		return buf.Bytes()
	}
	for _, c := range []struct {
		what string
		data []byte
		want bool
	}{
		{"an ELF core", elf(1, "\x04\x00"), true},
		{"a big-endian ELF core", elf(2, "\x00\x04"), true},
		{"a Mach-O core", []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01\x03\x00\x00\x00\x04\x00\x00\x00" + env), true},
		{"a big-endian Mach-O core", []byte("\xfe\xed\xfa\xce\x00\x00\x00\x12\x00\x00\x00\x00\x00\x00\x00\x04" + env), true},
		{"an ELF core in a zip", inZip(elf(1, "\x04\x00")), true},
		{"an ELF library", elf(1, "\x03\x00"), false},
		{"an ELF program", elf(1, "\x02\x00"), false},
		{"a Mach-O program", []byte("\xcf\xfa\xed\xfe\x07\x00\x00\x01\x03\x00\x00\x00\x02\x00\x00\x00" + env), false},
		{"an ELF library in a zip", inZip(elf(1, "\x03\x00")), false},
	} {
		read := func(limit int64) ([]byte, error) { return c.data, nil }
		text := func(_ string, b []byte) bool { return InSettings(b) }
		if got := InBinary("core", c.data[:min(len(c.data), BinaryHead)], read, text); got != c.want {
			t.Errorf("InBinary(%s) = %v, want %v", c.what, got, c.want)
		}
	}
}

// TestInBinaryArArchive: an ar archive is a container of any files: a
// Debian package is one. An archive of objects as a linker's ar writes
// it (its symbol table, Go's __.PKGDEF or an object first) is shown
// unread; another is judged by what its members hold, and one that
// cannot be read whole holds one.
func TestInBinaryArArchive(t *testing.T) {
	ar := func(members ...string) []byte {
		var b bytes.Buffer
		b.WriteString("!<arch>\n")
		for i := 0; i+1 < len(members); i += 2 {
			fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8s%-10d`\n%s", members[i], 0, 0, 0, "644", len(members[i+1]), members[i+1])
			if len(members[i+1])%2 == 1 {
				b.WriteByte('\n')
			}
		}
		return b.Bytes()
	}
	tarOf := func(name, content string) string {
		var b bytes.Buffer
		w := tar.NewWriter(&b)
		w.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content))})
		w.Write([]byte(content))
		w.Close()
		return b.String()
	}
	elf := "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00>\x00"
	for _, c := range []struct {
		what string
		data []byte
		want bool
	}{
		{"a Debian package whose data holds a token", ar("debian-binary", "2.0\n", "control.tar", tarOf("./control", "Package: agent\n"), "data.tar", tarOf("./etc/agent/agent.env", "AGENT_TOKEN=ghp_R36debQ2pLm4x9WZk3wQp9LmT2vXr7BQ\n")), true},
		{"a Debian package whose data is xz", ar("debian-binary", "2.0\n", "data.tar.xz", "\xfd7zXZ\x00\x00"), true},
		{"a Debian package holding none", ar("debian-binary", "2.0\n", "data.tar", tarOf("./usr/share/doc/agent/README", "the agent\n")), false},
		{"an ar archive of a database", ar("state.db", "SQLite format 3\x00"), true},
		{"an ar archive cut short", ar("debian-binary", "2.0\n", "data.tar", tarOf("./README", "hi\n"))[:200], true},
		{"a member's size past the end", []byte("!<arch>\ndebian-binary   0           0     0     644     999999    `\n2.0\n\x00"), true},
		{"a static library", ar("/", "\x00\x00\x00\x01\x00\x00\x00\x00f\x00", "agent.o/", elf), false},
		{"a library unindexed", ar("agent.o/", elf), false},
		{"Go's package", ar("__.PKGDEF", "go object linux amd64\x00", "_go_.o", "go object linux amd64\x00"), false},
		{"BSD's library", ar("#1/20", "__.SYMDEF SORTED\x00\x00\x00\x00", "#1/12", "agent.o\x00\x00\x00\x00\x00"+elf), false},
		{"an empty archive", []byte("!<arch>\n"), false},
	} {
		read := func(limit int64) ([]byte, error) { return c.data, nil }
		text := func(_ string, b []byte) bool { return InSettings(b) }
		if got := InBinary("agent.deb", c.data[:min(len(c.data), BinaryHead)], read, text); got != c.want {
			t.Errorf("InBinary(%s) = %v, want %v", c.what, got, c.want)
		}
	}
}

// TestInBinaryFontOrDatabase: Microsoft Access's database begins as a
// TrueType font's version does, and was shown unread as a font; a font,
// its table directory read, still is.
func TestInBinaryFontOrDatabase(t *testing.T) {
	for _, c := range []struct {
		what string
		data []byte
		want bool
	}{
		{"an Access database", []byte("\x00\x01\x00\x00Standard Jet DB\x00\x01\x00\x00\x00R36mdbPw"), true},
		{"an Access 2007 database", []byte("\x00\x01\x00\x00Standard ACE DB\x00\x02\x00\x00\x00R36accdbPw"), true},
		{"a TrueType font of 16 tables", []byte("\x00\x01\x00\x00\x00\x10\x01\x00\x00\x04\x00\x00GDEF"), false},
		{"a TrueType font of 18 tables", []byte("\x00\x01\x00\x00\x00\x12\x01\x00\x00\x04\x00\x20GDEF"), false},
		{"an OpenType font of 11 tables", []byte("OTTO\x00\x0b\x00\x80\x00\x03\x00\x30CFF "), false},
	} {
		read := func(limit int64) ([]byte, error) { return c.data, nil }
		if got := InBinary("data", c.data, read, func(string, []byte) bool { return false }); got != c.want {
			t.Errorf("InBinary(%s) = %v, want %v", c.what, got, c.want)
		}
	}
}
