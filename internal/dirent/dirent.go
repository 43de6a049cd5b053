// Package dirent reads a directory's entries straight from the kernel
// (getdents64) into a buffer the caller reuses, and looks an entry up by
// the name as read: a walk of a large tree reads thousands of directories,
// and an os.File for each (its setup, its close) and a string for each
// name cost a good part of what the reads and the statuses do.
package dirent

import (
	"bytes"
	"iter"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// bufSize is a read's buffer: a few hundred entries of short names.
const bufSize = 16 << 10

var bufs = sync.Pool{New: func() any { b := make([]byte, bufSize); return &b }}

// Buffer is a buffer for Read, from a pool: Release gives it back.
func Buffer() *[]byte { return bufs.Get().(*[]byte) }

// Release gives back a buffer Buffer gave; nothing read into it may be
// used after.
func Release(b *[]byte) { bufs.Put(b) }

// Entries are what one Read read.
type Entries []byte

// Read reads the next entries of the directory open at fd into buf; none
// (and no error) at the directory's end.
func Read(fd int, buf []byte) (Entries, error) {
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		return Entries(buf[:max(n, 0)]), nil
	}
}

// All yields each entry's name and type (unix.DT_*: DT_UNKNOWN where the
// filesystem does not say), "." and ".." left out. A name is the read's
// bytes, valid until the next read into its buffer; the NUL that ends it
// in the buffer follows it (StatAt uses it).
func (e Entries) All() iter.Seq2[[]byte, uint8] {
	return func(yield func([]byte, uint8) bool) {
		// struct linux_dirent64: d_ino 8, d_off 8, d_reclen 2, d_type 1,
		// then the name, NUL-ended, padded to reclen.
		for b := []byte(e); len(b) >= 19; {
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if string(name) == "." || string(name) == ".." || len(name) == 0 {
				continue
			}
			if !yield(name, typ) {
				return
			}
		}
	}
}

// StatAt is unix.Fstatat for name in the directory fd, without copying
// name where a NUL follows it (as it does in what Read read).
func StatAt(fd int, name []byte, st *unix.Stat_t, flags int) error {
	if len(name) == 0 || cap(name) == len(name) || name[:len(name)+1][len(name)] != 0 {
		return unix.Fstatat(fd, string(name), st, flags)
	}
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&name[0])), uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
