// Package gitconfig reads git's configuration files as git itself reads
// them: the grammar of git's config.c (git_parse_source), byte for byte,
// so that what claudebox guards is what the host's git will obey. A file
// git would refuse is an error here too, never a guess.
//
// The one place git's versions disagree is whitespace inside an unquoted
// value: older ones (2.39, the one the fuzzer compares with) write a space
// for each whitespace character, as here; newer ones keep it verbatim. A
// value claudebox acts on (a path) differs only if it holds a tab or a
// carriage return.
package gitconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/claudebox/claudebox/untrusted"
)

// Entry is one variable as git's parser hands it on: Key is the full name
// (the section and the variable's name lowercased, a subsection as
// written), Value its value. NoValue marks a name without "=", which git
// reads as true.
type Entry struct {
	Key, Value string
	NoValue    bool
}

// Error is a config file claudebox cannot read as git does: one whose
// syntax git refuses (Line says where, as git does), or one that is not a
// regular file of at most 1 MiB (Err says why).
type Error struct {
	Path string
	Line int
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("bad config line %d in file %s", e.Line, e.Path)
	}
	return "cannot read git config: " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// maxSize is the largest config file read: text a person wrote.
const maxSize = 1 << 20

// Read parses the config file at path. A file that does not exist has no
// entries; one that is not a regular file, is reached through a symlink in
// its last component, or is over 1 MiB is an error (the sandbox can write
// these files: resolve a user's own file first).
func Read(path string) ([]Entry, error) {
	b, err := untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), maxSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	entries, line, ok := parse(b)
	if !ok {
		return nil, &Error{Path: path, Line: line}
	}
	return entries, nil
}

// Parse parses a config file's content, as Read does; Path in an Error is
// empty.
func Parse(b []byte) ([]Entry, error) {
	entries, line, ok := parse(b)
	if !ok {
		return nil, &Error{Line: line}
	}
	return entries, nil
}

// RunsCommand says whether git runs the value of key (an Entry's) as a
// command or a program: a filter's, a diff or merge driver's or tool's, an
// alias, a pager, an editor, a credential helper, a signing program,
// core's commands for ssh, proxies, passwords and file monitors, what
// git send-email asks for addresses (a kernel tree's
// scripts/get_maintainer.pl) or sends with, imap-send's tunnel, git
// help's and git gui's tools, git archive's compressors, a local remote's
// upload and receive programs. The sections that hold git's commands are
// taken whole: what else they hold (diff.renames) is a word no host runs,
// and a key of theirs a list would miss is one.
func RunsCommand(key string) bool {
	section, rest, _ := strings.Cut(key, ".")
	switch section {
	case "filter", "diff", "merge", "alias", "pager", "difftool", "mergetool", "credential", "gpg",
		"sendemail", "man", "browser", "guitool", "instaweb", "tar":
		return true
	case "remote":
		name := rest[strings.LastIndexByte(rest, '.')+1:]
		return name == "uploadpack" || name == "receivepack"
	}
	switch key {
	case "core.fsmonitor", "core.pager", "core.editor", "core.sshcommand", "core.askpass", "core.gitproxy", "core.alternaterefscommand", "sequence.editor", "interactive.difffilter",
		"imap.tunnel", "uploadpack.packobjectshook":
		return true
	}
	return false
}

// Values returns every value of key (canonical: section and name in lower
// case), in the order git sees them; the last one is what git uses.
func Values(entries []Entry, key string) []string {
	var vs []string
	for _, e := range entries {
		if e.Key == key && !e.NoValue {
			vs = append(vs, e.Value)
		}
	}
	return vs
}

// Last returns the value git uses for key, or "" when none is set.
func Last(entries []Entry, key string) string {
	vs := Values(entries, key)
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// Bool returns key's last setting read as git reads a boolean: a name
// alone, true, yes, on or a non-zero number is true (case aside). A value
// git cannot read as one is false here; git refuses to run on it.
func Bool(entries []Entry, key string) bool {
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Key == key {
			return e.NoValue || IsTrue(e.Value)
		}
	}
	return false
}

// IsTrue reads a value as git reads a boolean (a variable's, or one of
// its environment's such as GIT_CONFIG_NOSYSTEM): true, yes, on or a
// non-zero number, case aside.
func IsTrue(value string) bool {
	switch strings.ToLower(value) {
	case "true", "yes", "on":
		return true
	case "", "false", "no", "off":
		return false
	}
	n, err := strconv.ParseInt(strings.TrimRight(value, "kKmMgG"), 0, 64)
	return err == nil && n != 0
}

// Includes lists the files a config file includes (include.path and
// includeIf.<condition>.path), as written, whatever the condition.
func Includes(entries []Entry) []string {
	var paths []string
	for _, e := range entries {
		if e.NoValue {
			continue
		}
		cond, ok := strings.CutPrefix(e.Key, "includeif.")
		if e.Key == "include.path" || ok && strings.HasSuffix(cond, ".path") && len(cond) > len(".path") {
			paths = append(paths, e.Value)
		}
	}
	return paths
}

// reader is git's config_source: a byte stream where "\r\n" reads as
// "\n" and the end reads as a final "\n".
type reader struct {
	b    []byte
	i    int
	eof  bool
	line int
}

// next is git's get_next_char.
func (r *reader) next() byte {
	if r.i >= len(r.b) {
		r.eof = true
		r.line++
		return '\n'
	}
	c := r.b[r.i]
	r.i++
	if c == '\r' && r.i < len(r.b) && r.b[r.i] == '\n' {
		c = '\n'
		r.i++
	}
	if c == '\n' {
		r.line++
	}
	return c
}

// git's sane_ctype: ASCII only, and only these four are spaces.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isKeyChar(c byte) bool {
	return isAlpha(c) || '0' <= c && c <= '9' || c == '-'
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// cString is what C code sees of a string holding a NUL: the part before.
func cString(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\x00")
	return s
}

var bom = []byte("\xef\xbb\xbf")

// parse is git_parse_source. On a syntax error it returns the line git
// names and false.
func parse(b []byte) ([]Entry, int, bool) {
	r := &reader{b: b, line: 1}
	var entries []Entry
	var name []byte // the section stem, "section." or "section.sub."
	comment := false
	// A UTF-8 byte order mark is skipped; part of one is an error.
	inBOM := 0
	for {
		c := r.next()
		if inBOM < len(bom) {
			if c == bom[inBOM] {
				inBOM++
				continue
			}
			if inBOM > 0 {
				return nil, r.line, false
			}
			inBOM = len(bom)
		}
		switch {
		case c == '\n':
			if r.eof {
				return entries, 0, true
			}
			comment = false
			continue
		case comment || isSpace(c):
			continue
		case c == '#' || c == ';':
			comment = true
			continue
		case c == '[':
			var ok bool
			if name, ok = r.section(); !ok || len(name) < 1 {
				return nil, r.line, false
			}
			name = append(name, '.')
			continue
		case !isAlpha(c):
			return nil, r.line, false
		}
		e, ok := r.variable(append(name[:len(name):len(name)], lower(c)))
		if !ok {
			return nil, r.line, false
		}
		entries = append(entries, e)
	}
}

// section is get_base_var: the header after '[', with the section name in
// lower case and a subsection after a '.'.
func (r *reader) section() ([]byte, bool) {
	var name []byte
	for {
		c := r.next()
		switch {
		case r.eof:
			return nil, false
		case c == ']':
			return name, true
		case isSpace(c):
			return r.subsection(name, c)
		case !isKeyChar(c) && c != '.':
			return nil, false
		}
		name = append(name, lower(c))
	}
}

// subsection is get_extended_base_var: `[section "subsection"]`, the
// subsection as written but for backslashes, which escape any character.
func (r *reader) subsection(name []byte, c byte) ([]byte, bool) {
	for {
		if c == '\n' {
			r.line--
			return nil, false
		}
		if c = r.next(); !isSpace(c) {
			break
		}
	}
	if c != '"' {
		return nil, false
	}
	name = append(name, '.')
	for {
		c := r.next()
		if c == '\n' {
			r.line--
			return nil, false
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c = r.next(); c == '\n' {
				r.line--
				return nil, false
			}
		}
		name = append(name, c)
	}
	return name, r.next() == ']'
}

// variable is get_value: the rest of a name, then "= value" or nothing.
func (r *reader) variable(name []byte) (Entry, bool) {
	var c byte
	for {
		c = r.next()
		if r.eof || !isKeyChar(c) {
			break
		}
		name = append(name, lower(c))
	}
	for c == ' ' || c == '\t' {
		c = r.next()
	}
	e := Entry{Key: cString(name), NoValue: true}
	if c == '\n' {
		return e, true
	}
	if c != '=' {
		return e, false
	}
	v, ok := r.value()
	e.Value, e.NoValue = v, false
	return e, ok
}

// value is parse_value: quotes, escapes, comments, and whitespace.
func (r *reader) value() (string, bool) {
	var v []byte
	quote, comment := false, false
	spaces := 0
	for {
		c := r.next()
		if c == '\n' {
			if quote {
				r.line--
				return "", false
			}
			return cString(v), true
		}
		if comment {
			continue
		}
		if isSpace(c) && !quote {
			if len(v) > 0 {
				spaces++
			}
			continue
		}
		if !quote && (c == ';' || c == '#') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v = append(v, ' ')
		}
		switch c {
		case '\\':
			switch c = r.next(); c {
			case '\n':
				continue
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'n':
				c = '\n'
			case '\\', '"':
			default:
				return "", false
			}
			v = append(v, c)
		case '"':
			quote = !quote
		default:
			v = append(v, c)
		}
	}
}
