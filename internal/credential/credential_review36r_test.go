package credential

import (
	"archive/zip"
	"bytes"
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
