// Package leafdirs hands the status of the project's deepest looked-at
// directories between the launch's two looks that read them side by
// side: the guards' look for nested repositories and .claude directories
// and the look for hard links, both as far as two levels below the
// project. In a large tree most directories are there (3,000 of 3,030 in
// 60,000 files): each status is read once, by whichever look comes first,
// and the other takes it.
package leafdirs

import (
	"sync"

	"golang.org/x/sys/unix"
)

// Status is what the looks read of a directory's status: its type and
// mode, and its link count (2 for a directory that holds none, where the
// filesystem counts them: btrfs says 1).
type Status struct {
	Mode  uint32
	Nlink uint64
}

// HoldsNoDir says the status is a directory's that holds no directory.
func (s Status) HoldsNoDir() bool {
	return s.Mode&unix.S_IFMT == unix.S_IFDIR && s.Nlink == 2
}

// key is an entry: its directory's path beneath the project, and its name.
type key struct{ dir, name string }

// Statuses are the statuses one look read and the other has yet to take.
// The zero value is ready; a nil one hands nothing.
type Statuses struct {
	mu   sync.Mutex
	read map[key]Status
}

// At is the status of the entry name of the directory open at fd, dir
// beneath the project, not following a symlink: the one the other look
// read there, taken once, or read now and kept for it.
func (s *Statuses) At(fd int, dir, name string) (Status, error) {
	k := key{dir, name}
	if s != nil {
		s.mu.Lock()
		st, ok := s.read[k]
		if ok {
			delete(s.read, k)
		}
		s.mu.Unlock()
		if ok {
			return st, nil
		}
	}
	var st unix.Stat_t
	if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Status{}, err
	}
	read := Status{Mode: st.Mode, Nlink: uint64(st.Nlink)}
	if s != nil {
		s.mu.Lock()
		if _, both := s.read[k]; both {
			// The other read it meanwhile too: neither takes it.
			delete(s.read, k)
		} else {
			if s.read == nil {
				s.read = map[key]Status{}
			}
			s.read[k] = read
		}
		s.mu.Unlock()
	}
	return read, nil
}
