package evalrun

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/claudebox/claudebox/mount"
	"github.com/claudebox/claudebox/untrusted"
)

// entry is what the workspace held at a path as the run started: where it
// was copied from, and its content's digest (a link's target for a
// symlink), so that what the run changed can be told and diffed.
type entry struct {
	src    string
	link   bool
	target string
	sum    [32]byte
	mode   fs.FileMode
}

// manifest maps a workspace-relative path to what was staged there.
type manifest map[string]entry

// copyTree copies the tree at src into dst (which exists), recording each
// file in m under rel: directories, regular files (a reflink where the
// filesystem has them) and symlinks, as links; sockets, FIFOs and devices
// are left out.
func copyTree(src, dst, rel string, m manifest) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, r)
		name := filepath.Join(rel, r)
		switch {
		case d.IsDir():
			if r == "." {
				return nil
			}
			return os.MkdirAll(to, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			os.Remove(to)
			if err := os.Symlink(target, to); err != nil {
				return err
			}
			m[name] = entry{src: path, link: true, target: target}
		case d.Type().IsRegular():
			e, err := copyFile(src, r, to)
			if err != nil {
				return err
			}
			m[name] = e
		}
		return nil
	})
}

// copyFile copies the regular file name beneath root, by a reflink where
// the filesystem can, and returns its entry. It is opened as untrusted
// input: a sandbox of the project's running beside the eval could swap it
// for a symlink to a host secret, or a FIFO, after the walk listed it.
func copyFile(root, name, dst string) (entry, error) {
	src := filepath.Join(root, name)
	in, err := untrusted.Open(root, name)
	if err != nil {
		return entry{}, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return entry{}, err
	}
	mode := fi.Mode().Perm() &^ 0o022
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|unix.O_NOFOLLOW, mode|0o600)
	if err != nil {
		return entry{}, err
	}
	if unix.IoctlFileClone(int(out.Fd()), int(in.Fd())) != nil {
		err = copyData(out, in, fi.Size())
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return entry{}, err
	}
	// Past the limit the run's copy is not read back either, so there is
	// nothing to compare a digest with.
	h := sha256.New()
	if fi.Size() <= fileLimit {
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			return entry{}, err
		}
		if _, err := io.Copy(h, io.LimitReader(in, fileLimit+1)); err != nil {
			return entry{}, err
		}
	}
	e := entry{src: src, mode: mode | 0o600}
	copy(e.sum[:], h.Sum(nil))
	return e, err
}

// copyData copies in's data to out, size bytes, and only its data: holes
// stay holes and are not read, so a sparse file of a terabyte a sandbox
// once left in the project costs neither the disk nor the time.
func copyData(out, in *os.File, size int64) error {
	for off := int64(0); off < size; {
		data, err := unix.Seek(int(in.Fd()), off, unix.SEEK_DATA)
		if err == unix.ENXIO {
			break // only a hole is left
		}
		if err != nil {
			return err
		}
		hole, err := unix.Seek(int(in.Fd()), data, unix.SEEK_HOLE)
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.NewOffsetWriter(out, data), io.NewSectionReader(in, data, hole-data)); err != nil {
			return err
		}
		off = hole
	}
	return out.Truncate(size)
}

// stage lays out a run's scratch directory: the workspace (the project's
// copy, the fixtures, the skills) and the run's ~/.claude with its
// generated settings and state file. It returns what the workspace holds.
func stage(c checked, project, scratch string) (mount.Eval, manifest, error) {
	e := mount.Eval{Workspace: filepath.Join(scratch, "workspace"), ClaudeDir: filepath.Join(scratch, "claude")}
	m := manifest{}
	for _, d := range []string{e.Workspace, e.ClaudeDir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return e, nil, err
		}
	}
	if err := copyTree(project, e.Workspace, "", m); err != nil {
		return e, nil, err
	}
	if c.Fixtures != "" {
		if err := unlinkAlong(e.Workspace, "fixtures", m); err != nil {
			return e, nil, err
		}
		if err := os.MkdirAll(filepath.Join(e.Workspace, "fixtures"), 0o755); err != nil {
			return e, nil, err
		}
		if err := copyTree(c.Fixtures, filepath.Join(e.Workspace, "fixtures"), "fixtures", m); err != nil {
			return e, nil, err
		}
	}
	for _, s := range c.skills {
		dir := filepath.Join(".claude", "skills", s.name)
		// A skill of the project's own of that name gives way to the one
		// under test.
		if err := unlinkAlong(e.Workspace, dir, m); err != nil {
			return e, nil, err
		}
		if err := os.RemoveAll(filepath.Join(e.Workspace, dir)); err != nil {
			return e, nil, err
		}
		for name := range m {
			if strings.HasPrefix(name, dir+"/") {
				delete(m, name)
			}
		}
		if err := os.MkdirAll(filepath.Join(e.Workspace, dir), 0o755); err != nil {
			return e, nil, err
		}
		if err := copyTree(s.dir, filepath.Join(e.Workspace, dir), dir, m); err != nil {
			return e, nil, err
		}
	}
	if err := writeJSON(filepath.Join(e.ClaudeDir, "settings.json"), claudeSettings); err != nil {
		return e, nil, err
	}
	return e, m, writeJSON(filepath.Join(e.ClaudeDir, mount.EvalClaudeJSON), claudeState)
}

// unlinkAlong removes from the workspace the symlinks its copy of the
// project has at rel or at a directory above it, and their records:
// staging writes there next, and would write, or remove, through them on
// the host (a repository, or a session of the project, may leave a
// fixtures or a .claude that links to anywhere).
func unlinkAlong(ws, rel string, m manifest) error {
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		fi, err := os.Lstat(filepath.Join(ws, p))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if err := os.Remove(filepath.Join(ws, p)); err != nil {
				return err
			}
			delete(m, p)
		}
	}
	return nil
}

// claudeSettings is the run's ~/.claude/settings.json: Claude Code's own
// sandbox off (claudebox is the sandbox) and its updater off.
var claudeSettings = map[string]any{
	"sandbox": map[string]any{"enabled": false},
	"env":     map[string]string{"DISABLE_AUTOUPDATER": "1"},
}

// claudeState is the run's ~/.claude.json: onboarding done and the
// workspace trusted, so nothing asks; nothing else of a user's.
var claudeState = map[string]any{
	"hasCompletedOnboarding": true,
	"autoUpdates":            false,
	"projects":               map[string]any{mount.EvalWorkspace: map[string]any{"hasTrustDialogAccepted": true}},
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}
