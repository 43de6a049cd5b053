package session

import (
	"os"
	"path/filepath"

	"github.com/claudebox/claudebox/hint"
	"github.com/claudebox/claudebox/mount"
)

// dirCopiesExt names the directory, by the session's run files' stem,
// that holds the private copies of ~/.claude's directories of files
// (mount.DirCopy), bound read-only inside; nothing inside writes there.
const dirCopiesExt = ".claude"

// dirCopiesAt is where the session of the run files' stem writes its
// private copies: in claudebox's runtime directory (probe.RuntimeDir, a
// tmpfs on most systems, where a hundred small files take a millisecond or
// two, against ten on a disk), or beside its run files when there is none.
func dirCopiesAt(runFiles, runtimeDir string) string {
	if runtimeDir != "" {
		return filepath.Join(runtimeDir, filepath.Base(runFiles)+dirCopiesExt)
	}
	return runFiles + dirCopiesExt
}

// writeDirCopies writes the plan's private copies of directories where
// bwrap binds them from; remove takes them away once bwrap has ended.
func (s *Session) writeDirCopies(plan mount.Plan) (remove func(), err error) {
	if len(plan.DirCopies) == 0 {
		return func() {}, nil
	}
	root := filepath.Dir(plan.DirCopies[0].Src)
	remove = func() { os.RemoveAll(root) }
	remove()
	parent := filepath.Dir(root)
	if err := makePrivateDir(parent); err != nil {
		return nil, hint.Errorf("fix its ownership or permissions: chmod u+rwx "+filepath.Dir(parent), "%s is not writable", filepath.Dir(parent))
	}
	if err := writeDirCopies(root, plan.DirCopies); err != nil {
		remove()
		return nil, hint.Errorf("free some space, or fix the permissions of "+parent, "cannot write the private copy of ~/.claude's directories: %v", err)
	}
	return remove, nil
}

func writeDirCopies(root string, copies []mount.DirCopyAt) error {
	if err := os.Mkdir(root, 0o700); err != nil {
		return err
	}
	for _, c := range copies {
		if err := os.Mkdir(c.Src, 0o755); err != nil {
			return err
		}
		for _, e := range c.Copy.Entries {
			path := filepath.Join(c.Src, e.Rel)
			var err error
			switch {
			case e.Dir:
				err = os.Mkdir(path, 0o755)
			case e.Link != "":
				err = os.Symlink(e.Link, path)
			default:
				mode := os.FileMode(0o444)
				if e.Executable {
					mode = 0o555
				}
				err = os.WriteFile(path, []byte(e.Content), mode)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}
