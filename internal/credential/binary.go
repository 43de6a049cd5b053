package credential

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"strings"
)

// BinaryHead is how much of a file's start says whether it is text or
// binary (a NUL in it, as git tells them) and, if binary, of which kind.
const BinaryHead = 8 << 10

// Binary says head, a file's first BinaryHead bytes, is a binary
// file's.
func Binary(head []byte) bool { return bytes.IndexByte(head, 0) >= 0 }

// maxBinaryRead bounds what of a binary file judged by what it holds
// (an archive, a class) is read, and what of an archive is unpacked in
// all: past it, the file is taken to hold a credential, unjudged.
const maxBinaryRead = 16 << 20

// maxArchiveEntries bounds the entries of an archive judged one by one.
const maxArchiveEntries = 10000

// maxArchiveDepth bounds archives within archives (a jar in a zip in a
// tar.gz).
const maxArchiveDepth = 4

// InBinary says a binary file, named name, whose first BinaryHead bytes
// are head, holds a credential or is of a kind not known to hold none:
// what is shown is what its first bytes say is known harmless. Compiled
// code (ELF, Mach-O and PE programs and libraries, not a core dump:
// coreDump; archives of objects, objectArchive; Rust's metadata,
// WebAssembly, Python's bytecode, whose source is judged), images,
// fonts, sound and video, message catalogues and compiled terminfo, X's
// cursors and time zones are shown unread; a zip (a jar, a JDK's module,
// a wheel, an office document), a gzip or bzip2 stream, a tar archive in
// one and another ar archive (a Debian package) are read
// (read, up to maxBinaryRead) and judged by what they hold, each file
// in them by its kind, text by text (a name and its content); a Java
// class by the strings of its constant pool (InCode: a token built
// in); DER certificates, which are public, shown where the whole file
// is certificates. Anything else is not shown: a SQLite database, an
// xz or zstd stream, a PDF, a keystore, a key in DER, an unknown
// format, which may hold anything (a CRM's cache.db held a service's
// token; a backup's configs.tar.gz its .env).
func InBinary(name string, head []byte, read func(limit int64) ([]byte, error), text func(name string, b []byte) bool) bool {
	switch {
	case shownUnread(head):
		return false
	case !readForWhatItHolds(head):
		return true
	}
	b, err := read(maxBinaryRead)
	if err != nil {
		return true
	}
	j := archiveJudge{text: text, budget: maxBinaryRead}
	return j.holds(name, b, 0)
}

// binaryMagic are the first bytes of the binary kinds known to hold no
// credential of the user's, each at its offset.
var binaryMagic = []struct {
	at    int
	magic string
}{
	// Programs and libraries: ELF, Mach-O.
	{0, "\x7fELF"},
	{0, "\xfe\xed\xfa\xce"},
	{0, "\xfe\xed\xfa\xcf"},
	{0, "\xce\xfa\xed\xfe"},
	{0, "\xcf\xfa\xed\xfe"},
	// Rust's metadata, WebAssembly.
	{0, "rust\x00\x00\x00"},
	{0, "\x00asm"},
	// Images.
	{0, "\x89PNG\r\n\x1a\n"},
	{0, "\xff\xd8\xff"},
	{0, "GIF87a"},
	{0, "GIF89a"},
	{0, "II*\x00"},
	{0, "MM\x00*"},
	{0, "\x00\x00\x01\x00"},
	// Sound and video.
	{8, "WEBP"},
	{8, "WAVE"},
	{8, "AVI "},
	{4, "ftyp"},
	{0, "OggS"},
	{0, "fLaC"},
	{0, "ID3"},
	{0, "\x1a\x45\xdf\xa3"},
	// Fonts (TrueType's and OpenType's own: font).
	{0, "ttcf"},
	{0, "wOFF"},
	{0, "wOF2"},
	// X's cursors, the time zones' database.
	{0, "Xcur"},
	{0, "TZif"},
	// Gettext's message catalogues, compiled terminfo.
	{0, "\xde\x12\x04\x95"},
	{0, "\x95\x04\x12\xde"},
	{0, "\x1a\x01"},
	{0, "\x1e\x02"},
}

// shownUnread says head is a binary kind known to hold no credential
// (binaryMagic, but a core dump), a PE program (MZ, and PE where its header says), a
// universal Mach-O (0xCAFEBABE and a handful of architectures), a
// bitmap (BM, its reserved bytes zero, a known header's size), or
// Python's bytecode (its version's number, then \r\n), whose source is
// judged.
func shownUnread(head []byte) bool {
	if coreDump(head) {
		return false
	}
	if objectArchive(head) || font(head) {
		return true
	}
	for _, m := range binaryMagic {
		if len(head) >= m.at+len(m.magic) && string(head[m.at:m.at+len(m.magic)]) == m.magic {
			return true
		}
	}
	if len(head) >= 4 && string(head[2:4]) == "\r\n" {
		python := binary.LittleEndian.Uint16(head)
		return python >= 3000 && python < 4000 || python == 62211
	}
	if len(head) < 64 {
		return false
	}
	pe := int(binary.LittleEndian.Uint32(head[0x3c:]))
	return string(head[:2]) == "MZ" && pe+4 <= len(head) && string(head[pe:pe+4]) == "PE\x00\x00" ||
		string(head[:4]) == "\xca\xfe\xba\xbe" && binary.BigEndian.Uint32(head[4:]) < 45 ||
		string(head[:2]) == "BM" && binary.LittleEndian.Uint32(head[6:]) == 0 && strings.Contains("\x0c\x28\x34\x38\x6c\x7c", string(head[14:15]))
}

// coreDump says head is a core dump's, ELF's or Mach-O's: the memory of
// a process that crashed, its environment and the tokens it was given
// among it, written where it ran (a core a skill's tool left in its
// folder was shown as a program is).
func coreDump(head []byte) bool {
	const core = 4 // ET_CORE, MH_CORE
	switch {
	case len(head) >= 18 && string(head[:4]) == "\x7fELF" && head[5] == 2:
		return binary.BigEndian.Uint16(head[16:]) == core
	case len(head) >= 18 && string(head[:4]) == "\x7fELF":
		return binary.LittleEndian.Uint16(head[16:]) == core
	case len(head) >= 16 && (string(head[:4]) == "\xfe\xed\xfa\xce" || string(head[:4]) == "\xfe\xed\xfa\xcf"):
		return binary.BigEndian.Uint32(head[12:]) == core
	case len(head) >= 16 && (string(head[:4]) == "\xce\xfa\xed\xfe" || string(head[:4]) == "\xcf\xfa\xed\xfe"):
		return binary.LittleEndian.Uint32(head[12:]) == core
	}
	return false
}

// font says head is a TrueType or OpenType font's: its version
// (1.0, OTTO, Apple's true), then a table directory whose search range
// its number of tables gives. Microsoft Access's database begins as a
// font's version does (\x00\x01\x00\x00Standard Jet DB).
func font(head []byte) bool {
	if len(head) < 12 || string(head[:4]) != "\x00\x01\x00\x00" && string(head[:4]) != "OTTO" && string(head[:4]) != "true" {
		return false
	}
	tables := binary.BigEndian.Uint16(head[4:])
	if tables == 0 {
		return false
	}
	searchRange := uint16(16)
	for searchRange*2 <= tables*16 {
		searchRange *= 2
	}
	return binary.BigEndian.Uint16(head[6:]) == searchRange
}

// readForWhatItHolds says head is of a kind judged by what it holds: a
// zip, a gzip or bzip2 stream, a tar or ar archive, a Java class, DER.
func readForWhatItHolds(head []byte) bool {
	return zipped(head) || gzipped(head) || bzipped(head) || tarred(head) || arred(head) || javaClass(head) || der(head)
}

// arMagic begins an ar archive.
const arMagic = "!<arch>\n"

// arred says head is an ar archive's: a container of any files (a
// Debian package is one, its data.tar holding what it installs).
func arred(head []byte) bool { return bytes.HasPrefix(head, []byte(arMagic)) }

// arHeader is the size of an ar archive's header of each member: its
// name (16 bytes), times, owner, mode, size (10) and a closing "`\n".
const arHeader = 60

// objectArchive says head is an archive of objects as a linker's ar
// writes it (a static library, Go's package, Rust's .rlib), shown
// unread: empty, or its first member the symbol table (GNU's /,
// /SYM64/, BSD's __.SYMDEF), Go's __.PKGDEF or an object file (.o).
// Another ar archive (a Debian package, debian-binary first) is judged
// by what its members hold.
func objectArchive(head []byte) bool {
	if !arred(head) {
		return false
	}
	if len(head) == len(arMagic) {
		return true
	}
	if len(head) < len(arMagic)+arHeader {
		return false
	}
	name := strings.TrimRight(string(head[len(arMagic):len(arMagic)+16]), " ")
	if n, ok := strings.CutPrefix(name, "#1/"); ok {
		// BSD's: the name's length, the name first in the member.
		size, err := strconv.Atoi(n)
		at := len(arMagic) + arHeader
		if err != nil || size < 0 || at+size > len(head) {
			return false
		}
		name = strings.TrimRight(string(head[at:at+size]), "\x00")
	}
	return name == "/" || name == "/SYM64/" || strings.HasPrefix(name, "__.SYMDEF") || name == "__.PKGDEF" ||
		strings.HasSuffix(strings.TrimSuffix(name, "/"), ".o")
}

// zipped says head is a zip archive's, or a JDK's module (JM, its
// version, then a zip).
func zipped(head []byte) bool {
	if bytes.HasPrefix(head, []byte("JM\x01\x00")) {
		head = head[4:]
	}
	return bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
}

func gzipped(head []byte) bool { return bytes.HasPrefix(head, []byte("\x1f\x8b")) }

func bzipped(head []byte) bool { return bytes.HasPrefix(head, []byte("BZh")) }

func tarred(head []byte) bool { return len(head) >= 262 && string(head[257:262]) == "ustar" }

// der says head begins DER's sequence of a long length, as a
// certificate (and a key) in DER does.
func der(head []byte) bool { return bytes.HasPrefix(head, []byte("\x30\x82")) }

// javaClass says head is a Java class: 0xCAFEBABE, then a class file's
// version (45 or later; a universal Mach-O's begins so too, with the
// number of its architectures).
func javaClass(head []byte) bool {
	return len(head) >= 8 && string(head[:4]) == "\xca\xfe\xba\xbe" && binary.BigEndian.Uint16(head[6:8]) >= 45
}

// An archiveJudge judges a file's content as InBinary does, an
// archive's files one by one: text by text, the rest by its kind.
type archiveJudge struct {
	text func(name string, b []byte) bool
	// budget is what may still be unpacked.
	budget int64
}

// holds judges b, the content of the file name, at depth archives deep.
func (j *archiveJudge) holds(name string, b []byte, depth int) bool {
	head := b[:min(len(b), BinaryHead)]
	switch {
	case !Binary(head):
		return j.text(name, b)
	case shownUnread(head):
		return false
	case javaClass(head):
		strs, ok := classStrings(b)
		return !ok || InCode(strs)
	case der(head):
		_, err := x509.ParseCertificates(b)
		return err != nil
	case depth >= maxArchiveDepth:
		return true
	case zipped(head):
		return j.zipHolds(bytes.TrimPrefix(b, []byte("JM\x01\x00")), depth)
	case gzipped(head):
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return true
		}
		inner := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".tgz")
		if r.Name != "" {
			inner = r.Name
		}
		// gzip's trailer says the size of what it holds, modulo 4 GiB.
		return j.streamHolds(inner, r, int64(binary.LittleEndian.Uint32(b[max(len(b)-4, 0):])), depth)
	case bzipped(head):
		return j.streamHolds(strings.TrimSuffix(name, ".bz2"), bzip2.NewReader(bytes.NewReader(b)), 4*int64(len(b)), depth)
	case tarred(head):
		return j.tarHolds(b, depth)
	case arred(head):
		return j.arHolds(b, depth)
	}
	return true
}

// unpacked reads r whole, within the budget, into a buffer of size
// (what the archive says it holds, at most the budget) to begin with;
// false where it is past the budget or cannot be read.
func (j *archiveJudge) unpacked(r io.Reader, size int64) ([]byte, bool) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(size, 512), j.budget+1)))
	_, err := buf.ReadFrom(io.LimitReader(r, j.budget+1))
	if err != nil || int64(buf.Len()) > j.budget {
		return nil, false
	}
	j.budget -= int64(buf.Len())
	return buf.Bytes(), true
}

// streamHolds judges what a compressed stream holds, a file of that
// name, of about size bytes.
func (j *archiveJudge) streamHolds(name string, r io.Reader, size int64, depth int) bool {
	b, ok := j.unpacked(r, size)
	return !ok || j.holds(name, b, depth+1)
}

// zipHolds judges each file of a zip archive.
func (j *archiveJudge) zipHolds(b []byte, depth int) bool {
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(z.File) > maxArchiveEntries {
		return true
	}
	for _, f := range z.File {
		if f.FileInfo().IsDir() {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return true
		}
		content, ok := j.unpacked(r, int64(min(f.UncompressedSize64, 1<<40)))
		r.Close()
		if !ok || j.holds(f.Name, content, depth+1) {
			return true
		}
	}
	return false
}

// tarHolds judges each file of a tar archive.
func (j *archiveJudge) tarHolds(b []byte, depth int) bool {
	r := tar.NewReader(bytes.NewReader(b))
	for n := 0; ; n++ {
		h, err := r.Next()
		switch {
		case errors.Is(err, io.EOF):
			return false
		case err != nil || n >= maxArchiveEntries:
			return true
		case h.Typeflag == tar.TypeDir:
			continue
		}
		content, ok := j.unpacked(r, h.Size)
		if !ok || j.holds(h.Name, content, depth+1) {
			return true
		}
	}
}

// arHolds judges each member of an ar archive, its own tables (the
// symbols', the long names') passed over; one that cannot be read whole
// (a size past the archive's end, bytes after its last member) holds
// one.
func (j *archiveJudge) arHolds(b []byte, depth int) bool {
	at := len(arMagic)
	for n := 0; at < len(b); n++ {
		if n >= maxArchiveEntries || at+arHeader > len(b) || string(b[at+58:at+arHeader]) != "`\n" {
			return true
		}
		name := strings.TrimRight(string(b[at:at+16]), " ")
		size, err := strconv.Atoi(strings.TrimRight(string(b[at+48:at+58]), " "))
		at += arHeader
		if err != nil || size < 0 || size > len(b)-at {
			return true
		}
		content := b[at : at+size]
		at += size + size%2
		if l, ok := strings.CutPrefix(name, "#1/"); ok {
			nameSize, err := strconv.Atoi(l)
			if err != nil || nameSize < 0 || nameSize > len(content) {
				return true
			}
			name, content = strings.TrimRight(string(content[:nameSize]), "\x00"), content[nameSize:]
		}
		switch {
		case name == "/" || name == "//" || name == "/SYM64/" || strings.HasPrefix(name, "__.SYMDEF"):
		case j.holds(strings.TrimSuffix(name, "/"), content, depth+1):
			return true
		}
	}
	return false
}

// classStrings are the strings of a Java class's constant pool (its
// literals, names and types), a line each; false where the pool cannot
// be read.
func classStrings(b []byte) ([]byte, bool) {
	if len(b) < 10 {
		return nil, false
	}
	count := int(binary.BigEndian.Uint16(b[8:10]))
	var out strings.Builder
	at := 10
	for i := 1; i < count; i++ {
		if at >= len(b) {
			return nil, false
		}
		tag := b[at]
		size := 0
		switch tag {
		case 1: // Utf8: its length, then its bytes
			if at+3 > len(b) {
				return nil, false
			}
			n := int(binary.BigEndian.Uint16(b[at+1 : at+3]))
			if at+3+n > len(b) {
				return nil, false
			}
			out.Write(b[at+3 : at+3+n])
			out.WriteByte('\n')
			size = 3 + n
		case 7, 8, 16, 19, 20: // Class, String, MethodType, Module, Package
			size = 3
		case 15: // MethodHandle
			size = 4
		case 3, 4, 9, 10, 11, 12, 17, 18: // Integer, Float, refs, NameAndType, dynamic
			size = 5
		case 5, 6: // Long, Double, which take two entries
			size = 9
			i++
		default:
			return nil, false
		}
		at += size
	}
	return []byte(out.String()), true
}
