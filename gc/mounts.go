package gc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/instance"
	"github.com/claudebox/claudebox/paths"
	"github.com/claudebox/claudebox/untrusted"
)

// Mounts is the machine's view of its filesystems that decides whether a
// missing root is gone or only not mounted right now.
type Mounts struct {
	// mounted lists the mount points now (from /proc/self/mountinfo).
	mounted []string
	// expected lists the mount points the machine is configured with (from
	// /etc/fstab): a network share, a second disk, an encrypted volume.
	expected []string
}

// removable are where desktops and admins mount removable and network
// filesystems on demand, usually without an fstab entry.
var removable = []string{"/media", "/run/media", "/mnt", "/net"}

// unmounted reports whether a missing root may lie on a filesystem that is
// not mounted now, in which case it is not gone: under an fstab mount point
// that is not mounted, or under a removable-media directory with no
// filesystem mounted there that would hold it.
func (m Mounts) unmounted(root string) bool {
	mounted := map[string]bool{}
	for _, p := range m.mounted {
		mounted[p] = true
	}
	for _, e := range m.expected {
		if e != "/" && paths.Within(root, e) && !mounted[e] {
			return true
		}
	}
	holder := m.holder(root)
	for _, r := range removable {
		if paths.Within(root, r) && root != r && !strings.HasPrefix(holder, r+"/") {
			return true
		}
	}
	return false
}

// holderFile is where claudebox keeps, for an instance, the mount point that
// held its root when a session last ran: in its state, out of the
// sandbox's reach.
func holderFile(stateDir, hash string) string {
	return filepath.Join(stateDir, instance.MountRecords, hash)
}

// RecordHolder notes the mount point holding root, so that once an ad hoc
// mount is gone (an sshfs, a gocryptfs, a tmpfs in ~/mnt, none of them in
// fstab) its projects are known to be unmounted, not gone. A root on the
// root filesystem needs no note.
func RecordHolder(stateDir, root string, m Mounts) error {
	path := holderFile(stateDir, instance.Hash(root))
	holder := m.holder(root)
	if holder == "/" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if b, err := untrusted.ReadFile(filepath.Dir(path), filepath.Base(path), 4096); err == nil && string(b) == holder+"\n" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return untrusted.WriteFile(filepath.Dir(path), filepath.Base(path), []byte(holder+"\n"), 0o600)
}

// holderAway reports whether the mount point recorded for the instance
// hash is not mounted now.
func (m Mounts) holderAway(stateDir, hash string) bool {
	b, err := untrusted.ReadFile(filepath.Join(stateDir, instance.MountRecords), hash, 4096)
	if err != nil {
		return false
	}
	holder := strings.TrimSuffix(string(b), "\n")
	return filepath.IsAbs(holder) && !slices.Contains(m.mounted, holder)
}

// holder is the deepest mount point containing path.
func (m Mounts) holder(path string) string {
	best := "/"
	for _, p := range m.mounted {
		if paths.Within(path, p) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// ReadMounts reads the mount table and fstab; a file that cannot be read
// contributes nothing.
func ReadMounts(mountinfo, fstab string) Mounts {
	return Mounts{mounted: fields(mountinfo, 4), expected: fields(fstab, 1)}
}

// fields returns field n (0-based) of each line, with the octal escapes of
// these files (\040 for a space) decoded; comments are skipped. Fields are
// split at spaces and tabs only, as the kernel and getmntent split them: a
// mount point may hold any other byte (a no-break space), and no line
// length is too long.
func fields(path string, n int) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []string
	for line := range strings.SplitSeq(string(b), "\n") {
		fs := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(fs) == 0 || fs[0][0] == '#' {
			continue
		}
		if len(fs) > n && strings.HasPrefix(fs[n], "/") {
			out = append(out, unescape(fs[n]))
		}
	}
	return out
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
