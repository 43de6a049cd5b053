package probe

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scannedPhpIni is phpIni as it read lines before, by a bufio.Scanner:
// what the one reading them in place must give, byte for byte.
func scannedPhpIni(b []byte) (string, bool) {
	var out strings.Builder
	s := bufio.NewScanner(bytes.NewReader(b))
	for s.Scan() {
		line := strings.TrimSpace(strings.TrimRight(s.Text(), "\r"))
		switch {
		case line == "" || line[0] == ';' || line[0] == '#':
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			out.WriteString(line + "\n")
		default:
			name, value, ok := strings.Cut(line, "=")
			name = strings.TrimSpace(name)
			if ok && phpDirectives()[name] {
				out.WriteString(name + " = " + strings.TrimSpace(string(phpValue([]byte(value)))) + "\n")
			}
		}
	}
	return out.String(), s.Err() == nil
}

// TestPhpIniInPlace: phpIni, reading lines in place, rebuilds each file
// as the Scanner's reading did: sections, directives, values cut at
// their comment outside quotes, CRLF lines, and a line at or past the
// Scanner's bound leaving the file out; and the host's own ini files.
func TestPhpIniInPlace(t *testing.T) {
	long := strings.Repeat("x", bufio.MaxScanTokenSize)
	inputs := []string{
		"",
		"\n\n",
		"[PHP]\r\nmemory_limit = 128M ; note\r\n;comment\r\n# other\r\n",
		"  [HOST=a.example]  \nmemory_limit=\"a;b\" ; c\nnewrelic.license = \"abc\"\n[\n]\n[]\n",
		"memory_limit = 1\nno newline at the end: memory_limit = 2",
		"memory_limit = 3\n" + long[:len(long)-1] + "\nmemory_limit = 4\n",
		"memory_limit = 5\n" + long + "\nmemory_limit = 6\n",
		"memory_limit = 7\n" + long,
		"memory_limit = 8\n" + long[:len(long)-1],
		"\t date.timezone\t=\t\"Europe/Paris;x\"\t; zone \r\n",
	}
	files, _ := filepath.Glob("/etc/php/*/*/php.ini")
	more, _ := filepath.Glob("/etc/php/*/mods-available/*.ini")
	for _, f := range append(files, more...) {
		if b, err := os.ReadFile(f); err == nil {
			inputs = append(inputs, string(b))
		}
	}
	for i, in := range inputs {
		got, ok := phpIni([]byte(in))
		want, wantOK := scannedPhpIni([]byte(in))
		if ok != wantOK || ok && got != want {
			t.Errorf("input %d (%d bytes): %v %q, want %v %q", i, len(in), ok, got, wantOK, want)
		}
	}
}
